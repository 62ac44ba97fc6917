// The guild aggregate (stream guild-{id}): the guild's own settings and lifecycle here, and the deciders of its roles,
// members and bans, moderation in bulk, channels and auto-moderation rules (role.ts, member.ts, moderation.ts,
// channel.ts, autoModeration.ts) joined into one decider over one state.
import { type AutoModerationCommand, type AutoModerationEvent, autoModerationDeciders, autoModerationEvolvers } from './autoModeration.js';
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, type FieldError, invalidForm, missingPermissions } from './errors.js';
import { type ChannelCommand, type ChannelEvent, ChannelType, channelDeciders, channelEvolvers } from './channel.js';
import {
  type Change,
  type ChannelData,
  type GuildSettings,
  type GuildState,
  type RoleData,
  applyChanges,
  diff,
  initialGuildState,
  isOwner,
  requireGuildPermission,
  requireMember,
} from './guildState.js';
import { type MemberCommand, type MemberEvent, memberDeciders, memberEvolvers } from './member.js';
import { type ModerationCommand, type ModerationEvent, moderationDeciders, moderationEvolvers } from './moderation.js';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission } from './permissions.js';
import { type RoleCommand, type RoleEvent, roleDeciders, roleEvolvers } from './role.js';

export type GuildCreated = DomainEvent<
  'GuildCreated',
  { guildId: string; createdAt: string; settings: GuildSettings; everyoneRole: RoleData; channels: ChannelData[] }
>;
export type GuildUpdated = DomainEvent<'GuildUpdated', { guildId: string; changes: Change[] }>;
export type GuildDeleted = DomainEvent<'GuildDeleted', { guildId: string; vanityCode: string | null }>;
/** `code` null removes the vanity URL. */
export type VanityCodeSet = DomainEvent<'VanityCodeSet', { guildId: string; code: string | null; previousCode: string | null }>;
export type GuildSettingsEvent = GuildCreated | GuildUpdated | GuildDeleted | VanityCodeSet;
export type GuildEvent = GuildSettingsEvent | RoleEvent | MemberEvent | ModerationEvent | ChannelEvent | AutoModerationEvent;

export type GuildSettingsCommand =
  | { type: 'CreateGuild'; guildId: string; ownerId: string; name: string; icon: string | null; channelId: string; createdAt: string }
  | { type: 'UpdateGuild'; actorId: string; settings: Partial<GuildSettings> }
  | { type: 'DeleteGuild'; actorId: string }
  | { type: 'SetVanityCode'; actorId: string; code: string | null };
export type GuildCommand = GuildSettingsCommand | RoleCommand | MemberCommand | ModerationCommand | ChannelCommand | AutoModerationCommand;

/** Settings that name a channel, and the channel type each must name. */
const CHANNEL_SETTINGS = { afk_channel_id: ChannelType.GUILD_VOICE, system_channel_id: ChannelType.GUILD_TEXT } as const;

function settingsErrors(state: GuildState, settings: Partial<GuildSettings>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, type] of Object.entries(CHANNEL_SETTINGS)) {
    const channelId = settings[key as keyof typeof CHANNEL_SETTINGS];
    if (channelId && state.channels.get(channelId)?.type !== type) errors.push({ path: key, message: `Must be a channel of type ${type} in this guild` });
  }
  if (settings.owner_id !== undefined && !state.members.has(settings.owner_id)) errors.push({ path: 'owner_id', message: 'The new owner must be a member' });
  return errors;
}

const guildSettingsDeciders = {
  CreateGuild(command: Extract<GuildSettingsCommand, { type: 'CreateGuild' }>, state: GuildState): GuildEvent[] {
    if (state.status !== 'none') throw new DomainError('conflict', 'GUILD_EXISTS', 'Guild already exists');
    const { guildId, ownerId, createdAt } = command;
    const settings: GuildSettings = {
      ...initialGuildState().settings,
      name: command.name,
      icon: command.icon,
      owner_id: ownerId,
      system_channel_id: command.channelId,
    };
    const everyoneRole: RoleData = {
      id: guildId,
      name: '@everyone',
      color: 0,
      hoist: false,
      mentionable: false,
      permissions: DEFAULT_EVERYONE_PERMISSIONS.toString(),
      position: 0,
    };
    const general: ChannelData = {
      id: command.channelId,
      type: ChannelType.GUILD_TEXT,
      name: 'general',
      position: 0,
      parent_id: null,
      permission_overwrites: [],
      topic: null,
      nsfw: false,
      rate_limit_per_user: 0,
    };
    return [
      { type: 'GuildCreated', data: { guildId, createdAt, settings, everyoneRole, channels: [general] } },
      { type: 'MemberJoined', data: { guildId, userId: ownerId, joinedAt: createdAt, inviteCode: null, vanity: false, temporary: false } },
    ];
  },

  UpdateGuild(command: Extract<GuildSettingsCommand, { type: 'UpdateGuild' }>, state: GuildState): GuildEvent[] {
    requireGuildPermission(state, command.actorId, Permission.MANAGE_GUILD);
    if (command.settings.owner_id !== undefined && command.settings.owner_id !== state.settings.owner_id && !isOwner(state, command.actorId)) {
      throw missingPermissions('Missing Permissions: only the owner can transfer ownership');
    }
    const errors = settingsErrors(state, command.settings);
    if (errors.length) throw invalidForm(errors);
    const changes = diff(state.settings, command.settings);
    return changes.length ? [{ type: 'GuildUpdated', data: { guildId: state.id, changes } }] : [];
  },

  DeleteGuild(command: Extract<GuildSettingsCommand, { type: 'DeleteGuild' }>, state: GuildState): GuildEvent[] {
    requireMember(state, command.actorId);
    if (!isOwner(state, command.actorId)) throw missingPermissions('Missing Permissions: only the owner can delete the guild');
    return [{ type: 'GuildDeleted', data: { guildId: state.id, vanityCode: state.vanityCode } }];
  },

  SetVanityCode(command: Extract<GuildSettingsCommand, { type: 'SetVanityCode' }>, state: GuildState): GuildEvent[] {
    requireGuildPermission(state, command.actorId, Permission.MANAGE_GUILD);
    if (command.code === state.vanityCode) return [];
    return [{ type: 'VanityCodeSet', data: { guildId: state.id, code: command.code, previousCode: state.vanityCode } }];
  },
};

const guildSettingsEvolvers = {
  GuildCreated(state: GuildState, event: GuildCreated): GuildState {
    const { guildId, settings, everyoneRole, channels } = event.data;
    return {
      ...initialGuildState(),
      status: 'active',
      id: guildId,
      settings,
      roles: new Map([[everyoneRole.id, everyoneRole]]),
      channels: new Map(channels.map((c) => [c.id, c])),
    };
  },
  GuildUpdated: (state: GuildState, event: GuildUpdated): GuildState => ({ ...state, settings: applyChanges(state.settings, event.data.changes) }),
  GuildDeleted: (state: GuildState): GuildState => ({ ...state, status: 'deleted' }),
  VanityCodeSet: (state: GuildState, event: VanityCodeSet): GuildState => ({ ...state, vanityCode: event.data.code }),
};

type Deciders = { [K in GuildCommand['type']]: (command: Extract<GuildCommand, { type: K }>, state: GuildState) => GuildEvent[] };
type Evolvers = { [K in GuildEvent['type']]: (state: GuildState, event: Extract<GuildEvent, { type: K }>) => GuildState };

const deciders: Deciders = {
  ...guildSettingsDeciders,
  ...roleDeciders,
  ...memberDeciders,
  ...moderationDeciders,
  ...channelDeciders,
  ...autoModerationDeciders,
};
const evolvers: Evolvers = {
  ...guildSettingsEvolvers,
  ...roleEvolvers,
  ...memberEvolvers,
  ...moderationEvolvers,
  ...channelEvolvers,
  ...autoModerationEvolvers,
};

export const guildDecider: Decider<GuildState, GuildCommand, GuildEvent> = {
  initialState: initialGuildState,
  // Permissions depend on the time (timeouts): the state is judged at the moment of the decision.
  decide: (command, state, at) => (deciders[command.type] as (c: GuildCommand, s: GuildState) => GuildEvent[])(command, { ...state, at: at ?? state.at }),
  evolve: (state, event) => (evolvers[event.type] as (s: GuildState, e: GuildEvent) => GuildState)(state, event),
};
