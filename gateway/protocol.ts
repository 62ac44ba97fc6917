// The gateway protocol of the widely used API, v10, JSON encoding: opcodes, close codes, intents, and each dispatch's data.
import type { GatewayDispatchPayload } from 'discord-api-types/v10';
import type { ParleyDispatchData } from '../presenters/differences.js';

export const GATEWAY_VERSION = 10;

export const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

export const CloseCode = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidSeq: 4007,
  RateLimited: 4008,
  SessionTimedOut: 4009,
  InvalidShard: 4010,
  ShardingRequired: 4011,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

export const Intent = {
  GUILDS: 1 << 0,
  GUILD_MEMBERS: 1 << 1,
  GUILD_MODERATION: 1 << 2,
  GUILD_EXPRESSIONS: 1 << 3,
  GUILD_INTEGRATIONS: 1 << 4,
  GUILD_WEBHOOKS: 1 << 5,
  GUILD_INVITES: 1 << 6,
  GUILD_VOICE_STATES: 1 << 7,
  GUILD_PRESENCES: 1 << 8,
  GUILD_MESSAGES: 1 << 9,
  GUILD_MESSAGE_REACTIONS: 1 << 10,
  GUILD_MESSAGE_TYPING: 1 << 11,
  DIRECT_MESSAGES: 1 << 12,
  DIRECT_MESSAGE_REACTIONS: 1 << 13,
  DIRECT_MESSAGE_TYPING: 1 << 14,
  MESSAGE_CONTENT: 1 << 15,
  GUILD_SCHEDULED_EVENTS: 1 << 16,
  AUTO_MODERATION_CONFIGURATION: 1 << 20,
  AUTO_MODERATION_EXECUTION: 1 << 21,
  GUILD_MESSAGE_POLLS: 1 << 24,
  DIRECT_MESSAGE_POLLS: 1 << 25,
} as const;

export const ALL_INTENTS = Object.values(Intent).reduce((all, bit) => all | bit, 0);

/**
 * Whether IDENTIFY's `intents` names defined intents only: a non-negative safe integer with no other bit set. The range
 * is checked first, as JavaScript's bitwise operators see only a number's low 32 bits (2 ** 64 would pass them).
 */
export function isIntentSet(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= ALL_INTENTS && (value & ~ALL_INTENTS) === 0;
}

export interface GatewayPayload {
  op: number;
  d?: unknown;
  s?: number | null;
  t?: string | null;
}

/** Each dispatch's data as discord-api-types types the widely used API's, by event name. */
type APIDispatchData = { [P in GatewayDispatchPayload as `${P['t']}`]: P['d'] };

/** Each dispatch Parley sends and its data: the API's, or Parley's declared difference (presenters/differences.ts). */
export type DispatchData = Omit<APIDispatchData, keyof ParleyDispatchData> & ParleyDispatchData;
export type DispatchEvent = keyof DispatchData;

/**
 * Data every event of T takes: for one event, its data; for a name chosen at run time among several, what all of
 * them take, so that no name goes out with the data of another.
 */
export type DataOfEach<T extends DispatchEvent> = DispatchData[T] &
  ((T extends DispatchEvent ? (d: DispatchData[T]) => void : never) extends (d: infer D) => void ? D : never);
