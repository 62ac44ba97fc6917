// DM and group DM calls: the voice regions a channel offers, whether the caller can ring, the call's region, ringing
// and stopping it (HTTP), and the voice joins, leaves and ring timeouts the gateway appends (gateway/callVoice.ts).
// Who takes part is decided in domain/call.ts; here the channel is checked and its recipients read.
import { type CallCommand, type CallState, type CallVoiceStateData, callDecider } from '../domain/call.js';
import { ChannelType } from '../domain/channel.js';
import { badRequest, invalidForm } from '../domain/errors.js';
import type { Config, RtcRegion } from '../ports/config.js';
import { callById } from '../projections/calls.queries.js';
import type { DmChannelDoc } from '../projections/dms.js';
import { messageChannelAccess } from './access.js';
import { type ActorMeta, type RequestMeta, type Uses, metadata } from './deps.js';
import { callStream } from './streams.js';

type Settings<K extends keyof Config> = { config: Pick<Config, K> };

/** The channels with voice: guild voice and stage channels, DMs and group DMs. */
const VOICE_CHANNEL_TYPES: readonly number[] = [ChannelType.DM, ChannelType.GUILD_VOICE, ChannelType.GROUP_DM, ChannelType.GUILD_STAGE_VOICE];

const wrongChannelType = () => badRequest('CANNOT_EXECUTE_ON_CHANNEL_TYPE', 'Cannot execute action on this channel type');

/** The DM or group DM the user takes part in; a guild channel they can see has no call (400), any other is unknown (404). */
async function callChannel(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string, userId: string): Promise<DmChannelDoc> {
  const { dm } = await messageChannelAccess(deps, channelId, userId);
  if (!dm) throw wrongChannelType();
  return dm;
}

/** Runs a command a user's request or voice gave, after this process's earlier ones on the call; waits for the read side. */
async function decideInOrder(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, command: CallCommand): Promise<CallState> {
  const { state, position } = await deps.commands.handle(callStream(command.channelId), callDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  return state;
}

/** GET /channels/:id/rtc-regions: the configured regions, for a voice channel, DM or group DM the user can see. */
export async function voiceRegions(
  deps: Uses<'commands' | 'readStore' | 'clock'> & Settings<'rtcRegions'>,
  userId: string,
  channelId: string,
): Promise<RtcRegion[]> {
  const access = await messageChannelAccess(deps, channelId, userId);
  if (!VOICE_CHANNEL_TYPES.includes(access.type)) throw wrongChannelType();
  return deps.config.rtcRegions;
}

/**
 * GET /channels/:id/call. Parley has no blocking, so `ringable` says whether anyone else in the channel could answer:
 * another participant who is a person (bots take no part in calls). `silent`: a call is going on (someone is in its
 * voice), so joining it rings nobody.
 */
export async function callStatus(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  userId: string,
  channelId: string,
): Promise<{ ringable: boolean; silent: boolean }> {
  const dm = await callChannel(deps, channelId, userId);
  const call = await callById(deps.readStore, channelId);
  return { ringable: dm.recipients.some((user) => user.id !== userId && !user.bot), silent: (call?.voice_states.length ?? 0) > 0 };
}

/** PATCH /channels/:id/call: the call's region, one of the configured ones (null: automatic). */
export async function setCallRegion(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'> & Settings<'rtcRegions'>,
  meta: ActorMeta,
  channelId: string,
  region: string | null,
): Promise<void> {
  await callChannel(deps, channelId, meta.actorId);
  if (region !== null && !deps.config.rtcRegions.some((r) => r.id === region))
    throw invalidForm([{ path: 'region', message: 'Unknown voice region: GET /channels/:id/rtc-regions lists them' }]);
  await decideInOrder(deps, meta, { type: 'SetCallRegion', channelId, actorId: meta.actorId, region });
}

const recipientsOf = (dm: DmChannelDoc) => dm.recipients.map((user) => ({ id: user.id, bot: user.bot }));

/** POST /channels/:id/call/ring: rings `userIds` (null: everyone else who can answer) until the ring timeout. */
export async function ringCall(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'> & Settings<'callRingTimeoutMs'>,
  meta: ActorMeta,
  channelId: string,
  userIds: string[] | null,
): Promise<void> {
  const dm = await callChannel(deps, channelId, meta.actorId);
  const until = new Date(deps.clock.now() + deps.config.callRingTimeoutMs).toISOString();
  await decideInOrder(deps, meta, { type: 'RingCall', channelId, actorId: meta.actorId, recipients: recipientsOf(dm), userIds, until });
}

/** POST /channels/:id/call/stop-ringing: stops ringing `userIds` (null: everyone rung). */
export async function stopRinging(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  userIds: string[] | null,
): Promise<void> {
  const dm = await callChannel(deps, channelId, meta.actorId);
  await decideInOrder(deps, meta, { type: 'StopRinging', channelId, actorId: meta.actorId, recipients: recipientsOf(dm), userIds });
}

/** A recipient's voice joins the call (or changes its self flags); the gateway checked that they are a recipient. */
export async function joinCall(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, channelId: string, state: CallVoiceStateData): Promise<void> {
  await decideInOrder(deps, meta, { type: 'JoinCall', channelId, state });
}

/** The user's voice leaves the call; with `sessionId`, only if that session still holds it. */
export async function leaveCall(
  deps: Uses<'commands' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  userId: string,
  sessionId: string | null,
): Promise<void> {
  await decideInOrder(deps, meta, { type: 'LeaveCall', channelId, userId, sessionId });
}

/** What the system appends on its own (no request behind it): not queued, the command handler's retries suffice. */
async function decideAsSystem(deps: Uses<'commands' | 'clock' | 'settle'>, meta: RequestMeta, command: CallCommand): Promise<CallState> {
  const { state, position } = await deps.commands.handle(callStream(command.channelId), callDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  return state;
}

/** Stops the ringing whose deadline has passed; returns the call after, whose remaining deadlines are still to come. */
export function timeOutRinging(deps: Uses<'commands' | 'clock' | 'settle'>, channelId: string): Promise<CallState> {
  return decideAsSystem(deps, { actorId: null }, { type: 'TimeOutRinging', channelId, now: new Date(deps.clock.now()).toISOString() });
}

/** A user who stopped being a recipient (`meta`: the removal's) leaves the call's voice and is no longer rung. */
export async function dropFromCall(deps: Uses<'commands' | 'clock' | 'settle'>, meta: RequestMeta, channelId: string, userId: string): Promise<void> {
  await decideAsSystem(deps, meta, { type: 'DropFromCall', channelId, userId });
}

/** A voice state whose gateway node is gone (a restart) ends, unless another session took it over meanwhile. */
export async function endLeftoverCallVoice(
  deps: Uses<'commands' | 'clock' | 'settle'>,
  channelId: string,
  state: Pick<CallVoiceStateData, 'user_id' | 'session_id'>,
): Promise<void> {
  await decideAsSystem(deps, { actorId: null }, { type: 'LeaveCall', channelId, userId: state.user_id, sessionId: state.session_id });
}
