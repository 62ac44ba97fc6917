// Read model of guild channels, one document per channel with its guild_id, so a channel id resolves to its guild.
import type { ChannelEvent } from '../domain/channel.js';
import type { GuildCreated, GuildDeleted } from '../domain/guild.js';
import type { ChannelData } from '../domain/guildState.js';
import type { RoleDeleted } from '../domain/role.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { WriteOp } from '../ports/readStore.js';
import { changeSet } from './changes.js';
import { CHANNELS } from './collections.js';
import { type Projection, is } from './projection.js';

export interface ChannelDoc extends Omit<ChannelData, 'id'> {
  _id: string;
  guild_id: string;
  [key: string]: unknown;
}

type Event = ChannelEvent | GuildCreated | GuildDeleted | RoleDeleted;

const insert = (guildId: string, { id, ...channel }: ChannelData): WriteOp => ({
  replaceOne: { collection: CHANNELS, filter: { _id: id }, replacement: { _id: id, guild_id: guildId, ...channel }, upsert: true },
});
const pullOverwrite = (channelId: string, overwriteId: string): WriteOp => ({
  updateOne: { collection: CHANNELS, filter: { _id: channelId }, update: { $pull: { permission_overwrites: { id: overwriteId } } } },
});

function projectChannel(e: RecordedEvent): WriteOp[] {
  if (is<Event, 'GuildCreated'>(e, 'GuildCreated')) return e.data.channels.map((channel) => insert(e.data.guildId, channel));
  if (is<Event, 'ChannelCreated'>(e, 'ChannelCreated')) return [insert(e.data.guildId, e.data.channel)];
  if (is<Event, 'ChannelUpdated'>(e, 'ChannelUpdated')) {
    return [{ updateOne: { collection: CHANNELS, filter: { _id: e.data.channelId }, update: { $set: changeSet(e.data.changes) } } }];
  }
  if (is<Event, 'ChannelDeleted'>(e, 'ChannelDeleted')) {
    const { id } = e.data.channel;
    return [
      { deleteOne: { collection: CHANNELS, filter: { _id: id } } },
      { updateMany: { collection: CHANNELS, filter: { parent_id: id }, update: { $set: { parent_id: null } } } },
    ];
  }
  if (is<Event, 'ChannelOverwriteSet'>(e, 'ChannelOverwriteSet')) {
    const { channelId, overwrite } = e.data;
    // Two writes: within one update, $push would run before $pull and the new overwrite would be pulled out again.
    return [pullOverwrite(channelId, overwrite.id), { updateOne: { collection: CHANNELS, filter: { _id: channelId }, update: { $push: { permission_overwrites: overwrite } } } }];
  }
  if (is<Event, 'ChannelOverwriteDeleted'>(e, 'ChannelOverwriteDeleted')) return [pullOverwrite(e.data.channelId, e.data.overwrite.id)];
  if (is<Event, 'RoleDeleted'>(e, 'RoleDeleted')) {
    return [
      { updateMany: { collection: CHANNELS, filter: { guild_id: e.data.guildId }, update: { $pull: { permission_overwrites: { id: e.data.role.id, type: 0 } } } } },
    ];
  }
  if (is<Event, 'GuildDeleted'>(e, 'GuildDeleted')) return [{ deleteMany: { collection: CHANNELS, filter: { guild_id: e.data.guildId } } }];
  return [];
}

export const channelsProjection: Projection = {
  name: 'channels',
  collections: [CHANNELS],
  indexes: [
    { collection: CHANNELS, keys: { guild_id: 1, position: 1 } },
    { collection: CHANNELS, keys: { parent_id: 1 } },
  ],
  project: projectChannel,
};
