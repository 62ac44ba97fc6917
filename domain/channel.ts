// Channels of a guild and their permission overwrites (in the guild stream). Each channel type accepts only its own
// fields, as in the widely used API; a request naming another type's field is refused whole.
import type { DomainEvent } from './decider.js';
import { type FieldError, invalidForm } from './errors.js';
import { channelFlagErrors, emojiErrors, isForum, tagErrors, unknownEmojiErrors } from './forum.js';
import {
  type Change,
  type ChannelData,
  type GuildState,
  type OverwriteData,
  applyChanges,
  diff,
  requireGrantable,
  requireGuildPermission,
  requireVisibleChannel,
  withEntry,
  withoutEntry,
} from './guildState.js';
import { OverwriteType, Permission, normalizePermissions, requirePermission } from './permissions.js';

export const ChannelType = {
  GUILD_TEXT: 0,
  DM: 1,
  GUILD_VOICE: 2,
  GROUP_DM: 3,
  GUILD_CATEGORY: 4,
  GUILD_ANNOUNCEMENT: 5,
  ANNOUNCEMENT_THREAD: 10,
  PUBLIC_THREAD: 11,
  PRIVATE_THREAD: 12,
  GUILD_STAGE_VOICE: 13,
  GUILD_FORUM: 15,
  GUILD_MEDIA: 16,
} as const;

const TEXT_FIELDS = [
  'name',
  'position',
  'topic',
  'nsfw',
  'rate_limit_per_user',
  'parent_id',
  'permission_overwrites',
  'default_auto_archive_duration',
] as const;
const VOICE_FIELDS = [
  'name',
  'position',
  'nsfw',
  'rate_limit_per_user',
  'bitrate',
  'user_limit',
  'parent_id',
  'rtc_region',
  'video_quality_mode',
  'permission_overwrites',
] as const;
const MEDIA_FIELDS = [...TEXT_FIELDS, 'available_tags', 'default_reaction_emoji', 'default_thread_rate_limit_per_user', 'default_sort_order'] as const;
const TEXT_DEFAULTS = { topic: null, nsfw: false, rate_limit_per_user: 0 };
const MEDIA_DEFAULTS = {
  ...TEXT_DEFAULTS,
  available_tags: [],
  default_reaction_emoji: null,
  default_thread_rate_limit_per_user: 0,
  default_sort_order: null,
};
const VOICE_DEFAULTS = { nsfw: false, rate_limit_per_user: 0, bitrate: 64000, user_limit: 0, rtc_region: null, video_quality_mode: 1 };

const TEXT_TOPIC_LENGTH = 1024;

/** The channel types a guild can hold through these routes, with the fields each accepts and its defaults. */
const GUILD_CHANNEL_TYPES: Record<number, { fields: readonly string[]; defaults: Partial<ChannelData> }> = {
  [ChannelType.GUILD_TEXT]: { fields: TEXT_FIELDS, defaults: TEXT_DEFAULTS },
  [ChannelType.GUILD_ANNOUNCEMENT]: { fields: TEXT_FIELDS, defaults: TEXT_DEFAULTS },
  [ChannelType.GUILD_FORUM]: { fields: [...MEDIA_FIELDS, 'default_forum_layout'], defaults: { ...MEDIA_DEFAULTS, default_forum_layout: 0 } },
  [ChannelType.GUILD_MEDIA]: { fields: MEDIA_FIELDS, defaults: MEDIA_DEFAULTS },
  [ChannelType.GUILD_VOICE]: { fields: VOICE_FIELDS, defaults: VOICE_DEFAULTS },
  [ChannelType.GUILD_STAGE_VOICE]: { fields: VOICE_FIELDS, defaults: VOICE_DEFAULTS },
  [ChannelType.GUILD_CATEGORY]: { fields: ['name', 'position', 'permission_overwrites'], defaults: {} },
};

export const GUILD_CHANNEL_TYPE_NUMBERS = Object.keys(GUILD_CHANNEL_TYPES).map(Number);

/** Text and announcement channels may turn into each other; no other type changes. */
const CONVERTIBLE = [ChannelType.GUILD_TEXT, ChannelType.GUILD_ANNOUNCEMENT] as number[];

export type OverwriteInput = { id: string; type: 0 | 1; allow?: string; deny?: string };
export type ChannelFields = Partial<Omit<ChannelData, 'id' | 'permission_overwrites'>> & { permission_overwrites?: OverwriteInput[] };

export type ChannelCreated = DomainEvent<'ChannelCreated', { guildId: string; channel: ChannelData }>;
export type ChannelUpdated = DomainEvent<'ChannelUpdated', { guildId: string; channelId: string; changes: Change[] }>;
/** Carries the deleted channel as it was, for the audit log's old values. */
export type ChannelDeleted = DomainEvent<'ChannelDeleted', { guildId: string; channel: ChannelData }>;
export type ChannelOverwriteSet = DomainEvent<
  'ChannelOverwriteSet',
  { guildId: string; channelId: string; overwrite: OverwriteData; previous: OverwriteData | null }
>;
export type ChannelOverwriteDeleted = DomainEvent<'ChannelOverwriteDeleted', { guildId: string; channelId: string; overwrite: OverwriteData }>;
export type ChannelEvent = ChannelCreated | ChannelUpdated | ChannelDeleted | ChannelOverwriteSet | ChannelOverwriteDeleted;

export type ChannelMove = { id: string; position?: number | null; parent_id?: string | null; lock_permissions?: boolean | null };

/** `emojiIds`: the guild's custom emojis, which a forum's tags and default reaction may name (none when not given). */
export type ChannelCommand =
  | { type: 'CreateChannel'; actorId: string; channelId: string; fields: ChannelFields & { name: string; type: number }; emojiIds?: ReadonlySet<string> }
  | { type: 'UpdateChannel'; actorId: string; channelId: string; fields: ChannelFields; emojiIds?: ReadonlySet<string> }
  | { type: 'DeleteChannel'; actorId: string; channelId: string }
  | { type: 'MoveChannels'; actorId: string; moves: ChannelMove[] }
  | { type: 'SetChannelOverwrite'; actorId: string; channelId: string; overwrite: OverwriteInput }
  | { type: 'DeleteChannelOverwrite'; actorId: string; channelId: string; overwriteId: string };

const normalizeOverwrite = (o: OverwriteInput): OverwriteData => ({
  id: o.id,
  type: o.type,
  allow: normalizePermissions(o.allow ?? '0'),
  deny: normalizePermissions(o.deny ?? '0'),
});

function overwriteTargetErrors(state: GuildState, overwrite: OverwriteInput, path: string): FieldError[] {
  const known = overwrite.type === OverwriteType.ROLE ? state.roles.has(overwrite.id) : state.members.has(overwrite.id);
  return known ? [] : [{ path, message: overwrite.type === OverwriteType.ROLE ? 'Unknown role' : 'Unknown member' }];
}

function parentErrors(state: GuildState, parentId: string | null | undefined, channelType: number, path: string): FieldError[] {
  if (parentId === undefined || parentId === null) return [];
  if (channelType === ChannelType.GUILD_CATEGORY) return [{ path, message: 'A category cannot have a parent' }];
  return state.channels.get(parentId)?.type === ChannelType.GUILD_CATEGORY ? [] : [{ path, message: 'Not a category of this guild' }];
}

/**
 * Every field must belong to the channel's type; parents must be categories; overwrites must name roles or members; a
 * custom emoji newly named must be the guild's (`current`: the channel before the change).
 */
function fieldErrors(state: GuildState, channelType: number, fields: ChannelFields, emojiIds?: ReadonlySet<string>, current?: ChannelData): FieldError[] {
  const allowed = GUILD_CHANNEL_TYPES[channelType].fields;
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(fields)) {
    // Every channel has flags, each type its own (checked below).
    if (value !== undefined && key !== 'type' && key !== 'flags' && !allowed.includes(key))
      errors.push({ path: key, message: `Not a field of channels of type ${channelType}` });
  }
  errors.push(...channelFlagErrors(channelType, fields.flags));
  errors.push(...parentErrors(state, fields.parent_id, channelType, 'parent_id'));
  // Forum and media channels' guidelines may be longer than a text channel's topic.
  if (!isForum(channelType) && (fields.topic?.length ?? 0) > TEXT_TOPIC_LENGTH)
    errors.push({ path: 'topic', message: `Must be ${TEXT_TOPIC_LENGTH} or fewer in length` });
  if (fields.available_tags) errors.push(...tagErrors(fields.available_tags));
  errors.push(...emojiErrors(fields.default_reaction_emoji, 'default_reaction_emoji'));
  errors.push(...unknownEmojiErrors(fields, current, emojiIds ?? new Set()));
  fields.permission_overwrites?.forEach((o, i) => errors.push(...overwriteTargetErrors(state, o, `permission_overwrites.${i}.id`)));
  return errors;
}

/** Setting overwrites needs MANAGE_ROLES where they apply, and only bits the actor holds there. */
function requireOverwriteRights(held: bigint, overwrites: readonly OverwriteData[]): void {
  requirePermission(held, Permission.MANAGE_ROLES);
  for (const o of overwrites) requireGrantable(held, BigInt(o.allow) | BigInt(o.deny));
}

export const channelDeciders = {
  CreateChannel(command: Extract<ChannelCommand, { type: 'CreateChannel' }>, state: GuildState): ChannelEvent[] {
    const held = requireGuildPermission(state, command.actorId, Permission.MANAGE_CHANNELS);
    const { type, permission_overwrites: overwriteInputs, ...fields } = command.fields;
    if (!GUILD_CHANNEL_TYPES[type]) throw invalidForm([{ path: 'type', message: `Channels of type ${type} cannot be created in a guild` }]);
    const errors = fieldErrors(state, type, command.fields, command.emojiIds);
    if (errors.length) throw invalidForm(errors);
    const overwrites = (overwriteInputs ?? []).map(normalizeOverwrite);
    if (overwrites.length) requireOverwriteRights(held, overwrites);
    const position = fields.position ?? Math.max(-1, ...[...state.channels.values()].map((c) => c.position)) + 1;
    const channel: ChannelData = {
      ...GUILD_CHANNEL_TYPES[type].defaults,
      ...fields,
      id: command.channelId,
      type,
      position,
      parent_id: fields.parent_id ?? null,
      permission_overwrites: overwrites,
    };
    return [{ type: 'ChannelCreated', data: { guildId: state.id, channel } }];
  },

  UpdateChannel(command: Extract<ChannelCommand, { type: 'UpdateChannel' }>, state: GuildState): ChannelEvent[] {
    const { channel, permissions } = requireVisibleChannel(state, command.actorId, command.channelId);
    requirePermission(permissions, Permission.MANAGE_CHANNELS);
    const errors = fieldErrors(state, channel.type, command.fields, command.emojiIds, channel);
    const type = command.fields.type;
    if (type !== undefined && type !== channel.type && !(CONVERTIBLE.includes(type) && CONVERTIBLE.includes(channel.type))) {
      errors.push({ path: 'type', message: 'Only text and announcement channels can change type, into each other' });
    }
    if (command.fields.parent_id === channel.id) errors.push({ path: 'parent_id', message: 'A channel cannot be its own parent' });
    if (errors.length) throw invalidForm(errors);
    const { permission_overwrites: overwriteInputs, ...fields } = command.fields;
    const next: Partial<ChannelData> = { ...fields };
    if (overwriteInputs) {
      next.permission_overwrites = overwriteInputs.map(normalizeOverwrite);
      requireOverwriteRights(permissions, next.permission_overwrites);
    }
    const changes = diff(channel, next);
    return changes.length ? [{ type: 'ChannelUpdated', data: { guildId: state.id, channelId: channel.id, changes } }] : [];
  },

  DeleteChannel(command: Extract<ChannelCommand, { type: 'DeleteChannel' }>, state: GuildState): ChannelEvent[] {
    const { channel, permissions } = requireVisibleChannel(state, command.actorId, command.channelId);
    requirePermission(permissions, Permission.MANAGE_CHANNELS);
    return [{ type: 'ChannelDeleted', data: { guildId: state.id, channel } }];
  },

  MoveChannels(command: Extract<ChannelCommand, { type: 'MoveChannels' }>, state: GuildState): ChannelEvent[] {
    requireGuildPermission(state, command.actorId, Permission.MANAGE_CHANNELS);
    const errors = command.moves.flatMap((move, i) => {
      const channel = state.channels.get(move.id);
      if (!channel) return [{ path: `${i}.id`, message: 'Unknown channel' }];
      return parentErrors(state, move.parent_id, channel.type, `${i}.parent_id`);
    });
    if (errors.length) throw invalidForm(errors);
    return command.moves.flatMap((move): ChannelEvent[] => {
      const channel = state.channels.get(move.id)!;
      const next: Partial<ChannelData> = {};
      if (typeof move.position === 'number') next.position = move.position;
      if (move.parent_id !== undefined) next.parent_id = move.parent_id;
      const parentId = move.parent_id !== undefined ? move.parent_id : channel.parent_id;
      if (move.lock_permissions && parentId) next.permission_overwrites = state.channels.get(parentId)!.permission_overwrites;
      const changes = diff(channel, next);
      return changes.length ? [{ type: 'ChannelUpdated', data: { guildId: state.id, channelId: channel.id, changes } }] : [];
    });
  },

  SetChannelOverwrite(command: Extract<ChannelCommand, { type: 'SetChannelOverwrite' }>, state: GuildState): ChannelEvent[] {
    const { channel, permissions } = requireVisibleChannel(state, command.actorId, command.channelId);
    const overwrite = normalizeOverwrite(command.overwrite);
    requireOverwriteRights(permissions, [overwrite]);
    const errors = overwriteTargetErrors(state, overwrite, 'id');
    if (errors.length) throw invalidForm(errors);
    const previous = channel.permission_overwrites.find((o) => o.id === overwrite.id) ?? null;
    if (previous && diff(previous, overwrite).length === 0) return [];
    return [{ type: 'ChannelOverwriteSet', data: { guildId: state.id, channelId: channel.id, overwrite, previous } }];
  },

  DeleteChannelOverwrite(command: Extract<ChannelCommand, { type: 'DeleteChannelOverwrite' }>, state: GuildState): ChannelEvent[] {
    const { channel, permissions } = requireVisibleChannel(state, command.actorId, command.channelId);
    requirePermission(permissions, Permission.MANAGE_ROLES);
    const overwrite = channel.permission_overwrites.find((o) => o.id === command.overwriteId);
    return overwrite ? [{ type: 'ChannelOverwriteDeleted', data: { guildId: state.id, channelId: channel.id, overwrite } }] : [];
  },
};

const withOverwrites = (state: GuildState, channelId: string, change: (list: OverwriteData[]) => OverwriteData[]): GuildState => {
  const channel = state.channels.get(channelId)!;
  return { ...state, channels: withEntry(state.channels, channelId, { ...channel, permission_overwrites: change(channel.permission_overwrites) }) };
};

export const channelEvolvers = {
  ChannelCreated: (state: GuildState, event: ChannelCreated): GuildState => ({
    ...state,
    channels: withEntry(state.channels, event.data.channel.id, event.data.channel),
  }),

  ChannelUpdated(state: GuildState, event: ChannelUpdated): GuildState {
    const channel = state.channels.get(event.data.channelId)!;
    return { ...state, channels: withEntry(state.channels, channel.id, applyChanges(channel, event.data.changes)) };
  },

  /** Children of a deleted category lose their parent; settings naming the channel are cleared. */
  ChannelDeleted(state: GuildState, event: ChannelDeleted): GuildState {
    const deletedId = event.data.channel.id;
    const channels = withoutEntry(state.channels, deletedId);
    for (const channel of channels.values()) if (channel.parent_id === deletedId) channels.set(channel.id, { ...channel, parent_id: null });
    const settings = { ...state.settings };
    if (settings.afk_channel_id === deletedId) settings.afk_channel_id = null;
    if (settings.system_channel_id === deletedId) settings.system_channel_id = null;
    return { ...state, channels, settings };
  },

  ChannelOverwriteSet: (state: GuildState, event: ChannelOverwriteSet): GuildState =>
    withOverwrites(state, event.data.channelId, (list) => [...list.filter((o) => o.id !== event.data.overwrite.id), event.data.overwrite]),

  ChannelOverwriteDeleted: (state: GuildState, event: ChannelOverwriteDeleted): GuildState =>
    withOverwrites(state, event.data.channelId, (list) => list.filter((o) => o.id !== event.data.overwrite.id)),
};
