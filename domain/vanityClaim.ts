// Vanity codes are unique across guilds: each code has a claim stream (vanity-{code}) recording which guild holds it,
// so two guilds asking for one code serialize on its revision.
import type { Decider, DomainEvent } from './decider.js';
import { invalidForm } from './errors.js';

export type VanityCodeClaimed = DomainEvent<'VanityCodeClaimed', { code: string; guildId: string }>;
export type VanityCodeReleased = DomainEvent<'VanityCodeReleased', { code: string; guildId: string }>;
export type VanityClaimEvent = VanityCodeClaimed | VanityCodeReleased;

export type VanityClaimState = { holder: string | null };

export type VanityClaimCommand = { type: 'ClaimVanityCode'; code: string; guildId: string } | { type: 'ReleaseVanityCode'; code: string; guildId: string };

export const vanityCodeTaken = () => invalidForm([{ path: 'code', message: 'Vanity URL is already taken' }]);

export const vanityClaimDecider: Decider<VanityClaimState, VanityClaimCommand, VanityClaimEvent> = {
  initialState: () => ({ holder: null }),
  decide(command, state) {
    const data = { code: command.code, guildId: command.guildId };
    if (command.type === 'ReleaseVanityCode') return state.holder === command.guildId ? [{ type: 'VanityCodeReleased', data }] : [];
    if (state.holder === command.guildId) return [];
    if (state.holder) throw vanityCodeTaken();
    return [{ type: 'VanityCodeClaimed', data }];
  },
  evolve: (_state, event) => ({ holder: event.type === 'VanityCodeClaimed' ? event.data.guildId : null }),
};
