// Reads of DM and group DM documents, which live in the `channels` collection (see channels.queries.ts).
import type { ReadStore } from '../ports/readStore.js';
import { CHANNELS } from './collections.js';
import type { DmChannelDoc } from './dms.js';
import { DELETED_USER } from './users.js';

/** A channel document read as a DM (callers check its kind when it may be a guild channel). */
export const dmChannelById = (read: Pick<ReadStore, 'findOne'>, channelId: string) => read.findOne<DmChannelDoc>(CHANNELS, { _id: channelId });

/** The DMs and group DMs a user takes part in. */
export const dmChannelsOf = (read: Pick<ReadStore, 'find'>, userId: string) =>
  read.find<DmChannelDoc>(CHANNELS, { recipient_ids: { $all: [userId] }, guild_id: null });

/** The DMs and group DMs a user takes part in, by channel type (as READY lists them). */
export const privateChannelDocsOf = (read: Pick<ReadStore, 'find'>, userId: string) =>
  read.find<DmChannelDoc>(CHANNELS, { type: { $in: [1, 3] }, recipient_ids: { $all: [userId] } });

/** A filter on the embedded user at `path`: shown as a deleted account. */
const shownDeleted = (path: string) => ({ [`${path}.username`]: DELETED_USER.username, [`${path}.discriminator`]: DELETED_USER.discriminator });

/**
 * Up to `limit` DMs (type 1) after `afterId`, by id, both of whose participants show as Deleted User: those whose two
 * accounts were deleted before account deletion left DMs (processes/leftoverDms.ts). No document is left of one that
 * ended. The users read model says whether each account is deleted: a DM shows its participants only as it embeds them.
 */
export const dmsShowingBothDeleted = (read: Pick<ReadStore, 'find'>, afterId: string, limit: number) =>
  read.find<DmChannelDoc>(
    CHANNELS,
    {
      guild_id: null,
      type: 1,
      _id: { $gt: afterId },
      ...shownDeleted('recipients.0'),
      ...shownDeleted('recipients.1'),
    },
    { sort: { _id: 1 }, limit },
  );
