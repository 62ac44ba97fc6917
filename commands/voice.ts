// Voice state use cases: a gateway session joining, moving within and leaving a guild's voice channels (op 4), a
// session that ends leaving with it, and moderators moving, disconnecting, muting and deafening members. Each decides
// on the guild's voice stream with the guild aggregate's current state (permissions, channels, members) in hand.
import { type UpdateOwnVoiceState, type VoiceCommand, currentVoiceState, voiceDecider } from '../domain/voiceState.js';
import { badRequest } from '../domain/errors.js';
import { loadGuild } from './access.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { guildVoiceStream } from './streams.js';

type Deps = Uses<'commands' | 'clock' | 'settle'>;
/** A voice command, told which guild state to decide with. */
type Build = (guild: Awaited<ReturnType<typeof loadGuild>>) => VoiceCommand;

async function runVoiceCommand(deps: Deps, meta: ActorMeta, guildId: string, build: Build) {
  const guild = await loadGuild(deps, guildId);
  const handled = await deps.commands.handle(guildVoiceStream(guildId), voiceDecider, build(guild), metadata(meta, deps.clock));
  await deps.settle(handled.position);
  return handled;
}

/** Op 4 as the gateway hands it over: the domain command without the guild state and actor the use case adds. */
export type OwnVoiceStateInput = Omit<UpdateOwnVoiceState, 'type' | 'guild' | 'userId'> & { guildId: string };

/** Op 4 of the actor's gateway session: join, move, change self flags, or leave with a null channel. */
export function updateOwnVoiceState(deps: Deps, meta: ActorMeta, input: OwnVoiceStateInput) {
  const { guildId, ...rest } = input;
  return runVoiceCommand(deps, meta, guildId, (guild) => ({ type: 'UpdateOwnVoiceState', guild, userId: meta.actorId, ...rest }));
}

/** The session ended: the user's voice state in the guild ends if that session held it. */
export function endSessionVoiceState(deps: Deps, meta: ActorMeta, guildId: string, sessionId: string) {
  return runVoiceCommand(deps, meta, guildId, (guild) => ({ type: 'EndSessionVoiceState', guild, userId: meta.actorId, sessionId }));
}

/** A moderator moves the member to another voice channel, or disconnects them (null). */
export function moveVoiceMember(deps: Deps, meta: ActorMeta, guildId: string, userId: string, channelId: string | null) {
  return runVoiceCommand(deps, meta, guildId, (guild) => ({ type: 'MoveVoiceMember', guild, actorId: meta.actorId, userId, channelId }));
}

/** Decides a moderator's move without appending: refuses it before another stream is written for the same request. */
export async function assertVoiceMove(
  deps: Uses<'commands' | 'clock'>,
  meta: ActorMeta,
  guildId: string,
  userId: string,
  channelId: string | null,
): Promise<void> {
  const guild = await loadGuild(deps, guildId);
  const { state } = await deps.commands.load(guildVoiceStream(guildId), voiceDecider);
  voiceDecider.decide({ type: 'MoveVoiceMember', guild, actorId: meta.actorId, userId, channelId }, state);
}

/** The server mute and deafen apply to a member in voice, as in the widely used API (400 otherwise). */
export async function requireInVoice(deps: Uses<'commands' | 'clock'>, guildId: string, userId: string): Promise<void> {
  const guild = await loadGuild(deps, guildId);
  const { state } = await deps.commands.load(guildVoiceStream(guildId), voiceDecider);
  if (!currentVoiceState(state, guild, userId)) throw badRequest('TARGET_NOT_IN_VOICE', 'Target user is not connected to voice');
}
