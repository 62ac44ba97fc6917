// Discriminators are unique per username: each username has a stream (username-{keyed hash}, commands/claims.ts) that hands them out,
// so two registrations of one name serialize on its revision instead of racing.
import type { Decider, DomainEvent } from './decider.js';
import { invalidForm } from './errors.js';

export type DiscriminatorClaimed = DomainEvent<'DiscriminatorClaimed', { username: string; discriminator: string; userId: string }>;
export type DiscriminatorReleased = DomainEvent<'DiscriminatorReleased', { username: string; discriminator: string; userId: string }>;
export type UsernameClaimEvent = DiscriminatorClaimed | DiscriminatorReleased;

/** discriminator → user id */
export type UsernameClaimState = Map<string, string>;

export type UsernameClaimCommand =
  /**
   * `start` (1-9999) is where the search for a free discriminator begins; `preferred` is taken when free. `heldElsewhere`:
   * discriminators of the name held on the stream it had before (commands/claims.ts), never handed out again here.
   */
  | { type: 'ClaimDiscriminator'; username: string; userId: string; start: number; preferred?: string; heldElsewhere?: string[] }
  | { type: 'ReleaseDiscriminator'; username: string; userId: string; discriminator: string };

export const discriminatorOf = (n: number) => String(n).padStart(4, '0');

export const usernameClaimDecider: Decider<UsernameClaimState, UsernameClaimCommand, UsernameClaimEvent> = {
  initialState: () => new Map(),
  decide(command, state) {
    if (command.type === 'ReleaseDiscriminator') {
      return state.get(command.discriminator) === command.userId
        ? [{ type: 'DiscriminatorReleased', data: { username: command.username, discriminator: command.discriminator, userId: command.userId } }]
        : [];
    }
    const claim = (discriminator: string): UsernameClaimEvent[] => [
      { type: 'DiscriminatorClaimed', data: { username: command.username, discriminator, userId: command.userId } },
    ];
    const elsewhere = new Set(command.heldElsewhere);
    const free = (discriminator: string) => !state.has(discriminator) && !elsewhere.has(discriminator);
    if (command.preferred && free(command.preferred)) return claim(command.preferred);
    for (let i = 0; i < 9999; i++) {
      const candidate = discriminatorOf(((command.start - 1 + i) % 9999) + 1);
      if (free(candidate)) return claim(candidate);
    }
    throw invalidForm([{ path: 'username', message: 'Too many users have this username, please try another.' }]);
  },
  evolve(state, event) {
    const next = new Map(state);
    if (event.type === 'DiscriminatorClaimed') next.set(event.data.discriminator, event.data.userId);
    else next.delete(event.data.discriminator);
    return next;
  },
};
