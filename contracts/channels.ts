// Channel objects: guild channels (presenters/channels.ts) and DMs (presenters/messages.ts).
// developers/resources/channel.mdx, "Channel Structure" and "Overwrite Structure".
import { answeredTimestamp, boolean, extend, integer, list, nullable, object, snowflakeSchema, string, nullableId } from './schema.js';
import { User } from './users.js';

export const Overwrite = object('A permission overwrite.', { id: snowflakeSchema, type: integer, allow: string, deny: string });

/** Every field but id and type is optional in the spec, since which ones a channel has depends on its type. */
export const Channel = object(
  'A channel: a guild channel (presenters/channels.ts) has the fields of its type; a DM (type 1) or group DM (type 3) its recipients.',
  { id: snowflakeSchema, type: integer },
  {
    guild_id: snowflakeSchema,
    position: integer,
    permission_overwrites: list(Overwrite),
    name: nullable(string),
    topic: nullable(string),
    nsfw: boolean,
    last_message_id: nullableId,
    bitrate: integer,
    user_limit: integer,
    rate_limit_per_user: integer,
    recipients: list(User),
    icon: nullable(string),
    owner_id: nullableId,
    application_id: nullableId,
    managed: boolean,
    parent_id: nullableId,
    last_pin_timestamp: nullable(answeredTimestamp),
    rtc_region: nullable(string),
    video_quality_mode: integer,
    default_auto_archive_duration: integer,
    permissions: string,
    flags: integer,
  },
);

// Per type, the fields the spec's example of that type shows, required (last_message_id and
// default_auto_archive_duration aside: its examples show values a new channel does not have yet).
const guildChannel = extend(Channel, 'A guild channel.', {
  guild_id: snowflakeSchema,
  name: string,
  position: integer,
  permission_overwrites: list(Overwrite),
  parent_id: nullableId,
});
const dm = extend(Channel, 'A DM.', { last_message_id: nullableId, recipients: list(User) });

/** A channel of each type as the spec's example of that type shows it. */
export const CHANNEL_OF_TYPE = {
  0: extend(guildChannel, 'A guild text channel.', { topic: nullable(string), nsfw: boolean, rate_limit_per_user: integer }),
  2: extend(guildChannel, 'A guild voice channel.', {
    bitrate: integer,
    user_limit: integer,
    rtc_region: nullable(string),
    rate_limit_per_user: integer,
    nsfw: boolean,
  }),
  4: extend(guildChannel, 'A channel category.', {}),
  1: dm,
  3: extend(dm, 'A group DM.', { name: nullable(string), icon: nullable(string), owner_id: snowflakeSchema }),
} as const;
