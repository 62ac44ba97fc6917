// The data (`d`) of the gateway's main dispatches, built from the contracts of the objects they carry, so that a
// message, a channel or a member is one shape over HTTP and on the gateway. The dispatch builder
// (gateway/dispatches/deriver.ts) types each dispatch's data by its contract, the AsyncAPI document (http/asyncapi/)
// shows them, and test/gateway/dispatchContracts.test.ts checks real dispatches with them.
// developers/events/gateway-events.mdx, each dispatch's "Event Fields".
import { Channel } from './channels.js';
import { Emoji, ReactionEmoji, Sticker } from './expressions.js';
import { Guild } from './guilds.js';
import { Member } from './members.js';
import { Message } from './messages.js';
import { Role } from './roles.js';
import { Thread, ThreadMember } from './threads.js';
import { User } from './users.js';
import {
  answeredTimestamp,
  anyArray,
  anyObject,
  boolean,
  extend,
  integer,
  list,
  nullable,
  nullableString,
  object,
  snowflakeSchema,
  snowflakes,
  string,
} from './schema.js';

/** "Ready Event Fields"; a guild is an Unavailable Guild (guild.mdx) until its GUILD_CREATE. */
export const Ready = object(
  'READY: the session’s user and guilds. What the API sends a user account’s session too (its DMs), empty where Parley has none.',
  {
    v: integer,
    user: User,
    guilds: list(object('An unavailable guild.', { id: snowflakeSchema, unavailable: boolean })),
    session_id: string,
    resume_gateway_url: string,
    private_channels: list(Channel),
    relationships: anyArray,
    user_settings: anyObject,
    presences: anyArray,
    _trace: list(string),
  },
  { shard: list(integer), application: object('A bot’s application.', { id: snowflakeSchema, flags: integer }) },
);

/** "Guild Create Extra Fields": the guild, with what a session learns of it on joining. */
export const GuildCreate = extend(
  Guild,
  'GUILD_CREATE: the guild, its channels, threads, members and presences.',
  {
    joined_at: answeredTimestamp,
    large: boolean,
    member_count: integer,
    voice_states: anyArray,
    members: list(Member),
    channels: list(Channel),
    threads: list(Thread),
    presences: anyArray,
    stage_instances: anyArray,
    guild_scheduled_events: anyArray,
    soundboard_sounds: anyArray,
  },
  { unavailable: boolean },
);

/** A member without its user, which the message's author or mention is: "partial guild member object". */
export const MessageMember = object(
  'The member who wrote or is mentioned in a guild message, without `user` (the author or the mention is the user).',
  { roles: snowflakes, joined_at: nullable(answeredTimestamp), deaf: boolean, mute: boolean, flags: integer, avatar: nullableString, banner: nullableString },
  {
    nick: nullableString,
    premium_since: nullable(answeredTimestamp),
    pending: boolean,
    communication_disabled_until: nullable(answeredTimestamp),
    avatar_decoration_data: nullable(anyObject),
    collectibles: nullable(anyObject),
  },
);

/**
 * "Message Create Extra Fields"; MESSAGE_UPDATE carries a whole message too, with the same fields. In a guild, a
 * message written by a member carries that member (a webhook's carries none), and each mentioned member comes with
 * theirs.
 */
export const MessageDispatch = extend(
  Message,
  'MESSAGE_CREATE and MESSAGE_UPDATE: the message, with its guild; in a guild, `member`: its author’s member when a member wrote it.',
  { mentions: list(extend(User, 'A mentioned user; in a guild, with their member when they are one.', {}, { member: MessageMember })) },
  { guild_id: snowflakeSchema, member: MessageMember, channel_type: integer },
);

export const MessageDelete = object('MESSAGE_DELETE', { id: snowflakeSchema, channel_id: snowflakeSchema }, { guild_id: snowflakeSchema });

/** "Message Reaction Add Event Fields": in a guild, the member who reacted. */
export const MessageReactionAdd = object(
  'MESSAGE_REACTION_ADD',
  { user_id: snowflakeSchema, channel_id: snowflakeSchema, message_id: snowflakeSchema, emoji: ReactionEmoji, burst: boolean, type: integer },
  { guild_id: snowflakeSchema, member: Member, message_author_id: snowflakeSchema, burst_colors: list(string) },
);

export const MessageReactionRemove = object(
  'MESSAGE_REACTION_REMOVE',
  { user_id: snowflakeSchema, channel_id: snowflakeSchema, message_id: snowflakeSchema, emoji: ReactionEmoji, burst: boolean, type: integer },
  { guild_id: snowflakeSchema },
);

/** "Thread Create": a new thread has `newly_created`; someone added to a private thread gets it with their membership. */
export const ThreadCreate = extend(Thread, 'THREAD_CREATE', {}, { newly_created: boolean, member: ThreadMember });

export const ThreadDelete = object('THREAD_DELETE: which thread it was.', {
  id: snowflakeSchema,
  guild_id: snowflakeSchema,
  parent_id: snowflakeSchema,
  type: integer,
});

export const ThreadMemberUpdate = extend(ThreadMember, 'THREAD_MEMBER_UPDATE: the session’s own membership.', { guild_id: snowflakeSchema });

export const ThreadMembersUpdate = object(
  'THREAD_MEMBERS_UPDATE: who joined or left a thread.',
  { id: snowflakeSchema, guild_id: snowflakeSchema, member_count: integer },
  { added_members: list(ThreadMember), removed_member_ids: snowflakes },
);

export const ThreadListSync = object(
  'THREAD_LIST_SYNC: the active threads of channels the session has just gained access to, with its memberships of them.',
  { guild_id: snowflakeSchema, threads: list(Thread), members: list(ThreadMember) },
  { channel_ids: snowflakes },
);

export const GuildMemberAdd = extend(Member, 'GUILD_MEMBER_ADD', { guild_id: snowflakeSchema });

/** "Guild Member Update Event Fields": most of a member, with its guild. */
export const GuildMemberUpdate = object(
  'GUILD_MEMBER_UPDATE',
  { guild_id: snowflakeSchema, roles: snowflakes, user: User, avatar: nullableString, banner: nullableString, joined_at: nullable(answeredTimestamp) },
  {
    nick: nullableString,
    premium_since: nullable(answeredTimestamp),
    deaf: boolean,
    mute: boolean,
    pending: boolean,
    communication_disabled_until: nullable(answeredTimestamp),
    avatar_decoration_data: nullable(anyObject),
    collectibles: nullable(anyObject),
    flags: integer,
  },
);

export const GuildRoleChange = object('GUILD_ROLE_CREATE and GUILD_ROLE_UPDATE', { guild_id: snowflakeSchema, role: Role });

export const GuildEmojisUpdate = object('GUILD_EMOJIS_UPDATE', { guild_id: snowflakeSchema, emojis: list(Emoji) });

export const GuildStickersUpdate = object('GUILD_STICKERS_UPDATE', { guild_id: snowflakeSchema, stickers: list(Sticker) });

export const ChannelPinsUpdate = object(
  'CHANNEL_PINS_UPDATE',
  { channel_id: snowflakeSchema },
  { guild_id: snowflakeSchema, last_pin_timestamp: nullable(answeredTimestamp) },
);

/** "Invite Create Event Fields". */
export const InviteCreate = object(
  'INVITE_CREATE',
  {
    channel_id: snowflakeSchema,
    code: string,
    created_at: answeredTimestamp,
    max_age: integer,
    max_uses: integer,
    temporary: boolean,
    uses: integer,
    expires_at: nullable(answeredTimestamp),
  },
  { guild_id: snowflakeSchema, inviter: User, target_type: integer, target_user: User, role_ids: snowflakes },
);

/** An interaction as a bot receives it (developers/interactions/receiving-and-responding.mdx, "Interaction Structure"). */
export const InteractionCreate = object(
  'INTERACTION_CREATE: an interaction for a bot, with the channel it came from; `member` in a guild, `user` elsewhere.',
  {
    id: snowflakeSchema,
    application_id: snowflakeSchema,
    type: integer,
    token: string,
    version: integer,
    app_permissions: string,
    locale: string,
    entitlements: anyArray,
    authorizing_integration_owners: anyObject,
    attachment_size_limit: integer,
    channel: Channel,
  },
  {
    data: anyObject,
    guild: anyObject,
    guild_id: snowflakeSchema,
    channel_id: snowflakeSchema,
    member: extend(Member, 'The member who invoked it, with their permissions in the channel.', { permissions: string }),
    user: User,
    message: Message,
    guild_locale: string,
    context: integer,
  },
);

/** The dispatches whose data has a contract, by name. */
export const DISPATCH_CONTRACTS = {
  READY: Ready,
  GUILD_CREATE: GuildCreate,
  GUILD_MEMBER_ADD: GuildMemberAdd,
  GUILD_MEMBER_UPDATE: GuildMemberUpdate,
  GUILD_ROLE_CREATE: GuildRoleChange,
  GUILD_ROLE_UPDATE: GuildRoleChange,
  GUILD_EMOJIS_UPDATE: GuildEmojisUpdate,
  GUILD_STICKERS_UPDATE: GuildStickersUpdate,
  CHANNEL_CREATE: Channel,
  CHANNEL_UPDATE: Channel,
  CHANNEL_DELETE: Channel,
  CHANNEL_PINS_UPDATE: ChannelPinsUpdate,
  INVITE_CREATE: InviteCreate,
  MESSAGE_CREATE: MessageDispatch,
  MESSAGE_UPDATE: MessageDispatch,
  MESSAGE_DELETE: MessageDelete,
  MESSAGE_REACTION_ADD: MessageReactionAdd,
  MESSAGE_REACTION_REMOVE: MessageReactionRemove,
  THREAD_CREATE: ThreadCreate,
  THREAD_UPDATE: Thread,
  THREAD_DELETE: ThreadDelete,
  THREAD_MEMBER_UPDATE: ThreadMemberUpdate,
  THREAD_MEMBERS_UPDATE: ThreadMembersUpdate,
  THREAD_LIST_SYNC: ThreadListSync,
  INTERACTION_CREATE: InteractionCreate,
} as const;

export type ContractedDispatch = keyof typeof DISPATCH_CONTRACTS;
