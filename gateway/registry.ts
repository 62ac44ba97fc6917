// The sessions of one gateway process, indexed by user and by guild, and the routing of dispatches to them. Each
// dispatch is serialized once (twice for one some sessions see less of: a message's content, a GUILD_CREATE's
// members) and shared by all its recipients.
import type { ChannelVisibility, Dispatch } from './dispatch.js';
import { ErasedSubjects, subjectsOf } from './erasures.js';
import { Intent } from './protocol.js';
import type { Session } from './session.js';

function add<K, V>(index: Map<K, Set<V>>, key: K, value: V) {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
}

function remove<K, V>(index: Map<K, Set<V>>, key: K, value: V) {
  const set = index.get(key);
  set?.delete(value);
  if (set?.size === 0) index.delete(key);
}

/**
 * What the session receives instead of the dispatch's data when its intents withhold part of it: a message without
 * MESSAGE_CONTENT (unless its user wrote it or is mentioned), a GUILD_CREATE's members without GUILD_PRESENCES.
 * Undefined: the whole data.
 */
function withheldFrom(dispatch: Dispatch, session: Session): unknown {
  const { intents } = session.identity;
  const hidden = dispatch.withoutContent;
  if (hidden && (intents & Intent.MESSAGE_CONTENT) === 0 && hidden.authorId !== session.userId && !hidden.mentionIds.includes(session.userId)) return hidden.d;
  if (dispatch.withoutPresences && (intents & Intent.GUILD_PRESENCES) === 0) return dispatch.withoutPresences;
  return undefined;
}

/** How long erased text may stay in the buffers of sessions away (as long as it may stay in the read models' WAL). */
const SCRUB_AWAY_MS = 1000;

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly byUser = new Map<string, Set<Session>>();
  private readonly byGuild = new Map<string, Set<Session>>();
  /** The subjects erased while sessions may still hold dispatches showing them, for RESUMEs. */
  readonly erasures = new ErasedSubjects();

  constructor(
    private readonly visibility: ChannelVisibility,
    /** Told of each session that ends (its user's presence may go offline). */
    private readonly ended: (session: Session) => void = () => {},
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** The users with a session in the guild on this node, connected or away. */
  usersIn(guildId: string): Set<string> {
    return new Set([...(this.byGuild.get(guildId) ?? [])].map((session) => session.userId));
  }

  /** Whether the user has a session on this node, connected or away. */
  hasSessionsOf(userId: string): boolean {
    return this.byUser.has(userId);
  }

  register(session: Session, guildIds: string[]): void {
    this.sessions.set(session.id, session);
    add(this.byUser, session.userId, session);
    for (const guildId of guildIds) this.joinGuild(session, guildId);
  }

  unregister(session: Session): void {
    const registered = this.sessions.delete(session.id);
    remove(this.byUser, session.userId, session);
    for (const guildId of session.guildIds) remove(this.byGuild, guildId, session);
    session.connection?.close(4000, 'Session ended');
    if (registered) this.ended(session);
  }

  /** Ends the user's sessions on this node, closing their connections with `code` (so that clients do not resume). */
  endSessionsOf(userId: string, code: number, reason: string): void {
    for (const session of [...(this.byUser.get(userId) ?? [])]) {
      session.connection?.close(code, reason);
      this.unregister(session);
    }
  }

  private joinGuild(session: Session, guildId: string) {
    session.guildIds.add(guildId);
    add(this.byGuild, guildId, session);
  }

  /** Drops sessions whose clients stayed away past the resume window, and erasures no session's replay predates. */
  sweep(now = Date.now()): void {
    let oldest = this.erasures.mark;
    for (const session of this.sessions.values()) {
      if (session.expired(now)) this.unregister(session);
      else oldest = Math.min(oldest, session.oldestMark);
    }
    this.erasures.forgetUpTo(oldest);
  }

  /**
   * The subjects' keys are destroyed: dispatches buffered until now are replayed without their fields. The buffers of
   * sessions away (held until they resume or expire) are scrubbed within SCRUB_AWAY_MS, once for all the erasures in
   * between; a connected session's client acknowledges what it holds at its next heartbeat, which drops it, and a
   * session scrubs its own when it goes away. Scrubbing at each erasure walked every away session's buffer once an
   * erasure: 10,000 sessions away made deletions twelve times slower (the bench's erasure row, 90 a second).
   */
  erased(subjects: string[]): void {
    if (subjects.length === 0) return;
    for (const subject of subjects) this.erasures.erase(subject);
    this.scrubAwayTimer ??= setTimeout(() => {
      this.scrubAwayTimer = null;
      for (const session of this.sessions.values()) if (!session.connection) session.scrubReplay();
    }, SCRUB_AWAY_MS).unref();
  }

  private scrubAwayTimer: NodeJS.Timeout | null = null;

  /** Dispatches sent to sessions since start, for operators' dispatch rate. */
  dispatchesSent = 0;

  all(): IterableIterator<Session> {
    return this.sessions.values();
  }

  /** `visibility`: the event's own, when the dispatch is one of an event's (sharing the states its deriving loaded). */
  async route(dispatch: Dispatch, visibility: ChannelVisibility = this.visibility): Promise<void> {
    if (dispatch.join) for (const session of this.byUser.get(dispatch.join.userId) ?? []) this.joinGuild(session, dispatch.join.guildId);
    const audience = dispatch.audience;
    const recipients = new Set<Session>();
    for (const userId of audience.users ?? []) for (const session of this.byUser.get(userId) ?? []) recipients.add(session);
    if ('guildId' in audience) {
      const members = this.byGuild.get(audience.guildId) ?? new Set<Session>();
      const canView = audience.channelId && members.size ? await visibility(audience.guildId, audience.channelId) : null;
      for (const session of members) if (!canView || canView(session.userId)) recipients.add(session);
    }
    if (dispatch.dissolve) {
      for (const session of this.byGuild.get(dispatch.dissolve) ?? []) session.guildIds.delete(dispatch.dissolve);
      this.byGuild.delete(dispatch.dissolve);
    }
    if (dispatch.leave) {
      for (const session of this.byUser.get(dispatch.leave.userId) ?? []) {
        session.guildIds.delete(dispatch.leave.guildId);
        remove(this.byGuild, dispatch.leave.guildId, session);
      }
    }
    const named = new Set<Session>();
    for (const id of dispatch.sessions ?? []) {
      const session = this.sessions.get(id);
      if (!session) continue;
      named.add(session);
      recipients.add(session);
    }
    let full: string | null = null;
    let reduced: string | null = null;
    let subjects: readonly string[] | null = null;
    for (const session of recipients) {
      const intent = dispatch.intentOf?.users.includes(session.userId) ? dispatch.intentOf.intent : dispatch.intent;
      if (intent !== null && (session.identity.intents & intent) === 0 && !named.has(session)) continue;
      this.dispatchesSent += 1;
      const withheld = withheldFrom(dispatch, session);
      subjects ??= subjectsOf(dispatch.d);
      if (withheld !== undefined) session.dispatch(dispatch.t, (reduced ??= JSON.stringify(withheld)), subjects);
      else session.dispatch(dispatch.t, (full ??= JSON.stringify(dispatch.d)), subjects);
    }
  }
}
