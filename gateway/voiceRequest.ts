// Op 4 VOICE_STATE_UPDATE as clients send it: `{guild_id, channel_id, self_mute, self_deaf, self_video?}`. A guild id
// names a guild's voice channel (gateway/voice.ts); a null guild id a DM or group DM call (gateway/callVoice.ts).
// `channel_id: null` leaves.
const SNOWFLAKE = /^\d{1,20}$/;

export interface VoiceStateRequest {
  guildId: string | null;
  channelId: string | null;
  selfMute: boolean;
  selfDeaf: boolean;
  selfVideo: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalFlag = (value: unknown) => value === undefined || value === null || typeof value === 'boolean';
const id = (value: unknown): string | null | undefined =>
  value === null || value === undefined ? null : typeof value === 'string' && SNOWFLAKE.test(value) ? value : undefined;

/** The request, or null when `d` is not a valid op 4 payload. */
export function parseVoiceStateRequest(d: unknown): VoiceStateRequest | null {
  if (!isRecord(d)) return null;
  const guildId = id(d.guild_id);
  const channelId = id(d.channel_id);
  if (guildId === undefined || channelId === undefined) return null;
  if (!optionalFlag(d.self_mute) || !optionalFlag(d.self_deaf) || !optionalFlag(d.self_video)) return null;
  return { guildId, channelId, selfMute: d.self_mute === true, selfDeaf: d.self_deaf === true, selfVideo: d.self_video === true };
}
