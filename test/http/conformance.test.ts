// The object shapes of the widely used API, field by field, as its clients parse them: each object is fetched over
// the real API (and taken from the gateway dispatch that carries it) and checked against a field list. The lists are
// checked at compile time against the type the presenter returns (discord-api-types' type of the object, or Parley's
// declared difference from it, presenters/differences.ts), or against discord-api-types' type where no presenter builds
// the whole object: every required field listed, none the type lacks, `optional` and `nullable` and the JSON type as
// the type has them. What types cannot say is checked here at run time, on the JSON: required fields are present (a
// field a read model left undefined vanishes from it), snowflakes are decimal strings, and timestamps have the form that
// API sends and discord.py's datetime.fromisoformat reads on every Python it supports: microseconds and +00:00. Fields
// beyond the lists are allowed: its clients ignore what they do not know.
import type { APIAttachment, APIEmbed, APIEmoji, APIInvite, APIOverwrite, APIReaction } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_INTENTS, type DispatchData } from '../../gateway/protocol.js';
import type { ParleyReady } from '../../presenters/differences.js';
import type { guildObject } from '../../presenters/guilds.js';
import type { memberObject } from '../../presenters/members.js';
import type { messageObject } from '../../presenters/messages.js';
import type { roleObject } from '../../presenters/roles.js';
import type { stickerObject } from '../../presenters/stickers.js';
import type { userObject } from '../../presenters/users.js';
import type { webhookObject } from '../../presenters/webhooks.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestServer, type TestUser, createBot, registerUser, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild, join } from './guildSupport.js';

type Base = 'string' | 'snowflake' | 'timestamp' | 'integer' | 'boolean' | 'integer or string' | 'array' | 'object' | 'snowflakes';
/** A JSON type, `nullable` (may be null) and/or `optional` (may be absent), a nested shape, or [shape] for a list. */
type Spec = Base | `nullable ${Base}` | `optional ${Base}` | `optional nullable ${Base}` | Shape | [Shape] | Modified;
interface Shape {
  [field: string]: Spec;
}
class Modified<Optional extends boolean = boolean, Nullable extends boolean = boolean> {
  constructor(
    readonly spec: Shape | [Shape],
    readonly optional: Optional,
    readonly nullable: Nullable,
  ) {}
}
const optional = (spec: Shape | [Shape]) => new Modified(spec, true, false);
const optionalNullable = (spec: Shape | [Shape]) => new Modified(spec, true, true);
const nullable = (spec: Shape | [Shape]) => new Modified(spec, false, true);

/** The keys of T that may be absent. */
type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];
/** The spec words for a JSON value of type V (null and undefined aside). */
type BaseOf<V> = [V] extends [boolean]
  ? 'boolean'
  : [V] extends [number]
    ? 'integer'
    : [V] extends [string]
      ? 'string' | 'snowflake' | 'timestamp'
      : [V] extends [readonly unknown[]]
        ? 'array' | 'snowflakes' | [Shape]
        : [V] extends [number | string]
          ? 'integer or string'
          : 'object' | Shape;
type Words<Optional extends boolean, Nullable extends boolean, B> = B extends string
  ? `${Optional extends true ? 'optional ' : ''}${Nullable extends true ? 'nullable ' : ''}${B}`
  : Optional | Nullable extends false
    ? B
    : never;
/** What a field list may say of T's field K: its JSON type, `optional` exactly when T's field is, `nullable` exactly when it may be null. */
type FieldSpec<
  T,
  K extends keyof T,
  Optional extends boolean = K extends OptionalKeys<T> ? true : false,
  Nullable extends boolean = null extends T[K] ? true : false,
> = Words<Optional, Nullable, BaseOf<NonNullable<T[K]>>> | (NonNullable<T[K]> extends object ? Modified<Optional, Nullable> : never);
/** A field list of T: every required field, optional ones as wanted, nothing T lacks (with `satisfies`). */
type FieldsOf<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: FieldSpec<T, K> } & { [K in OptionalKeys<T>]?: FieldSpec<T, K> };
/** What a presenter answers. */
type Presented<F extends (...args: never[]) => unknown> = ReturnType<F>;

/** The smallest PNG: one transparent pixel. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const SNOWFLAKE = /^\d{1,20}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;

function resolve(spec: Spec): { base: Base | Shape | [Shape]; optional: boolean; nullable: boolean } {
  if (spec instanceof Modified) return { base: spec.spec, optional: spec.optional, nullable: spec.nullable };
  if (typeof spec !== 'string') return { base: spec, optional: false, nullable: false };
  const words = spec.split(' ');
  const isOptional = words[0] === 'optional';
  if (isOptional) words.shift();
  const isNullable = words[0] === 'nullable';
  if (isNullable) words.shift();
  return { base: words.join(' ') as Base, optional: isOptional, nullable: isNullable };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function valueProblems(value: unknown, base: Base | Shape | [Shape], path: string): string[] {
  if (Array.isArray(base)) return Array.isArray(value) ? value.flatMap((item, i) => valueProblems(item, base[0], `${path}[${i}]`)) : [`${path}: not an array`];
  if (typeof base !== 'string') return isObject(value) ? shapeProblems(value, base, path) : [`${path}: not an object`];
  const fits: Record<Base, (v: unknown) => boolean> = {
    string: (v) => typeof v === 'string',
    snowflake: (v) => typeof v === 'string' && SNOWFLAKE.test(v),
    timestamp: (v) => typeof v === 'string' && TIMESTAMP.test(v),
    integer: (v) => Number.isInteger(v),
    boolean: (v) => typeof v === 'boolean',
    'integer or string': (v) => Number.isInteger(v) || typeof v === 'string',
    array: Array.isArray,
    object: isObject,
    snowflakes: (v) => Array.isArray(v) && v.every((id) => typeof id === 'string' && SNOWFLAKE.test(id)),
  };
  return fits[base](value) ? [] : [`${path}: ${JSON.stringify(value)} is not ${base}`];
}

function shapeProblems(object: Record<string, unknown>, shape: Shape, path = '$'): string[] {
  return Object.entries(shape).flatMap(([field, spec]) => {
    const { base, optional: isOptional, nullable: isNullable } = resolve(spec);
    const at = `${path}.${field}`;
    if (!(field in object)) return isOptional ? [] : [`${at}: missing`];
    if (object[field] === null) return isNullable ? [] : [`${at}: null`];
    return valueProblems(object[field], base, at);
  });
}

const expectShape = (object: unknown, shape: Shape) => expect(isObject(object) ? shapeProblems(object, shape) : ['not an object']).toEqual([]);

// developers/resources/user.mdx, "User Structure".
const USER: Shape = {
  id: 'snowflake',
  username: 'string',
  discriminator: 'string',
  global_name: 'nullable string',
  avatar: 'nullable string',
  bot: 'optional boolean',
  system: 'optional boolean',
  mfa_enabled: 'optional boolean',
  banner: 'optional nullable string',
  accent_color: 'optional nullable integer',
  locale: 'optional string',
  verified: 'optional boolean',
  email: 'optional nullable string',
  flags: 'optional integer',
  premium_type: 'optional integer',
  public_flags: 'optional integer',
  avatar_decoration_data: 'optional nullable object',
  collectibles: 'optional nullable object',
  primary_guild: 'optional nullable object',
} satisfies FieldsOf<Presented<typeof userObject>>;

// developers/resources/guild.mdx, "Guild Member Structure".
const MEMBER: Shape = {
  user: USER,
  nick: 'optional nullable string',
  avatar: 'nullable string',
  banner: 'nullable string',
  roles: 'snowflakes',
  joined_at: 'nullable timestamp',
  premium_since: 'optional nullable timestamp',
  deaf: 'boolean',
  mute: 'boolean',
  flags: 'integer',
  pending: 'optional boolean',
  communication_disabled_until: 'optional nullable timestamp',
  avatar_decoration_data: 'optional nullable object',
  collectibles: 'optional nullable object',
} satisfies FieldsOf<Presented<typeof memberObject>>;

// developers/events/gateway-events.mdx, "Guild Member Update Event Fields".
const MEMBER_UPDATE: Shape = {
  guild_id: 'snowflake',
  roles: 'snowflakes',
  user: USER,
  nick: 'optional nullable string',
  avatar: 'nullable string',
  banner: 'nullable string',
  joined_at: 'nullable timestamp',
  premium_since: 'optional nullable timestamp',
  deaf: 'optional boolean',
  mute: 'optional boolean',
  pending: 'optional boolean',
  communication_disabled_until: 'optional nullable timestamp',
  avatar_decoration_data: 'optional nullable object',
  collectibles: 'optional nullable object',
} satisfies FieldsOf<DispatchData['GUILD_MEMBER_UPDATE']>;

// developers/topics/permissions.mdx, "Role Structure" and "Role Colors Object".
const ROLE: Shape = {
  id: 'snowflake',
  name: 'string',
  color: 'integer',
  colors: { primary_color: 'integer', secondary_color: 'nullable integer', tertiary_color: 'nullable integer' },
  hoist: 'boolean',
  icon: 'optional nullable string',
  unicode_emoji: 'optional nullable string',
  position: 'integer',
  permissions: 'string',
  managed: 'boolean',
  mentionable: 'boolean',
  tags: 'optional object',
  flags: 'integer',
} satisfies FieldsOf<Presented<typeof roleObject>>;

// developers/resources/emoji.mdx, "Emoji Structure" (name is null only in reaction emoji objects).
const EMOJI: Shape = {
  id: 'nullable snowflake',
  name: 'nullable string',
  roles: 'optional snowflakes',
  user: optional(USER),
  require_colons: 'optional boolean',
  managed: 'optional boolean',
  animated: 'optional boolean',
  available: 'optional boolean',
} satisfies FieldsOf<APIEmoji>;

// developers/resources/sticker.mdx, "Sticker Structure", but for `tags`: the spec answers them as an array of strings.
const STICKER: Shape = {
  id: 'snowflake',
  pack_id: 'optional snowflake',
  name: 'string',
  description: 'nullable string',
  tags: 'array',
  type: 'integer',
  format_type: 'integer',
  available: 'optional boolean',
  guild_id: 'optional snowflake',
  user: optional(USER),
  sort_value: 'optional integer',
  image_url: 'string',
  created_at: 'timestamp',
  updated_at: 'optional timestamp',
} satisfies FieldsOf<Presented<typeof stickerObject>>;

// developers/resources/guild.mdx, "Guild Structure".
const GUILD: Shape = {
  id: 'snowflake',
  name: 'string',
  icon: 'nullable string',
  icon_hash: 'optional nullable string',
  splash: 'nullable string',
  discovery_splash: 'nullable string',
  owner: 'optional boolean',
  owner_id: 'snowflake',
  permissions: 'optional string',
  region: 'optional nullable string',
  afk_channel_id: 'nullable snowflake',
  afk_timeout: 'integer',
  widget_enabled: 'optional boolean',
  widget_channel_id: 'optional nullable snowflake',
  verification_level: 'integer',
  default_message_notifications: 'integer',
  explicit_content_filter: 'integer',
  roles: [ROLE],
  emojis: [EMOJI],
  features: 'array',
  mfa_level: 'integer',
  application_id: 'nullable snowflake',
  system_channel_id: 'nullable snowflake',
  system_channel_flags: 'integer',
  rules_channel_id: 'nullable snowflake',
  max_presences: 'optional nullable integer',
  max_members: 'optional integer',
  vanity_url_code: 'nullable string',
  description: 'nullable string',
  banner: 'nullable string',
  premium_tier: 'integer',
  premium_subscription_count: 'optional integer',
  preferred_locale: 'string',
  public_updates_channel_id: 'nullable snowflake',
  max_video_channel_users: 'optional integer',
  max_stage_video_channel_users: 'optional integer',
  approximate_member_count: 'optional integer',
  approximate_presence_count: 'optional integer',
  welcome_screen: 'optional object',
  nsfw_level: 'integer',
  stickers: 'array',
  premium_progress_bar_enabled: 'boolean',
  safety_alerts_channel_id: 'nullable snowflake',
  incidents_data: 'nullable object',
  member_count: 'integer',
} satisfies FieldsOf<Presented<typeof guildObject>>;

// developers/resources/channel.mdx, "Overwrite Structure".
const OVERWRITE: Shape = { id: 'snowflake', type: 'integer', allow: 'string', deny: 'string' } satisfies FieldsOf<APIOverwrite>;

// developers/resources/channel.mdx, "Channel Structure": every field but id and type is optional there, since which
// ones a channel has depends on its type.
const CHANNEL: Shape = {
  id: 'snowflake',
  type: 'integer',
  guild_id: 'optional snowflake',
  position: 'optional integer',
  permission_overwrites: optional([OVERWRITE]),
  name: 'optional nullable string',
  topic: 'optional nullable string',
  nsfw: 'optional boolean',
  last_message_id: 'optional nullable snowflake',
  bitrate: 'optional integer',
  user_limit: 'optional integer',
  rate_limit_per_user: 'optional integer',
  recipients: optional([USER]),
  icon: 'optional nullable string',
  owner_id: 'optional snowflake',
  application_id: 'optional nullable snowflake',
  managed: 'optional boolean',
  parent_id: 'optional nullable snowflake',
  last_pin_timestamp: 'optional nullable timestamp',
  rtc_region: 'optional nullable string',
  video_quality_mode: 'optional integer',
  default_auto_archive_duration: 'optional integer',
  permissions: 'optional string',
  flags: 'optional integer',
};
// Per type, the fields the same page's example of that type shows, required (last_message_id and
// default_auto_archive_duration aside: its examples show values a new channel does not have yet).
const GUILD_CHANNEL: Shape = {
  ...CHANNEL,
  guild_id: 'snowflake',
  name: 'string',
  position: 'integer',
  permission_overwrites: [OVERWRITE],
  parent_id: 'nullable snowflake',
};
const CHANNEL_BY_TYPE: Record<number, Shape> = {
  0: { ...GUILD_CHANNEL, topic: 'nullable string', nsfw: 'boolean', rate_limit_per_user: 'integer' }, // Example Guild Text Channel
  2: { ...GUILD_CHANNEL, bitrate: 'integer', user_limit: 'integer', rtc_region: 'nullable string', rate_limit_per_user: 'integer', nsfw: 'boolean' }, // Example Guild Voice Channel
  4: GUILD_CHANNEL, // Example Channel Category
  1: { ...CHANNEL, last_message_id: 'nullable snowflake', recipients: [USER] }, // Example DM Channel
  3: { ...CHANNEL, name: 'nullable string', icon: 'nullable string', recipients: [USER], last_message_id: 'nullable snowflake', owner_id: 'snowflake' }, // Example Group DM Channel
};
const expectChannel = (channel: { type: number }) => expectShape(channel, CHANNEL_BY_TYPE[channel.type]);

// developers/resources/message.mdx, "Reaction Structure" and "Reaction Count Details Structure".
const REACTION: Shape = {
  count: 'integer',
  count_details: { burst: 'integer', normal: 'integer' },
  me: 'boolean',
  me_burst: 'boolean',
  emoji: EMOJI,
  burst_colors: 'array',
} satisfies FieldsOf<APIReaction>;

// developers/resources/message.mdx, "Attachment Structure".
const ATTACHMENT: Shape = {
  id: 'snowflake',
  filename: 'string',
  title: 'optional string',
  description: 'optional string',
  content_type: 'optional string',
  size: 'integer',
  url: 'string',
  proxy_url: 'string',
  height: 'optional nullable integer',
  width: 'optional nullable integer',
  ephemeral: 'optional boolean',
  flags: 'optional integer',
} satisfies FieldsOf<APIAttachment>;

// developers/resources/message.mdx, "Embed Structure".
const EMBED: Shape = {
  title: 'optional string',
  type: 'optional string',
  description: 'optional string',
  url: 'optional string',
  timestamp: 'optional timestamp',
  color: 'optional integer',
  footer: 'optional object',
  image: 'optional object',
  thumbnail: 'optional object',
  video: 'optional object',
  provider: 'optional object',
  author: 'optional object',
  fields: 'optional array',
  flags: 'optional integer',
} satisfies FieldsOf<APIEmbed>;

// developers/resources/message.mdx, "Message Structure" and "Message Reference Structure".
const MESSAGE: Shape = {
  id: 'snowflake',
  channel_id: 'snowflake',
  author: USER,
  content: 'string',
  timestamp: 'timestamp',
  edited_timestamp: 'nullable timestamp',
  tts: 'boolean',
  mention_everyone: 'boolean',
  mentions: [USER],
  mention_roles: 'snowflakes',
  mention_channels: 'optional array',
  attachments: [ATTACHMENT],
  embeds: [EMBED],
  reactions: optional([REACTION]),
  nonce: 'optional integer or string',
  pinned: 'boolean',
  webhook_id: 'optional snowflake',
  type: 'integer',
  activity: 'optional object',
  application: 'optional object',
  application_id: 'optional snowflake',
  flags: 'optional integer',
  message_reference: optional({ type: 'optional integer', message_id: 'optional snowflake', channel_id: 'optional snowflake', guild_id: 'optional snowflake' }),
  message_snapshots: 'optional array',
  interaction_metadata: 'optional object',
  thread: 'optional object',
  components: 'optional array',
  sticker_items: 'optional array',
  position: 'optional integer',
  poll: 'optional object',
} satisfies FieldsOf<Presented<typeof messageObject>>;
MESSAGE.referenced_message = optionalNullable(MESSAGE);
// developers/events/gateway-events.mdx, "Message Create Extra Fields" (MESSAGE_UPDATE carries a full message too).
const MESSAGE_EVENT: Shape = { ...MESSAGE, guild_id: 'optional snowflake', member: 'optional object', mentions: [USER], channel_type: 'optional integer' };

// developers/resources/invite.mdx, "Invite Structure" and "Invite Metadata Structure".
const INVITE: Shape = {
  type: 'integer',
  code: 'string',
  guild: optional({ id: 'snowflake', name: 'string' }),
  channel: nullable({ id: 'snowflake', name: 'nullable string', type: 'integer' }),
  inviter: optional(USER),
  target_type: 'optional integer',
  target_user: optional(USER),
  approximate_presence_count: 'optional integer',
  approximate_member_count: 'optional integer',
  expires_at: 'nullable timestamp',
  flags: 'optional integer',
  roles: 'optional array',
} satisfies FieldsOf<APIInvite>;
const INVITE_WITH_METADATA: Shape = { ...INVITE, uses: 'integer', max_uses: 'integer', max_age: 'integer', temporary: 'boolean', created_at: 'timestamp' };
// developers/events/gateway-events.mdx, "Invite Create Event Fields".
const INVITE_CREATE: Shape = {
  channel_id: 'snowflake',
  code: 'string',
  created_at: 'timestamp',
  guild_id: 'optional snowflake',
  inviter: USER,
  max_age: 'integer',
  max_uses: 'integer',
  target_type: 'optional integer',
  target_user: optional(USER),
  temporary: 'boolean',
  uses: 'integer',
  expires_at: 'nullable timestamp',
  role_ids: 'optional snowflakes',
} satisfies FieldsOf<DispatchData['INVITE_CREATE']>;

// developers/resources/webhook.mdx, "Webhook Structure".
const WEBHOOK: Shape = {
  id: 'snowflake',
  type: 'integer',
  guild_id: 'optional nullable snowflake',
  channel_id: 'nullable snowflake',
  user: optional(USER),
  name: 'nullable string',
  avatar: 'nullable string',
  token: 'optional string',
  application_id: 'nullable snowflake',
  source_guild: 'optional object',
  source_channel: 'optional object',
  url: 'optional string',
  interaction_url: 'optional nullable string',
} satisfies FieldsOf<Presented<typeof webhookObject>>;

let server: TestServer;
let guild: TestGuild;
let bot: TestUser;
/** The owner's session: every intent, connected before anything below happens. */
let owner: GatewayClient;
beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server, undefined, 'Conformance');
  bot = await join(server, guild, await createBot(server), 'Bot');
  owner = await connectGateway(server);
  await owner.identify(guild.owner.token, ALL_INTENTS);
  await owner.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id);
});
afterAll(async () => {
  owner.close();
  await server.close();
});

const api = (user: TestUser, method: string, path: string, body?: unknown) => {
  const scheme = user === bot ? 'Bot' : 'Bearer';
  return server.api(method, path, { token: user.token, scheme, body });
};
async function ok(user: TestUser, method: string, path: string, body?: unknown) {
  const response = await api(user, method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.body;
}

describe('the shape checker', () => {
  it('refuses what the field lists rule out', () => {
    const shape: Shape = { id: 'snowflake', at: 'timestamp', maybe: 'optional nullable integer', user: USER };
    const problems = shapeProblems({ id: 1, at: '2026-01-01T00:00:00.000Z', maybe: 'x', user: { id: '1', username: 'a', discriminator: '0' } }, shape);
    expect(problems).toEqual([
      '$.id: 1 is not snowflake',
      '$.at: "2026-01-01T00:00:00.000Z" is not timestamp',
      '$.maybe: "x" is not integer',
      '$.user.global_name: missing',
      '$.user.avatar: missing',
    ]);
    const user = { id: '1', username: 'a', discriminator: '0', global_name: null, avatar: null };
    expect(shapeProblems({ id: '1', at: '2026-01-01T00:00:00.000000+00:00', user }, shape)).toEqual([]);
  });
});

describe('object shapes of the widely used API', () => {
  it('User: the account itself, another user, a bot, and READY', async () => {
    expectShape(await ok(guild.owner, 'GET', '/users/@me'), USER);
    expectShape(await ok(bot, 'GET', '/users/@me'), USER);
    expectShape(await ok(bot, 'GET', `/users/${guild.owner.id}`), USER);
    const ready = owner.received.find((p) => p.t === 'READY')!.d;
    // developers/events/gateway-events.mdx, "Ready Event Fields"; guilds are Unavailable Guild objects (guild.mdx).
    expectShape(ready, {
      v: 'integer',
      user: USER,
      guilds: [{ id: 'snowflake', unavailable: 'boolean' }],
      session_id: 'string',
      resume_gateway_url: 'string',
      shard: 'optional array',
      private_channels: 'array',
      relationships: 'array',
      user_settings: 'object',
      presences: 'array',
      _trace: 'array',
    } satisfies FieldsOf<ParleyReady>);
  });

  it('Guild Member: fetched, in GUILD_CREATE, GUILD_MEMBER_ADD and GUILD_MEMBER_UPDATE', async () => {
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}/members/${bot.id}`), MEMBER);
    const listed = await ok(guild.owner, 'GET', `/guilds/${guild.id}/members?limit=10`);
    for (const member of listed) expectShape(member, MEMBER);

    const newcomer = await join(server, guild, await registerUser(server));
    const added = await owner.next((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.user.id === newcomer.id);
    expectShape(added.d, { ...MEMBER, guild_id: 'snowflake' });
    await ok(guild.owner, 'PATCH', `/guilds/${guild.id}/members/${newcomer.id}`, { nick: 'renamed' });
    const updated = await owner.next((p) => p.t === 'GUILD_MEMBER_UPDATE' && p.d.user.id === newcomer.id);
    expectShape(updated.d, MEMBER_UPDATE);
    expect(updated.d.joined_at).toBe(added.d.joined_at);
  });

  it('Guild: fetched, and GUILD_CREATE with its extra fields', async () => {
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}`), GUILD);
    const created = owner.received.find((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id)!.d;
    // developers/events/gateway-events.mdx, "Guild Create Extra Fields".
    expectShape(created, {
      ...GUILD,
      joined_at: 'timestamp',
      large: 'boolean',
      unavailable: 'optional boolean',
      member_count: 'integer',
      voice_states: 'array',
      members: [MEMBER],
      channels: 'array',
      threads: 'array',
      presences: 'array',
      stage_instances: 'array',
      guild_scheduled_events: 'array',
      soundboard_sounds: 'array',
    });
    for (const channel of created.channels) expectChannel(channel);
  });

  it('Channel, per type: text, voice and category, DM and group DM, over HTTP and in dispatches', async () => {
    const made = [];
    for (const [type, name] of [
      [2, 'voice'],
      [4, 'category'],
    ] as const)
      made.push(await ok(guild.owner, 'POST', `/guilds/${guild.id}/channels`, { name, type }));
    for (const channel of made) expectChannel(await owner.next((p) => p.t === 'CHANNEL_CREATE' && p.d.id === channel.id).then((p) => p.d));

    // A pin gives the text channel its last_pin_timestamp, announced by CHANNEL_PINS_UPDATE.
    const message = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/messages`, { content: 'pinned' });
    await ok(guild.owner, 'PUT', `/channels/${guild.channelId}/pins/${message.id}`);
    const pins = await owner.next((p) => p.t === 'CHANNEL_PINS_UPDATE' && p.d.channel_id === guild.channelId);
    // developers/events/gateway-events.mdx, "Channel Pins Update Event Fields".
    expectShape(pins.d, { guild_id: 'optional snowflake', channel_id: 'snowflake', last_pin_timestamp: 'optional nullable timestamp' } satisfies FieldsOf<
      DispatchData['CHANNEL_PINS_UPDATE']
    >);
    const text = await ok(guild.owner, 'GET', `/channels/${guild.channelId}`);
    expect(text.last_pin_timestamp).toBe(pins.d.last_pin_timestamp);

    const other = await registerUser(server);
    const dm = await ok(guild.owner, 'POST', '/users/@me/channels', { recipient_id: other.id });
    const group = await ok(guild.owner, 'POST', '/users/@me/channels', { recipients: [other.id, (await registerUser(server)).id] });
    for (const channel of [text, ...made, dm, group, ...(await ok(guild.owner, 'GET', `/guilds/${guild.id}/channels`))]) expectChannel(channel);
    expect([text, ...made, dm, group].map((c) => c.type)).toEqual([0, 2, 4, 1, 3]);
    await ok(guild.owner, 'POST', `/channels/${dm.id}/messages`, { content: 'hi' });
    await ok(guild.owner, 'PUT', `/channels/${dm.id}/pins/${(await ok(guild.owner, 'GET', `/channels/${dm.id}/messages`))[0].id}`);
    const pinnedDm = await ok(guild.owner, 'GET', `/channels/${dm.id}`);
    expectChannel(pinnedDm);
    expect(pinnedDm.last_pin_timestamp).toMatch(TIMESTAMP);
  });

  it('Message: sent, fetched, listed, pinned, and in MESSAGE_CREATE and MESSAGE_UPDATE', async () => {
    const embed = { title: 'when', timestamp: '2026-01-01T01:00:00+01:00' };
    const first = await ok(bot, 'POST', `/channels/${guild.channelId}/messages`, { content: `hello <@${guild.owner.id}>`, embeds: [embed], nonce: '42' });
    expectShape(first, MESSAGE);
    expect(first.embeds[0].timestamp).toBe('2026-01-01T00:00:00.000000+00:00');
    const reply = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/messages`, { content: 'reply', message_reference: { message_id: first.id } });
    expectShape(reply, MESSAGE);
    expect(reply.referenced_message.id).toBe(first.id);

    const created = await owner.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === first.id);
    expectShape(created.d, MESSAGE_EVENT);
    expect(created.d.timestamp).toBe(first.timestamp);
    const edited = await ok(bot, 'PATCH', `/channels/${guild.channelId}/messages/${first.id}`, { content: 'hello again' });
    expectShape(edited, MESSAGE);
    expect(edited.edited_timestamp).toMatch(TIMESTAMP);
    const updated = await owner.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === first.id);
    expectShape(updated.d, MESSAGE_EVENT);
    expect(updated.d.edited_timestamp).toBe(edited.edited_timestamp);

    expectShape(await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages/${reply.id}`), MESSAGE);
    for (const message of await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages`)) expectShape(message, MESSAGE);
    await ok(guild.owner, 'PUT', `/channels/${guild.channelId}/messages/pins/${first.id}`);
    // developers/resources/message.mdx, "Get Channel Pins": {items: [{pinned_at, message}], has_more}.
    const pins = await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages/pins`);
    expectShape(pins, { items: [{ pinned_at: 'timestamp', message: MESSAGE }], has_more: 'boolean' });
  });

  it('Role: listed, created, and in GUILD_ROLE_CREATE', async () => {
    for (const role of await ok(guild.owner, 'GET', `/guilds/${guild.id}/roles`)) expectShape(role, ROLE);
    const role = await ok(guild.owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'shaped' });
    expectShape(role, ROLE);
    const created = await owner.next((p) => p.t === 'GUILD_ROLE_CREATE' && p.d.role.id === role.id);
    expectShape(created.d, { guild_id: 'snowflake', role: ROLE });
  });

  it('Custom emoji and Sticker: created, fetched, listed, and in GUILD_EMOJIS_UPDATE and GUILD_STICKERS_UPDATE', async () => {
    const image = `data:image/png;base64,${PNG_1X1}`;
    const emoji = await ok(guild.owner, 'POST', `/guilds/${guild.id}/emojis`, { name: 'conformant', image });
    expectShape(emoji, { ...EMOJI, id: 'snowflake', name: 'string', user: USER });
    for (const listed of await ok(bot, 'GET', `/guilds/${guild.id}/emojis`)) expectShape(listed, EMOJI);
    const emojis = await owner.next((p) => p.t === 'GUILD_EMOJIS_UPDATE' && p.d.guild_id === guild.id);
    expectShape(emojis.d, { guild_id: 'snowflake', emojis: [EMOJI] });
    const sticker = await ok(guild.owner, 'POST', `/guilds/${guild.id}/stickers`, { name: 'conformant', description: '', tags: 'ok', image });
    expectShape(sticker, STICKER);
    expectShape(await ok(bot, 'GET', `/guilds/${guild.id}/stickers/${sticker.id}`), STICKER);
    const stickers = await owner.next((p) => p.t === 'GUILD_STICKERS_UPDATE' && p.d.guild_id === guild.id);
    expectShape(stickers.d, { guild_id: 'snowflake', stickers: [STICKER] });
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}`), { ...GUILD, emojis: [EMOJI], stickers: [STICKER] });
  });

  it('Emoji and Reaction: unicode and custom reaction emoji, on the message and in MESSAGE_REACTION_ADD', async () => {
    const message = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/messages`, { content: 'react' });
    for (const emoji of ['🔥', 'party:123456789012345678']) {
      await ok(bot, 'PUT', `/channels/${guild.channelId}/messages/${message.id}/reactions/${encodeURIComponent(emoji)}/@me`);
    }
    const reacted = await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages/${message.id}`);
    expect(reacted.reactions.map((r: { emoji: { id: string | null } }) => r.emoji.id)).toEqual([null, '123456789012345678']);
    expectShape(reacted, { ...MESSAGE, reactions: [REACTION] });
    const added = await owner.next((p) => p.t === 'MESSAGE_REACTION_ADD' && p.d.message_id === message.id);
    // developers/events/gateway-events.mdx, "Message Reaction Add Event Fields".
    expectShape(added.d, {
      user_id: 'snowflake',
      channel_id: 'snowflake',
      message_id: 'snowflake',
      guild_id: 'optional snowflake',
      member: 'optional object',
      emoji: EMOJI,
      message_author_id: 'optional snowflake',
      burst: 'boolean',
      burst_colors: 'optional array',
      type: 'integer',
    } satisfies FieldsOf<DispatchData['MESSAGE_REACTION_ADD']>);
  });

  it('Invite: created, fetched, listed, and in INVITE_CREATE', async () => {
    const made = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/invites`, { max_age: 3600, unique: true });
    expectShape(made, INVITE_WITH_METADATA);
    expect(Date.parse(made.expires_at) - Date.parse(made.created_at)).toBe(3_600_000);
    expectShape(await ok(bot, 'GET', `/invites/${made.code}`), INVITE_WITH_METADATA);
    for (const invite of await ok(guild.owner, 'GET', `/channels/${guild.channelId}/invites`)) expectShape(invite, INVITE_WITH_METADATA);
    const created = await owner.next((p) => p.t === 'INVITE_CREATE' && p.d.code === made.code);
    expectShape(created.d, INVITE_CREATE);
    expect([created.d.created_at, created.d.expires_at]).toEqual([made.created_at, made.expires_at]);

    // A vanity code has neither inviter nor creation time: both absent, as optional fields are.
    await ok(guild.owner, 'POST', `/guilds/${guild.id}/vanity-url`, { code: `shape-${guild.id}` });
    expectShape(await ok(bot, 'GET', `/invites/shape-${guild.id}`), INVITE);
  });

  it('Webhook: created, fetched by a manager and by its token, listed, and in the audit log', async () => {
    const made = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/webhooks`, { name: 'hook' });
    expectShape(made, WEBHOOK);
    expectShape(await ok(guild.owner, 'GET', `/webhooks/${made.id}`), WEBHOOK);
    const byToken = await server.api('GET', `/webhooks/${made.id}/${made.token}`);
    expectShape(byToken.body, WEBHOOK);
    for (const webhook of await ok(guild.owner, 'GET', `/guilds/${guild.id}/webhooks`)) expectShape(webhook, WEBHOOK);
    const audit = await ok(guild.owner, 'GET', `/guilds/${guild.id}/audit-logs`);
    for (const webhook of audit.webhooks) expectShape(webhook, WEBHOOK);
    expect(audit.webhooks.map((w: { id: string }) => w.id)).toContain(made.id);
    // The audit log entry's timestamp is the spec's own field; it takes the same form as every other.
    for (const entry of audit.entries) expect(entry.timestamp).toMatch(TIMESTAMP);
  });
});
