// Reads of DM and group DM documents, which live in the `channels` collection (see channels.queries.ts).
import type { ReadStore } from '../ports/readStore.js';
import { CHANNELS } from './collections.js';
import type { DmChannelDoc } from './dms.js';

/** A channel document read as a DM (callers check its kind when it may be a guild channel). */
export const dmChannelById = (read: Pick<ReadStore, 'findOne'>, channelId: string) => read.findOne<DmChannelDoc>(CHANNELS, { _id: channelId });

/** The DMs and group DMs a user takes part in. */
export const dmChannelsOf = (read: Pick<ReadStore, 'find'>, userId: string) =>
  read.find<DmChannelDoc>(CHANNELS, { recipient_ids: { $all: [userId] }, guild_id: null });

/** The DMs and group DMs a user takes part in, by channel type (as READY lists them). */
export const privateChannelDocsOf = (read: Pick<ReadStore, 'find'>, userId: string) =>
  read.find<DmChannelDoc>(CHANNELS, { type: { $in: [1, 3] }, recipient_ids: { $all: [userId] } });
