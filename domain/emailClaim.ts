// An email address belongs to one account: its stream (email-{hash}) records who holds it.
import type { Decider, DomainEvent } from './decider.js';
import { invalidForm } from './errors.js';

export type EmailClaimed = DomainEvent<'EmailClaimed', { emailHash: string; userId: string }>;
export type EmailClaimState = { holder: string | null };
export type EmailClaimCommand = { type: 'ClaimEmail'; emailHash: string; userId: string };

export const emailClaimDecider: Decider<EmailClaimState, EmailClaimCommand, EmailClaimed> = {
  initialState: () => ({ holder: null }),
  decide(command, state) {
    if (state.holder === command.userId) return [];
    if (state.holder) throw invalidForm([{ path: 'email', message: 'Email is already registered.' }]);
    return [{ type: 'EmailClaimed', data: { emailHash: command.emailHash, userId: command.userId } }];
  },
  evolve: (_state, event) => ({ holder: event.data.userId }),
};
