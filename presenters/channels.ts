// Guild channel objects, and the last_pin_timestamp they share with DM channels (which presenters/messages.ts shapes).
import type { APIGuildChannel, APIGuildForumChannel, APIGuildVoiceChannel, APISortableChannel, APITextChannel } from 'discord-api-types/v10';
import type { ChannelDoc } from '../projections/channels.js';
import { NO_FLAGS } from './flags.js';
import { apiTimestamp } from './timestamps.js';

/** A channel's last_pin_timestamp, once a pin has set it (null again after the last unpin). */
export const lastPinTimestamp = (doc: Record<string, unknown>) =>
  doc.last_pin_timestamp === undefined ? {} : { last_pin_timestamp: apiTimestamp(doc.last_pin_timestamp as string | null) };

/**
 * A guild channel of any of the API's guild types: the fields each type has, all in one shape, since the read model
 * keeps for each channel those of its type (and `ChannelDoc` does not tell them apart by type).
 */
export type GuildChannelObject = APIGuildChannel &
  APISortableChannel &
  Pick<APITextChannel, 'topic' | 'rate_limit_per_user' | 'last_message_id' | 'last_pin_timestamp' | 'default_auto_archive_duration'> &
  Pick<APIGuildVoiceChannel, 'bitrate' | 'user_limit' | 'rtc_region' | 'video_quality_mode'> &
  Partial<
    Pick<
      APIGuildForumChannel,
      'available_tags' | 'default_reaction_emoji' | 'default_thread_rate_limit_per_user' | 'default_sort_order' | 'default_forum_layout'
    >
  >;

/** A guild channel object: the fields of its type (the read model keeps only those) and its guild. */
export function channelObject(doc: ChannelDoc): GuildChannelObject {
  const { _id, ...fields } = doc;
  return { id: _id, ...fields, ...lastPinTimestamp(doc), flags: doc.flags ?? NO_FLAGS };
}
