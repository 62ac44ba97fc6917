// Read model of DMs and group DMs: documents in the `channels` collection beside guild channels (guild_id null), so
// a channel id resolves the same way whatever its kind. `recipient_ids` (every participant) answers "whose channels";
// `recipients` holds their user objects as of the events; `closed_by` lists who hid a DM from their list.
import type { MessageUser } from '../domain/message.js';
import type { WriteOp } from '../ports/readStore.js';
import { CHANNELS } from './collections.js';
import { projection } from './projection.js';
import { deletedMessageUser } from './users.js';
import { endsDmChannel } from '../domain/groupDm.js';

export interface DmChannelDoc {
  _id: string;
  type: 1 | 3;
  guild_id: null;
  owner_id: string | null;
  name: string | null;
  icon: string | null;
  recipient_ids: string[];
  recipients: MessageUser[];
  closed_by: string[];
  last_message_id: string | null;
  [key: string]: unknown;
}

const update = (channelId: string, change: Extract<WriteOp, { updateOne: unknown }>['updateOne']['update']): WriteOp => ({
  updateOne: { collection: CHANNELS, filter: { _id: channelId }, update: change },
});

/**
 * The last participant gone, a DM or group DM ends, as on the widely used API: its keys are destroyed
 * (domain/personalData.ts), and its document leaves the read models with it (its messages and reactions, the messages
 * projection's, with theirs).
 */
const ended = (channelId: string): WriteOp => ({ deleteOne: { collection: CHANNELS, filter: { _id: channelId } } });

export const dmsProjection = projection({
  name: 'dms',
  handles: [
    'DmChannelOpened',
    'DmChannelClosed',
    'DmChannelReopened',
    'DmRecipientLeft',
    'RecipientAdded',
    'RecipientRemoved',
    'GroupDmRenamed',
    'MessageCreated',
    'UserErased',
  ],
  // The documents live in `channels`, which the guild channels' projection declares and empties on its rebuild: rebuild
  // this one with it. Replaying alone rewrites every document whole, so nothing needs emptying here.
  collections: [],
  indexes: [],
  project(e) {
    switch (e.type) {
      case 'DmChannelOpened': {
        const { channelId, type, ownerId, name, recipients } = e.data;
        const doc: DmChannelDoc = {
          _id: channelId,
          type,
          guild_id: null,
          owner_id: ownerId,
          name,
          icon: null,
          recipient_ids: recipients.map((u) => u.id),
          recipients,
          closed_by: [],
          last_message_id: null,
        };
        return [{ replaceOne: { collection: CHANNELS, filter: { _id: channelId }, replacement: doc, upsert: true } }];
      }
      case 'DmChannelClosed':
        return [update(e.data.channelId, { $addToSet: { closed_by: e.data.userId } })];
      case 'DmChannelReopened':
        return [update(e.data.channelId, { $pull: { closed_by: e.data.userId } })];
      // The DM stays while one participant is left; the other shows as Deleted User (UserErased below).
      case 'DmRecipientLeft':
        return endsDmChannel(e) ? [ended(e.data.channelId)] : [];
      case 'RecipientAdded': {
        const { channelId, recipients, ownerId } = e.data;
        return [update(channelId, { $set: { recipients, recipient_ids: recipients.map((u) => u.id), owner_id: ownerId } })];
      }
      case 'RecipientRemoved': {
        const { channelId, user, ownerId } = e.data;
        if (endsDmChannel(e)) return [ended(channelId)];
        return [update(channelId, { $pull: { recipient_ids: user.id, recipients: { id: user.id } }, $set: { owner_id: ownerId } })];
      }
      case 'GroupDmRenamed':
        return [update(e.data.channelId, { $set: { name: e.data.name } })];
      // A new message brings a closed DM back into its recipients' lists, as in the widely used API.
      case 'MessageCreated':
        return e.data.guildId === null
          ? [{ updateOne: { collection: CHANNELS, filter: { _id: e.data.channelId, type: 1 }, update: { $set: { closed_by: [] } } } }]
          : [];
      // The DMs a deleted account was in stay while the other is left (it left its group DMs first, and a DM of two
      // deleted accounts ended): their other side is Deleted User from now on.
      case 'UserErased': {
        const { userId } = e.data;
        const filter = { recipient_ids: { $all: [userId] }, guild_id: null };
        return [
          { updateMany: { collection: CHANNELS, filter, update: { $pull: { recipients: { id: userId } } } } },
          { updateMany: { collection: CHANNELS, filter, update: { $push: { recipients: deletedMessageUser(userId) } } } },
        ];
      }
    }
  },
});
