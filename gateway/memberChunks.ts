// Op 8 REQUEST_GUILD_MEMBERS, answered with GUILD_MEMBERS_CHUNK dispatches as the widely used API answers it: members
// by username or nickname prefix (at most 100), by id (at most 100 asked), or the whole list (which needs the
// GUILD_MEMBERS intent and is limited to once per guild and user every 30 s), in chunks of at most 1000 members.
import { isSnowflake } from '../domain/snowflake.js';
import { memberObject } from '../presenters/members.js';
import type { ParleyPresence } from '../presenters/differences.js';
import type { GatewayDeps } from './deps.js';
import type { DispatchData } from './protocol.js';
import { requestedMembers } from '../projections/members.queries.js';
import { usersById } from './guilds.js';

export const CHUNK_SIZE = 1000;
/** The most members a prefix query answers, and the most ids one request may ask for. */
const MAX_QUERIED = 100;
const MAX_NONCE_BYTES = 32;
export const FULL_LIST_INTERVAL_MS = 30_000;

export interface MemberRequest {
  guildId: string;
  /** The members asked for by id; null when asked by query. */
  userIds: string[] | null;
  /** A prefix of username or nickname; "" asks for the whole member list. */
  query: string;
  /** 0: no limit beyond the one of the kind of request. */
  limit: number;
  presences: boolean;
  /** Absent when none was given or the one given is not valid (the widely used API then ignores it). */
  nonce?: string;
}

const snowflake = (value: unknown): string | null => {
  const id = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  return typeof id === 'string' && isSnowflake(id) ? id : null;
};

/** Op 8's payload, or null when it is not a valid one. One guild per request: a list of guild ids must hold one. */
export function parseMemberRequest(d: unknown): MemberRequest | null {
  if (typeof d !== 'object' || d === null) return null;
  const data = d as Record<string, unknown>;
  const guildIds = Array.isArray(data.guild_id) ? data.guild_id : [data.guild_id];
  const guildId = guildIds.length === 1 ? snowflake(guildIds[0]) : null;
  if (!guildId) return null;
  const { query = '', limit = 0, presences = false, nonce } = data;
  if (typeof query !== 'string' || typeof presences !== 'boolean') return null;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) return null;
  let userIds: string[] | null = null;
  if (data.user_ids !== undefined && data.user_ids !== null) {
    const asked = Array.isArray(data.user_ids) ? data.user_ids : [data.user_ids];
    if (asked.length > MAX_QUERIED) return null;
    const ids = asked.map(snowflake);
    if (ids.some((id) => id === null)) return null;
    userIds = [...new Set(ids as string[])];
  } else if (data.query === undefined) return null;
  const validNonce = typeof nonce === 'string' && Buffer.byteLength(nonce) <= MAX_NONCE_BYTES;
  return { guildId, userIds, query, limit, presences, ...(validNonce ? { nonce } : {}) };
}

/** Whether the request asks for the whole member list (query "", any limit): it needs the GUILD_MEMBERS intent. */
export const asksForMemberList = (request: MemberRequest) => request.userIds === null && request.query === '';

/** Whether the request asks for every member (query "" with limit 0): such requests are rate limited. */
export const asksForAllMembers = (request: MemberRequest) => asksForMemberList(request) && request.limit === 0;

type MemberObject = ReturnType<typeof memberObject>;

type Chunk = DispatchData['GUILD_MEMBERS_CHUNK'];

interface ChunkOptions {
  /** Ids asked for that are not members. */
  notFound?: string[];
  /** Set when presences were asked for (and may be given): the presence objects of some of the users. */
  presences?: (userIds: string[]) => ParleyPresence[];
  nonce?: string;
  size?: number;
}

/** The GUILD_MEMBERS_CHUNK payloads answering one request: at least one, even for no members. */
export function memberChunks(guildId: string, members: MemberObject[], options: ChunkOptions = {}): Chunk[] {
  const size = options.size ?? CHUNK_SIZE;
  const count = Math.max(1, Math.ceil(members.length / size));
  return Array.from({ length: count }, (_, index) => {
    const part = members.slice(index * size, (index + 1) * size);
    return {
      guild_id: guildId,
      members: part,
      chunk_index: index,
      chunk_count: count,
      ...(options.notFound ? { not_found: options.notFound } : {}),
      ...(options.presences ? { presences: options.presences(part.map((member) => member.user.id)) } : {}),
      ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    };
  });
}

const matches = (prefix: string) => (text: string | null) => text !== null && text.toLowerCase().startsWith(prefix);

/** The members a request asks for, as member objects, and the asked ids that are not members. */
export async function findRequestedMembers(runtime: GatewayDeps, request: MemberRequest): Promise<{ members: MemberObject[]; notFound?: string[] }> {
  const { guildId, userIds } = request;
  const docs = userIds?.length === 0 ? [] : await requestedMembers(runtime.readStore, guildId, userIds);
  const users = await usersById(
    runtime,
    docs.map((doc) => doc.user_id),
  );
  const known = docs.filter((doc) => users.has(doc.user_id));
  if (userIds) {
    const found = new Set(known.map((doc) => doc.user_id));
    return { members: known.map((doc) => memberObject(doc, users.get(doc.user_id)!)), notFound: userIds.filter((id) => !found.has(id)) };
  }
  const prefix = request.query.toLowerCase();
  const matching = prefix ? known.filter((doc) => [users.get(doc.user_id)!.username, doc.nick].some(matches(prefix))) : known;
  const limit = prefix ? Math.min(request.limit || MAX_QUERIED, MAX_QUERIED) : request.limit || Infinity;
  return { members: matching.slice(0, limit).map((doc) => memberObject(doc, users.get(doc.user_id)!)) };
}

/** Whole-member-list requests per user and guild on this node: one every 30 s. */
export class MemberListLimiter {
  private readonly last = new Map<string, number>();

  /** 0 when the request may go ahead (and counts from now), or the milliseconds until it may. */
  wait(userId: string, guildId: string, now: number): number {
    const key = `${userId}:${guildId}`;
    const last = this.last.get(key);
    if (last !== undefined && now - last < FULL_LIST_INTERVAL_MS) return FULL_LIST_INTERVAL_MS - (now - last);
    this.last.set(key, now);
    return 0;
  }

  /** Forgets requests old enough not to limit any more. */
  sweep(now: number): void {
    for (const [key, last] of this.last) if (now - last >= FULL_LIST_INTERVAL_MS) this.last.delete(key);
  }
}
