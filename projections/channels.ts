// Read model of guild channels, one document per channel with its guild_id, so a channel id resolves to its guild.
import type { ChannelData } from '../domain/guildState.js';
import type { WriteOp } from '../ports/readStore.js';
import { changeSet } from './changes.js';
import { CHANNELS } from './collections.js';
import { projection } from './projection.js';

export interface ChannelDoc extends Omit<ChannelData, 'id'> {
  _id: string;
  guild_id: string;
  [key: string]: unknown;
}

const insert = (guildId: string, { id, ...channel }: ChannelData): WriteOp => ({
  replaceOne: { collection: CHANNELS, filter: { _id: id }, replacement: { _id: id, guild_id: guildId, ...channel }, upsert: true },
});
const pullOverwrite = (channelId: string, overwriteId: string): WriteOp => ({
  updateOne: { collection: CHANNELS, filter: { _id: channelId }, update: { $pull: { permission_overwrites: { id: overwriteId } } } },
});

export const channelsProjection = projection({
  name: 'channels',
  handles: [
    'GuildCreated',
    'ChannelCreated',
    'ChannelUpdated',
    'ChannelDeleted',
    'ChannelOverwriteSet',
    'ChannelOverwriteDeleted',
    'RoleDeleted',
    'GuildDeleted',
  ],
  collections: [CHANNELS],
  indexes: [
    { collection: CHANNELS, keys: { guild_id: 1, position: 1 } },
    { collection: CHANNELS, keys: { parent_id: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'GuildCreated':
        return e.data.channels.map((channel) => insert(e.data.guildId, channel));
      case 'ChannelCreated':
        return [insert(e.data.guildId, e.data.channel)];
      case 'ChannelUpdated':
        return [{ updateOne: { collection: CHANNELS, filter: { _id: e.data.channelId }, update: { $set: changeSet(e.data.changes) } } }];
      case 'ChannelDeleted': {
        const { id } = e.data.channel;
        return [
          { deleteOne: { collection: CHANNELS, filter: { _id: id } } },
          { updateMany: { collection: CHANNELS, filter: { parent_id: id }, update: { $set: { parent_id: null } } } },
        ];
      }
      case 'ChannelOverwriteSet': {
        const { channelId, overwrite } = e.data;
        // Two writes: within one update, $push would run before $pull and the new overwrite would be pulled out again.
        return [
          pullOverwrite(channelId, overwrite.id),
          { updateOne: { collection: CHANNELS, filter: { _id: channelId }, update: { $push: { permission_overwrites: overwrite } } } },
        ];
      }
      case 'ChannelOverwriteDeleted':
        return [pullOverwrite(e.data.channelId, e.data.overwrite.id)];
      case 'RoleDeleted':
        return [
          {
            updateMany: {
              collection: CHANNELS,
              filter: { guild_id: e.data.guildId },
              update: { $pull: { permission_overwrites: { id: e.data.role.id, type: 0 } } },
            },
          },
        ];
      case 'GuildDeleted':
        return [{ deleteMany: { collection: CHANNELS, filter: { guild_id: e.data.guildId } } }];
    }
  },
});
