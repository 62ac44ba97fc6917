// Group DMs (channel type 3, stream group-dm-{id}): the creator owns it; any participant may rename it and add users,
// up to 10 participants; the owner may remove anyone, and anyone may leave. When the owner leaves, the longest-standing
// remaining participant becomes owner.
import type { Decider, DomainEvent } from './decider.js';
import { badRequest, forbidden, invalidForm, notFound } from './errors.js';
import { type DmChannelOpened, DmChannelType, type DmRecipientLeft, endsDm } from './dmChannel.js';
import type { MessageUser } from './message.js';

export const MAX_GROUP_DM_RECIPIENTS = 10;

/** Carries the channel as it is after (recipients, owner, name): the added user's CHANNEL_CREATE. */
export type RecipientAdded = DomainEvent<
  'RecipientAdded',
  { channelId: string; user: MessageUser; addedBy: string; recipients: MessageUser[]; ownerId: string; name: string | null }
>;
/** `ownerId` is the owner after the removal (null when no one is left). */
export type RecipientRemoved = DomainEvent<'RecipientRemoved', { channelId: string; user: MessageUser; removedBy: string; ownerId: string | null }>;
/**
 * Whether a removal ends the group DM: its last participant left (no owner is left to pass it to), and no one can
 * reach it again, so its name, messages and files go with it, as on the widely used API.
 */
export const endsGroupDm = (removal: RecipientRemoved['data']): boolean => removal.ownerId === null;
/**
 * Whether a departure ends its DM or group DM (endsDm, endsGroupDm): the rule the erasure of its keys, both projections
 * and the attachment remover go by.
 */
export const endsDmChannel = (departure: RecipientRemoved | DmRecipientLeft): boolean =>
  departure.type === 'RecipientRemoved' ? endsGroupDm(departure.data) : endsDm(departure.data);
/** CHANNEL_UPDATE on the gateway; `name` null clears it. */
export type GroupDmRenamed = DomainEvent<'GroupDmRenamed', { channelId: string; name: string | null; renamedBy: string }>;
export type GroupDmEvent = DmChannelOpened | RecipientAdded | RecipientRemoved | GroupDmRenamed;

export interface GroupDmState {
  channelId: string | null;
  ownerId: string | null;
  name: string | null;
  /** Participants in the order they joined. */
  recipients: MessageUser[];
}

export type GroupDmCommand =
  | { type: 'CreateGroupDm'; channelId: string; owner: MessageUser; recipients: MessageUser[] }
  | { type: 'AddRecipient'; actorId: string; user: MessageUser }
  | { type: 'RemoveRecipient'; actorId: string; userId: string }
  | { type: 'RenameGroupDm'; actorId: string; name: string | null };

const unknownChannel = () => notFound('UNKNOWN_CHANNEL', 'Unknown Channel');

export const groupDmDecider: Decider<GroupDmState, GroupDmCommand, GroupDmEvent> = {
  initialState: () => ({ channelId: null, ownerId: null, name: null, recipients: [] }),

  decide(command, state) {
    if (command.type === 'CreateGroupDm') {
      const recipients = [
        command.owner,
        ...command.recipients.filter((user, i, all) => user.id !== command.owner.id && all.findIndex((u) => u.id === user.id) === i),
      ];
      if (recipients.length > MAX_GROUP_DM_RECIPIENTS) {
        throw invalidForm([{ path: 'recipients', message: `A group DM has at most ${MAX_GROUP_DM_RECIPIENTS} participants, you included` }]);
      }
      const { channelId, owner } = command;
      return [{ type: 'DmChannelOpened', data: { channelId, type: DmChannelType.GROUP_DM, ownerId: owner.id, name: null, recipients, openedBy: owner.id } }];
    }
    const isRecipient = (id: string) => state.recipients.some((user) => user.id === id);
    if (!state.channelId || !isRecipient(command.actorId)) throw unknownChannel();
    if (command.type === 'RenameGroupDm') {
      if (command.name === state.name) return [];
      return [{ type: 'GroupDmRenamed', data: { channelId: state.channelId, name: command.name, renamedBy: command.actorId } }];
    }
    if (command.type === 'AddRecipient') {
      if (isRecipient(command.user.id)) return [];
      if (state.recipients.length >= MAX_GROUP_DM_RECIPIENTS)
        throw badRequest('MAX_RECIPIENTS', `Maximum number of group DM recipients reached (${MAX_GROUP_DM_RECIPIENTS})`);
      const recipients = [...state.recipients, command.user];
      const data = { channelId: state.channelId, user: command.user, addedBy: command.actorId, recipients, ownerId: state.ownerId!, name: state.name };
      return [{ type: 'RecipientAdded', data }];
    }
    const user = state.recipients.find((u) => u.id === command.userId);
    if (!user) return [];
    if (command.userId !== command.actorId && command.actorId !== state.ownerId)
      throw forbidden('MISSING_PERMISSIONS', 'Only the owner can remove others from a group DM');
    const remaining = state.recipients.filter((u) => u.id !== command.userId);
    const ownerId = command.userId === state.ownerId ? (remaining[0]?.id ?? null) : state.ownerId;
    return [{ type: 'RecipientRemoved', data: { channelId: state.channelId, user, removedBy: command.actorId, ownerId } }];
  },

  evolve(state, event) {
    switch (event.type) {
      case 'DmChannelOpened':
        return { channelId: event.data.channelId, ownerId: event.data.ownerId, name: event.data.name, recipients: event.data.recipients };
      case 'RecipientAdded':
        return { ...state, recipients: event.data.recipients };
      case 'RecipientRemoved':
        return { ...state, ownerId: event.data.ownerId, recipients: state.recipients.filter((u) => u.id !== event.data.user.id) };
      case 'GroupDmRenamed':
        return { ...state, name: event.data.name };
    }
  },
};
