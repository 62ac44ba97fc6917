// Presences: what each session says of its user (IDENTIFY's `presence`, then op 3 PRESENCE_UPDATE) and what the
// user's guilds are shown of it. Like typing, presence is a hint, not state: held in memory, never in the log.
// Every gateway node announces its users' presences to all nodes as hints, on each change and again every minute,
// so a node learns the presences of users connected elsewhere; a node that stops announcing (it crashed) has its
// presences expire, and a node that starts knows everyone's within a minute. Each announcement also says whether the
// user has a session on the node at all (an invisible one included): whether a session ending elsewhere was the last.
import { randomUUID } from 'node:crypto';
import type { HintBus, PresenceHint } from '../ports/hints.js';
import type { Logger } from '../ports/logger.js';

const STATUSES = ['online', 'dnd', 'idle', 'invisible', 'offline'] as const;
type Status = (typeof STATUSES)[number];

/** The fields of an activity a bot may set (the widely used API keeps only these), and when it was set. */
type Activity = { name: string; type: number; state?: string | null; url?: string | null; created_at: number };

export interface Presence {
  status: Status;
  activities: Activity[];
}

/** A presence as others see it: 'invisible' shows as 'offline', and an offline user has no activities. */
export type Shown = Pick<PresenceHint, 'status' | 'activities'>;

export const ONLINE: Presence = { status: 'online', activities: [] };
export const OFFLINE: Shown = { status: 'offline', activities: [] };

// Bounds on what one session may make every member of its guilds receive.
const MAX_ACTIVITIES = 5;
const MAX_TEXT = 128;
const MAX_URL = 512;
/** Playing, Streaming, Listening, Watching, Custom, Competing. */
const MAX_ACTIVITY_TYPE = 5;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalText = (value: unknown, max: number) => value === undefined || value === null || (typeof value === 'string' && value.length <= max);

function parseActivity(value: unknown, now: number): Activity | null {
  if (!isRecord(value)) return null;
  const { name, type, state, url } = value;
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_TEXT) return null;
  if (typeof type !== 'number' || !Number.isInteger(type) || type < 0 || type > MAX_ACTIVITY_TYPE) return null;
  if (!optionalText(state, MAX_TEXT) || !optionalText(url, MAX_URL)) return null;
  return {
    name,
    type,
    ...(state !== undefined ? { state: state as string | null } : {}),
    ...(url !== undefined ? { url: url as string | null } : {}),
    created_at: now,
  };
}

/** Op 3's payload `{since, activities, status, afk}`, or null when it is not a valid one. */
export function parsePresence(d: unknown, now: number): Presence | null {
  if (!isRecord(d)) return null;
  const { status, activities, since, afk } = d;
  if (!STATUSES.includes(status as Status)) return null;
  if (since !== undefined && since !== null && (typeof since !== 'number' || !Number.isFinite(since) || since < 0)) return null;
  if (afk !== undefined && typeof afk !== 'boolean') return null;
  if (!Array.isArray(activities) || activities.length > MAX_ACTIVITIES) return null;
  const parsed = activities.map((activity) => parseActivity(activity, now));
  return parsed.every((activity) => activity !== null) ? { status: status as Status, activities: parsed as Activity[] } : null;
}

/** IDENTIFY's `presence`: discord.py sends a null status when only an activity is set, and that activity as `game`. */
export function parseIdentifyPresence(d: unknown, now: number): Presence | null {
  if (!isRecord(d)) return null;
  const { game, ...rest } = d;
  return parsePresence({ ...rest, status: d.status ?? 'online', activities: d.activities ?? (game ? [game] : []) }, now);
}

function shown(presence: Presence): Shown {
  return presence.status === 'invisible' || presence.status === 'offline' ? OFFLINE : { status: presence.status, activities: presence.activities };
}

/** A presence as GUILD_CREATE and GUILD_MEMBERS_CHUNK carry it (PRESENCE_UPDATE adds guild_id); a bot is a web client. */
export function presenceObject(userId: string, presence: Shown) {
  const clientStatus = presence.status === 'offline' ? {} : { web: presence.status };
  return { user: { id: userId }, status: presence.status, activities: presence.activities, client_status: clientStatus };
}

const same = (a: Shown, b: Shown) => a.status === b.status && JSON.stringify(a.activities) === JSON.stringify(b.activities);

/** A node's presences not announced again for this long are dropped: the node is gone. */
const ANNOUNCE_EVERY_MS = 60_000;
const EXPIRES_AFTER_MS = 2.5 * ANNOUNCE_EVERY_MS;

interface SessionPresence {
  presence: Presence;
  setAt: number;
}

interface NodePresence extends Shown {
  setAt: number;
  heardAt: number;
}

export class Presences {
  /** Names this gateway node in its hints. */
  readonly node = randomUUID();
  /** This node's sessions' presences: user → session id → presence. */
  private readonly sessions = new Map<string, Map<string, SessionPresence>>();
  /** Each user's shown presence on each node that has one (this node's as heard back): user → node → presence. */
  private readonly nodes = new Map<string, Map<string, NodePresence>>();
  /** The other nodes on which each user has a session, visible or not: user → node → when last heard. */
  private readonly elsewhere = new Map<string, Map<string, number>>();
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private announcing: Promise<void> = Promise.resolve();

  constructor(
    private readonly hints: HintBus,
    /** Tells the user's guilds of a change; called one change at a time, in order. */
    private readonly announce: (userId: string, presence: Shown) => Promise<void>,
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  start(): void {
    this.unsubscribe = this.hints.subscribe((hint) => {
      if (hint.type === 'PRESENCE_UPDATE') this.heard(hint);
    });
    this.timer = setInterval(() => this.tick(), ANNOUNCE_EVERY_MS);
    this.timer.unref();
  }

  /** Stops hearing hints (sessions that end afterwards are still announced to the other nodes), once announcements are done. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.announcing;
  }

  /** A session set its user's presence. */
  set(sessionId: string, userId: string, presence: Presence): void {
    let own = this.sessions.get(userId);
    if (!own) this.sessions.set(userId, (own = new Map()));
    own.set(sessionId, { presence, setAt: this.clock() });
    this.publish(userId);
  }

  /** A session ended: its presence no longer counts, and its user goes offline with their last session. */
  end(sessionId: string, userId: string): void {
    const own = this.sessions.get(userId);
    if (!own?.delete(sessionId)) return;
    if (own.size === 0) this.sessions.delete(userId);
    this.publish(userId);
  }

  /** The user's presence as others see it: the one set last, on whichever node. */
  of(userId: string): Shown {
    let latest: NodePresence | null = null;
    for (const presence of this.nodes.get(userId)?.values() ?? []) if (!latest || presence.setAt >= latest.setAt) latest = presence;
    return latest ? { status: latest.status, activities: latest.activities } : OFFLINE;
  }

  /** Whether another node has a session of the user, as its announcements tell (until they expire, if it stopped). */
  connectedElsewhere(userId: string): boolean {
    return this.elsewhere.has(userId);
  }

  /** The presence objects of those of these users who are not offline. */
  objects(userIds: Iterable<string>) {
    const objects: ReturnType<typeof presenceObject>[] = [];
    for (const userId of userIds) {
      const presence = this.of(userId);
      if (presence.status !== 'offline') objects.push(presenceObject(userId, presence));
    }
    return objects;
  }

  /** Announces this node's presences again, and drops those of nodes that stopped announcing theirs. */
  tick(): void {
    for (const userId of this.sessions.keys()) this.publish(userId);
    const now = this.clock();
    for (const [userId, nodes] of this.nodes) {
      const before = this.of(userId);
      for (const [node, presence] of nodes) if (now - presence.heardAt > EXPIRES_AFTER_MS) nodes.delete(node);
      if (nodes.size === 0) this.nodes.delete(userId);
      this.changed(userId, before);
    }
    for (const [userId, nodes] of this.elsewhere) {
      for (const [node, heardAt] of nodes) if (now - heardAt > EXPIRES_AFTER_MS) nodes.delete(node);
      if (nodes.size === 0) this.elsewhere.delete(userId);
    }
  }

  /** This node's presence of the user: that of their session that set one last, or offline without sessions. */
  private publish(userId: string): void {
    const now = this.clock();
    let latest: SessionPresence | null = null;
    for (const session of this.sessions.get(userId)?.values() ?? []) if (!latest || session.setAt >= latest.setAt) latest = session;
    const presence = latest ? shown(latest.presence) : OFFLINE;
    this.hints.publish({
      type: 'PRESENCE_UPDATE',
      node: this.node,
      userId,
      ...presence,
      setAt: latest?.setAt ?? now,
      connected: latest !== null,
      timestamp: now,
    });
  }

  private heard(hint: PresenceHint): void {
    if (hint.node !== this.node) this.heardConnected(hint);
    const before = this.of(hint.userId);
    let nodes = this.nodes.get(hint.userId);
    if (!nodes) this.nodes.set(hint.userId, (nodes = new Map()));
    if (hint.status === 'offline') nodes.delete(hint.node);
    else nodes.set(hint.node, { status: hint.status, activities: hint.activities, setAt: hint.setAt, heardAt: this.clock() });
    if (nodes.size === 0) this.nodes.delete(hint.userId);
    this.changed(hint.userId, before);
  }

  private heardConnected(hint: PresenceHint): void {
    let nodes = this.elsewhere.get(hint.userId);
    if (hint.connected ?? hint.status !== 'offline') {
      if (!nodes) this.elsewhere.set(hint.userId, (nodes = new Map()));
      nodes.set(hint.node, this.clock());
    } else if (nodes?.delete(hint.node) && nodes.size === 0) this.elsewhere.delete(hint.userId);
  }

  private changed(userId: string, before: Shown): void {
    const after = this.of(userId);
    if (same(before, after)) return;
    this.announcing = this.announcing
      .then(() => this.announce(userId, after))
      .catch((error) => this.log.error({ err: error, userId }, 'presence not announced'));
  }
}
