// Who is in which voice channel of a guild (stream guild-voice-{guildId}). Parley carries no audio; what it keeps is
// the state bots and clients read: joins, moves, leaves, the self mute/deaf/video flags and moderators' moves and
// disconnects. Those are events; a client's heartbeat is not. The stream sits beside the guild's own, so voice churn
// neither grows nor contends with the stream every guild command loads; the guild's permissions and channels come in
// with each command (`guild`), read from the guild aggregate by the command layer.
// A voice state the guild no longer backs (its channel deleted, its member gone or rejoined since) counts as absent:
// the guild's own events end it without a second append, and the read model and the gateway drop it on those events.
import type { Decider, DomainEvent } from './decider.js';
import { badRequest, missingPermissions } from './errors.js';
import { type GuildState, channelPermissions, requireNotTimedOut, unknownChannel, withEntry, withoutEntry } from './guildState.js';
import { Permission, hasPermission } from './permissions.js';
import { ChannelType } from './channel.js';

export interface VoiceStateData {
  user_id: string;
  channel_id: string;
  /** The gateway session that holds it, and that session's gateway node. */
  session_id: string;
  node: string;
  self_mute: boolean;
  self_deaf: boolean;
  self_video: boolean;
  /** The member's joined_at when they joined voice: a member who left the guild and came back is not still in voice. */
  member_joined_at: string;
}

export interface GuildVoiceState {
  states: ReadonlyMap<string, VoiceStateData>;
}

/** Why a voice state ended. `disconnected`: by a moderator (audited); `session_ended`: its gateway session is gone. */
export type VoiceLeaveReason = 'left' | 'disconnected' | 'session_ended';

export type VoiceChannelJoined = DomainEvent<'VoiceChannelJoined', { guildId: string; state: VoiceStateData }>;
/** `movedBy`: the moderator who moved the member (audited); null when the member moved themselves. */
export type VoiceChannelMoved = DomainEvent<
  'VoiceChannelMoved',
  { guildId: string; userId: string; fromChannelId: string; channelId: string; sessionId: string; node: string; movedBy: string | null }
>;
/** The member's own flags changed, or another of their sessions took the voice connection over, in the same channel. */
export type VoiceSelfStateChanged = DomainEvent<
  'VoiceSelfStateChanged',
  { guildId: string; userId: string; channelId: string; sessionId: string; node: string; self_mute: boolean; self_deaf: boolean; self_video: boolean }
>;
export type VoiceChannelLeft = DomainEvent<
  'VoiceChannelLeft',
  { guildId: string; userId: string; channelId: string; sessionId: string; reason: VoiceLeaveReason }
>;
export type VoiceEvent = VoiceChannelJoined | VoiceChannelMoved | VoiceSelfStateChanged | VoiceChannelLeft;

/** A gateway session's op 4: join or move to `channelId` (null leaves) with these self flags. */
export type UpdateOwnVoiceState = {
  type: 'UpdateOwnVoiceState';
  guild: GuildState;
  userId: string;
  sessionId: string;
  node: string;
  channelId: string | null;
  selfMute: boolean;
  selfDeaf: boolean;
  selfVideo: boolean;
};

export type VoiceCommand =
  | UpdateOwnVoiceState
  /** A moderator moves a member in voice to `channelId`, or disconnects them with null. */
  | { type: 'MoveVoiceMember'; guild: GuildState; actorId: string; userId: string; channelId: string | null }
  /** The session is gone: its voice state ends, unless another session holds it now. */
  | { type: 'EndSessionVoiceState'; guild: GuildState; userId: string; sessionId: string };

export const VOICE_CHANNEL_TYPES: readonly number[] = [ChannelType.GUILD_VOICE, ChannelType.GUILD_STAGE_VOICE];

/** The user's voice state, if the guild still backs it: its channel exists and they are the member who joined. */
export function currentVoiceState(state: GuildVoiceState, guild: GuildState, userId: string): VoiceStateData | null {
  const voice = state.states.get(userId);
  if (!voice || !guild.channels.has(voice.channel_id)) return null;
  return guild.members.get(userId)?.joined_at === voice.member_joined_at ? voice : null;
}

/** The voice channel someone may connect to: VIEW_CHANNEL and CONNECT there, and a place unless they may move members. */
function requireConnectable(guild: GuildState, voice: GuildVoiceState, userId: string, channelId: string, path = 'channel_id'): void {
  const channel = guild.channels.get(channelId);
  const permissions = channel && guild.members.has(userId) ? channelPermissions(guild, userId, channel) : 0n;
  if (!channel || !hasPermission(permissions, Permission.VIEW_CHANNEL)) throw unknownChannel();
  if (!VOICE_CHANNEL_TYPES.includes(channel.type)) throw badRequest('NOT_A_VOICE_CHANNEL', `${path} must name a voice or stage channel`);
  requireNotTimedOut(guild, userId);
  if (!hasPermission(permissions, Permission.CONNECT)) throw missingPermissions('Missing Permissions: CONNECT in the voice channel');
  const limit = channel.user_limit ?? 0;
  if (limit > 0 && !hasPermission(permissions, Permission.MOVE_MEMBERS)) {
    const inside = [...voice.states.keys()].filter((id) => id !== userId && currentVoiceState(voice, guild, id)?.channel_id === channelId).length;
    if (inside >= limit) throw badRequest('VOICE_CHANNEL_FULL', 'The voice channel is full');
  }
}

function updateOwn(command: UpdateOwnVoiceState, state: GuildVoiceState): VoiceEvent[] {
  const { guild, userId, sessionId, node, channelId } = command;
  const guildId = guild.id;
  const current = currentVoiceState(state, guild, userId);
  const flags = { self_mute: command.selfMute, self_deaf: command.selfDeaf, self_video: command.selfVideo };
  if (channelId === null)
    return current
      ? [{ type: 'VoiceChannelLeft', data: { guildId, userId, channelId: current.channel_id, sessionId: current.session_id, reason: 'left' } }]
      : [];
  if (current?.channel_id !== channelId) requireConnectable(guild, state, userId, channelId);
  if (!current) {
    const joined: VoiceStateData = {
      user_id: userId,
      channel_id: channelId,
      session_id: sessionId,
      node,
      ...flags,
      member_joined_at: guild.members.get(userId)!.joined_at,
    };
    return [{ type: 'VoiceChannelJoined', data: { guildId, state: joined } }];
  }
  const events: VoiceEvent[] = [];
  if (current.channel_id !== channelId) {
    events.push({ type: 'VoiceChannelMoved', data: { guildId, userId, fromChannelId: current.channel_id, channelId, sessionId, node, movedBy: null } });
  }
  const same =
    current.session_id === sessionId && current.node === node && (Object.keys(flags) as (keyof typeof flags)[]).every((key) => current[key] === flags[key]);
  if (!same) events.push({ type: 'VoiceSelfStateChanged', data: { guildId, userId, channelId, sessionId, node, ...flags } });
  return events;
}

export const voiceDecider: Decider<GuildVoiceState, VoiceCommand, VoiceEvent> = {
  initialState: () => ({ states: new Map() }),

  decide(command, state) {
    const { guild } = command;
    const guildId = guild.id;
    switch (command.type) {
      case 'UpdateOwnVoiceState':
        return updateOwn(command, state);
      case 'MoveVoiceMember': {
        const { actorId, userId, channelId } = command;
        const current = currentVoiceState(state, guild, userId);
        if (!current) throw badRequest('TARGET_NOT_IN_VOICE', 'Target user is not connected to voice');
        // MOVE_MEMBERS where the member is, and (to move them) there too, with CONNECT, where they go.
        const here = guild.members.has(actorId) ? channelPermissions(guild, actorId, guild.channels.get(current.channel_id)!) : 0n;
        if (!hasPermission(here, Permission.MOVE_MEMBERS)) throw missingPermissions('Missing Permissions: MOVE_MEMBERS');
        if (channelId === null)
          return [
            { type: 'VoiceChannelLeft', data: { guildId, userId, channelId: current.channel_id, sessionId: current.session_id, reason: 'disconnected' } },
          ];
        if (channelId === current.channel_id) return [];
        requireConnectable(guild, state, actorId, channelId);
        if (!hasPermission(channelPermissions(guild, actorId, guild.channels.get(channelId)!), Permission.MOVE_MEMBERS))
          throw missingPermissions('Missing Permissions: MOVE_MEMBERS');
        const { session_id: sessionId, node } = current;
        return [{ type: 'VoiceChannelMoved', data: { guildId, userId, fromChannelId: current.channel_id, channelId, sessionId, node, movedBy: actorId } }];
      }
      case 'EndSessionVoiceState': {
        const current = currentVoiceState(state, guild, command.userId);
        if (!current || current.session_id !== command.sessionId) return [];
        return [
          {
            type: 'VoiceChannelLeft',
            data: { guildId, userId: command.userId, channelId: current.channel_id, sessionId: current.session_id, reason: 'session_ended' },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'VoiceChannelJoined':
        return { states: withEntry(state.states, event.data.state.user_id, event.data.state) };
      case 'VoiceChannelMoved':
      case 'VoiceSelfStateChanged': {
        const current = state.states.get(event.data.userId);
        if (!current) return state;
        const { channelId, sessionId, node } = event.data;
        const flags =
          event.type === 'VoiceSelfStateChanged' ? { self_mute: event.data.self_mute, self_deaf: event.data.self_deaf, self_video: event.data.self_video } : {};
        return { states: withEntry(state.states, current.user_id, { ...current, ...flags, channel_id: channelId, session_id: sessionId, node }) };
      }
      case 'VoiceChannelLeft':
        return { states: withoutEntry(state.states, event.data.userId) };
    }
  },
};
