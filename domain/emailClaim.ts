// An email address belongs to one account: its stream (email-{keyed hash}, commands/claims.ts) records who holds it.
import type { Decider, DomainEvent } from './decider.js';
import { invalidForm } from './errors.js';

export type EmailClaimed = DomainEvent<'EmailClaimed', { emailHash: string; userId: string }>;
/** The holder deleted their account: the address registers again. */
export type EmailReleased = DomainEvent<'EmailReleased', { emailHash: string; userId: string }>;
export type EmailClaimEvent = EmailClaimed | EmailReleased;
export type EmailClaimState = { holder: string | null };
export type EmailClaimCommand = { type: 'ClaimEmail' | 'ReleaseEmail'; emailHash: string; userId: string };

export const emailClaimDecider: Decider<EmailClaimState, EmailClaimCommand, EmailClaimEvent> = {
  initialState: () => ({ holder: null }),
  decide(command, state) {
    // Released only by its holder, and once: a retried release, or one after someone else took the address, is no change.
    if (command.type === 'ReleaseEmail')
      return state.holder === command.userId ? [{ type: 'EmailReleased', data: { emailHash: command.emailHash, userId: command.userId } }] : [];
    if (state.holder === command.userId) return [];
    if (state.holder) throw invalidForm([{ path: 'email', message: 'Email is already registered.' }]);
    return [{ type: 'EmailClaimed', data: { emailHash: command.emailHash, userId: command.userId } }];
  },
  evolve: (_state, event) => ({ holder: event.type === 'EmailClaimed' ? event.data.userId : null }),
};
