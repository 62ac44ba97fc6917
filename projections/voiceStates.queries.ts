// Reads of the voice read model.
import type { ReadStore } from '../ports/readStore.js';
import { VOICE_STATES } from './collections.js';
import type { VoiceStateDoc } from './voiceStates.js';

/** Who is in the guild's voice channels. */
export const voiceStatesOfGuild = (read: Pick<ReadStore, 'find'>, guildId: string) =>
  read.find<VoiceStateDoc>(VOICE_STATES, { guild_id: guildId }, { sort: { _id: 1 } });

/** The member's voice state in the guild, if they are in voice. */
export const voiceStateOf = (read: Pick<ReadStore, 'findOne'>, guildId: string, userId: string) =>
  read.findOne<VoiceStateDoc>(VOICE_STATES, { guild_id: guildId, user_id: userId });

/** Voice states held by sessions of gateway nodes other than this one (after a restart: left over by the last run). */
export const voiceStatesNotOfNode = (read: Pick<ReadStore, 'find'>, node: string) => read.find<VoiceStateDoc>(VOICE_STATES, { node: { $ne: node } });
