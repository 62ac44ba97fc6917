// Direct messages (channel type 1). Two users have one DM channel: the stream dm-{lower id}-{higher id} hands out its
// id once, so concurrent opens of the same pair agree on one channel. Closing a DM hides it from the closer's list
// only; opening it again, or a new message in it, brings it back with the same id and history. A participant leaves it
// for good only with their account's deletion, and once both have, the DM ends: no one can reach it again.
// Events carry the participants as user objects, so the read model and the gateway's CHANNEL_CREATE need no lookups.
import type { Decider, DomainEvent } from './decider.js';
import { forbidden, invalidForm } from './errors.js';
import type { MessageUser } from './message.js';

export const DmChannelType = { DM: 1, GROUP_DM: 3 } as const;

/** A DM or group DM came to be; `recipients` lists every participant, the opener included. */
export type DmChannelOpened = DomainEvent<
  'DmChannelOpened',
  { channelId: string; type: 1 | 3; ownerId: string | null; name: string | null; recipients: MessageUser[]; openedBy: string }
>;
/** A user hid a DM from their channel list (CHANNEL_DELETE to that user only). */
export type DmChannelClosed = DomainEvent<'DmChannelClosed', { channelId: string; userId: string }>;
/** A user opened a DM they had closed (CHANNEL_CREATE to that user only). */
export type DmChannelReopened = DomainEvent<'DmChannelReopened', { channelId: string; userId: string; recipients: MessageUser[] }>;
/**
 * A participant's account is being deleted: they leave the DM for good. `remaining`: the participants still in it; with
 * none left, the DM ends and is erased, its messages and files with it.
 */
export type DmRecipientLeft = DomainEvent<'DmRecipientLeft', { channelId: string; userId: string; remaining: string[] }>;
/**
 * Whether the leaving ends the DM: no participant is left, so its messages and files go with it, as an ended group DM's
 * do (endsGroupDm).
 */
export const endsDm = (left: DmRecipientLeft['data']): boolean => left.remaining.length === 0;
export type DmChannelEvent = DmChannelOpened | DmChannelClosed | DmChannelReopened | DmRecipientLeft;

export interface DmChannelState {
  channelId: string | null;
  recipients: MessageUser[];
  closedBy: ReadonlySet<string>;
  /** The participants who left for good (their accounts deleted). */
  left: ReadonlySet<string>;
}

export type DmChannelCommand =
  /** `channelId` is used only when the pair has no channel yet. */
  | { type: 'OpenDm'; channelId: string; opener: MessageUser; recipient: MessageUser }
  | { type: 'CloseDm'; userId: string }
  /**
   * An account's deletion: its user leaves the DM. `deletedIds`: the participants whose accounts the read models know to
   * be deleted, who count as gone though they deleted theirs before leaving was recorded.
   */
  | { type: 'LeaveDm'; userId: string; deletedIds: readonly string[] };

/** A DM to, or a new DM with, a deleted account: as the widely used API answers it (its 50007). */
export const cannotSendMessagesToUser = () => forbidden('CANNOT_SEND_MESSAGES_TO_USER', 'Cannot send messages to this user');

export const dmPairStream = (a: string, b: string) => {
  const [low, high] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
  return `dm-${low}-${high}`;
};

export const dmChannelDecider: Decider<DmChannelState, DmChannelCommand, DmChannelEvent> = {
  initialState: () => ({ channelId: null, recipients: [], closedBy: new Set(), left: new Set() }),

  decide(command, state) {
    if (command.type === 'OpenDm') {
      const userId = command.opener.id;
      if (command.recipient.id === userId) throw invalidForm([{ path: 'recipient_id', message: 'Cannot open a DM with yourself' }]);
      if (!state.channelId) {
        const recipients = [command.opener, command.recipient];
        return [
          { type: 'DmChannelOpened', data: { channelId: command.channelId, type: DmChannelType.DM, ownerId: null, name: null, recipients, openedBy: userId } },
        ];
      }
      return state.closedBy.has(userId) ? [{ type: 'DmChannelReopened', data: { channelId: state.channelId, userId, recipients: state.recipients } }] : [];
    }
    if (command.type === 'LeaveDm') {
      const { userId, deletedIds } = command;
      if (!state.channelId || state.left.has(userId) || !state.recipients.some((user) => user.id === userId)) return [];
      const remaining = state.recipients.map((user) => user.id).filter((id) => id !== userId && !state.left.has(id) && !deletedIds.includes(id));
      return [{ type: 'DmRecipientLeft', data: { channelId: state.channelId, userId, remaining } }];
    }
    // Always recorded: a new message reopens the DM in the read model without an event here, so this state may
    // think the DM still closed when the user sees it open.
    if (!state.channelId) return [];
    return [{ type: 'DmChannelClosed', data: { channelId: state.channelId, userId: command.userId } }];
  },

  evolve(state, event) {
    const closedBy = new Set(state.closedBy);
    switch (event.type) {
      case 'DmChannelOpened':
        return { ...state, channelId: event.data.channelId, recipients: event.data.recipients, closedBy };
      case 'DmChannelClosed':
        closedBy.add(event.data.userId);
        return { ...state, closedBy };
      case 'DmChannelReopened':
        closedBy.delete(event.data.userId);
        return { ...state, closedBy };
      case 'DmRecipientLeft':
        return { ...state, left: new Set(state.left).add(event.data.userId) };
    }
  },
};
