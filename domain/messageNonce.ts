// Nonce deduplication: the same nonce from the same author in the same channel within 5 minutes names the first
// message. Each (channel, author, nonce) has its own small stream (message-nonce-{hash}) that hands out the message id,
// so only retries of one send ever meet on it; other sends never touch it.
import type { Decider, DomainEvent } from './decider.js';

export const NONCE_WINDOW_MS = 5 * 60 * 1000;

export type MessageNonceClaimed = DomainEvent<
  'MessageNonceClaimed',
  { channelId: string; authorId: string; nonce: string; messageId: string; claimedAt: number }
>;

export type NonceState = { messageId: string; claimedAt: number } | null;

/**
 * `messageId` is the id the send will use unless an earlier send within the window already claimed the nonce.
 * `windowMs` widens the window for senders whose retries come later (a code host redelivering an event).
 */
export type ClaimNonce = { type: 'ClaimNonce'; channelId: string; authorId: string; nonce: string; messageId: string; at: number; windowMs?: number };

export const nonceDecider: Decider<NonceState, ClaimNonce, MessageNonceClaimed> = {
  initialState: () => null,
  decide(command, state) {
    if (state && command.at - state.claimedAt < (command.windowMs ?? NONCE_WINDOW_MS)) return [];
    const { channelId, authorId, nonce, messageId, at } = command;
    return [{ type: 'MessageNonceClaimed', data: { channelId, authorId, nonce, messageId, claimedAt: at } }];
  },
  evolve: (_state, event) => ({ messageId: event.data.messageId, claimedAt: event.data.claimedAt }),
};
