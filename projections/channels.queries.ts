// Reads of the `channels` collection: guild channels (this projection) and DMs (projections/dms.ts) share it, so a
// channel id resolves the same way whatever its kind. DM-specific reads are in dms.queries.ts.
import type { Doc, ReadStore } from '../ports/readStore.js';
import type { ChannelDoc } from './channels.js';
import { CHANNELS } from './collections.js';

/** A channel of any kind (guild channel, DM or group DM); isDm (commands/access.ts) tells them apart. */
export const anyChannelById = (read: Pick<ReadStore, 'findOne'>, channelId: string) => read.findOne<Doc>(CHANNELS, { _id: channelId });

/** A channel document read as a guild channel (callers check guild_id when it may be a DM). */
export const channelById = (read: Pick<ReadStore, 'findOne'>, channelId: string) => read.findOne<ChannelDoc>(CHANNELS, { _id: channelId });

export const channelsByIds = (read: Pick<ReadStore, 'find'>, channelIds: string[]) => read.find<ChannelDoc>(CHANNELS, { _id: { $in: channelIds } });

/** A guild's channels in position order. */
export const channelsOfGuild = (read: Pick<ReadStore, 'find'>, guildId: string) =>
  read.find<ChannelDoc>(CHANNELS, { guild_id: guildId }, { sort: { position: 1 } });

/** A guild's channels in the store's order, as the gateway's guild payloads have always listed them. */
export const channelsOfGuildUnordered = (read: Pick<ReadStore, 'find'>, guildId: string) => read.find<ChannelDoc>(CHANNELS, { guild_id: guildId });
