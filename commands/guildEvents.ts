// The analysts' stream: a guild's events in log order, caught up from a position and then followed live, filtered by
// what the reader may see. The log is read through the same opening as `replay export` (GuildEventLog, implemented by
// the sealing store in infra): a field whose key was destroyed reads null and its event says `erased: true`. Which
// guild and channels an event belongs to is read from its ids, which the log keeps in clear, so events are chosen
// sealed, and a batch is opened only when the consumer takes it to write: a message deleted while its event waits for
// a slow reader reaches them erased.
import { DomainError, missingPermissions } from '../domain/errors.js';
import { type GuildState, channelPermissions, guildPermissions, requireMember } from '../domain/guildState.js';
import { Permission, hasPermission } from '../domain/permissions.js';
import { threadPermissionsOf } from '../domain/thread.js';
import { type Position, type RecordedEvent, type Subscription, comparePositions, encodePosition } from '../ports/eventStore.js';
import { loadGuild, loadGuildNow, loadThread } from './access.js';
import type { Uses } from './deps.js';

/** The log as analysts read it. */
export interface GuildEventLog {
  /**
   * Hands `handler` the log after `after` (from the start when null), a batch at a time, in order, caught up and then
   * live: the events `select` keeps, still sealed (ids, times and types readable), and the position the batch read up
   * to. The next batch waits for the handler's promise.
   */
  follow(
    after: Position | null,
    select: (event: RecordedEvent) => boolean,
    handler: (events: RecordedEvent[], readUpTo: Position) => Promise<void>,
    onError: (error: unknown) => void,
  ): Subscription;
  /** Events `follow` handed on, opened with the keys that exist now: a field whose key is gone reads null. */
  open(events: RecordedEvent[]): Promise<RecordedEvent[]>;
  /** The position of the last event in the log, or null when it is empty. */
  head(): Promise<Position | null>;
}

/** Where an event happened: its guild (null: none, a DM or an account's) and the channels it shows. */
export interface EventPlace {
  guildId: string | null;
  channels: string[];
}

type Data = Record<string, unknown>;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const ids = (...values: unknown[]): string[] => values.map(text).filter((id): id is string => id !== null);

/** The place of events whose own object names it (`channel`, `thread`, `invite`, ...), by type; others read `guildId` and `channelId`. */
const PLACES: Record<string, (data: Data) => EventPlace> = {
  ChannelCreated: (d) => ({ guildId: text(d.guildId), channels: ids((d.channel as Data).id) }),
  ChannelDeleted: (d) => ({ guildId: text(d.guildId), channels: ids((d.channel as Data).id) }),
  ThreadCreated: (d) => ({ guildId: text(d.guildId), channels: ids((d.thread as Data).id) }),
  ThreadDeleted: (d) => ({ guildId: text(d.guildId), channels: ids((d.thread as Data).id) }),
  ThreadUpdated: (d) => ({ guildId: text(d.guildId), channels: ids(d.threadId) }),
  ThreadArchived: (d) => ({ guildId: text(d.guildId), channels: ids(d.threadId) }),
  ThreadMemberAdded: (d) => ({ guildId: text(d.guildId), channels: ids(d.threadId) }),
  ThreadMemberRemoved: (d) => ({ guildId: text(d.guildId), channels: ids(d.threadId) }),
  InviteCreated: (d) => ({ guildId: text((d.invite as Data).guild_id), channels: ids((d.invite as Data).channel_id) }),
  InviteDeleted: (d) => ({ guildId: text((d.invite as Data).guild_id), channels: ids((d.invite as Data).channel_id) }),
  WebhookCreated: (d) => ({ guildId: text((d.webhook as Data).guild_id), channels: ids((d.webhook as Data).channel_id) }),
  WebhookDeleted: (d) => ({ guildId: text((d.webhook as Data).guild_id), channels: ids((d.webhook as Data).channel_id) }),
  WebhookUpdated: (d) => ({ guildId: text(d.guildId), channels: ids(d.channelId, d.previousChannelId) }),
  AutoModerationActionExecuted: (d) => ({ guildId: text((d.execution as Data).guildId), channels: ids((d.execution as Data).channelId) }),
  ApplicationCommandCreated: (d) => ({ guildId: text((d.command as Data).guild_id), channels: [] }),
  ApplicationCommandUpdated: (d) => ({ guildId: text((d.command as Data).guild_id), channels: [] }),
  ApplicationCommandDeleted: (d) => ({ guildId: text((d.command as Data).guild_id), channels: [] }),
  VoiceChannelJoined: (d) => ({ guildId: text(d.guildId), channels: ids((d.state as Data).channel_id) }),
  VoiceChannelMoved: (d) => ({ guildId: text(d.guildId), channels: ids(d.fromChannelId, d.channelId) }),
};

/**
 * Types that are never part of a guild's stream though they carry its id: an interaction's delivery and tokens, and the
 * command side's bookkeeping (nonces, slowmode admissions), which say nothing an analyst asks about and name no channel
 * rules of their own.
 */
const NOT_ANALYTICS = new Set(['InteractionCreated', 'InteractionResponded', 'InteractionFailed', 'InteractionClicked', 'MessageNonceClaimed']);

/** The guild and channels of an event; guildId null for one that belongs to no guild's stream. */
export function placeOf(event: Pick<RecordedEvent, 'type' | 'data'>): EventPlace {
  const data = (event.data ?? {}) as Data;
  if (NOT_ANALYTICS.has(event.type)) return { guildId: null, channels: [] };
  const own = PLACES[event.type];
  if (own) return own(data);
  return { guildId: text(data.guildId), channels: ids(data.channelId) };
}

/** Fields of what a person wrote in a message: shown only where the reader may read the channel's history. */
const MESSAGE_TEXT = ['content', 'embeds', 'components', 'attachments'] as const;
const EXECUTION_TEXT = ['content', 'matchedKeyword', 'matchedContent'] as const;

/** Credentials some guild events carry as hashes or sealed: never handed out. */
const CREDENTIALS = ['tokenHash', 'sealedToken', 'previousTokenHash'] as const;

/** One event as the stream shows it. */
export interface GuildEvent {
  position: string;
  type: string;
  stream: string;
  time: string;
  actor_id: string | null;
  data: unknown;
  /** Present when a personal field's key is gone: that field is null. */
  erased?: true;
}

const nulled = (object: unknown, fields: readonly string[]): Data | undefined =>
  object && typeof object === 'object'
    ? { ...(object as Data), ...Object.fromEntries(fields.filter((f) => f in (object as Data)).map((f) => [f, null])) }
    : undefined;

/** The event's data as the reader may see it: no credentials, and no message text where they may not read history. */
function shownData(event: RecordedEvent, readsHistory: boolean): Data {
  const data: Data = { ...(event.data as Data) };
  for (const field of CREDENTIALS) delete data[field];
  if (readsHistory) return data;
  if (event.type === 'MessageCreated' || event.type === 'MessageEdited') {
    if (data.message) data.message = nulled(data.message, MESSAGE_TEXT);
    if (data.changes) data.changes = nulled(data.changes, MESSAGE_TEXT);
    if (data.removedAttachments) data.removedAttachments = null;
  }
  if (event.type === 'MessageDeleted' && data.attachments) data.attachments = null;
  if (event.type === 'AutoModerationActionExecuted') data.execution = nulled(data.execution, EXECUTION_TEXT);
  return data;
}

export function guildEventOf(event: RecordedEvent, data: unknown): GuildEvent {
  return {
    position: encodePosition(event.position),
    type: event.type,
    stream: event.streamId,
    time: event.metadata.createdAt,
    actor_id: event.metadata.actorId,
    data,
    ...((event as { erased?: boolean }).erased ? { erased: true as const } : {}),
  };
}

/** An event the reader may see, still sealed, and whether they may read what was written in its channels. */
interface Chosen {
  event: RecordedEvent;
  readsHistory: boolean;
}

/** A batch as it waits for the consumer: chosen, not yet opened. */
interface ChosenBatch {
  chosen: Chosen[];
  position: string | null;
  caughtUp: boolean;
}

/** What the reader may see in each channel: nothing, its events, or its events and what was written there. */
type Sight = 'none' | 'events' | 'text';

/** The reader's sight in the guild's channels as the guild stands now, threads looked up once per stream. */
class Sights {
  private readonly threads = new Map<string, Sight>();

  constructor(
    private readonly deps: Uses<'commands'>,
    private readonly readerId: string,
  ) {}

  async of(guild: GuildState, channelId: string): Promise<Sight> {
    const channel = guild.channels.get(channelId);
    if (channel) return sightOf(channelPermissions(guild, this.readerId, channel));
    let known = this.threads.get(channelId);
    if (known === undefined) {
      const thread = await loadThread(this.deps, channelId);
      known = thread.status === 'active' && thread.thread!.guild_id === guild.id ? sightOf(threadPermissionsOf(guild, thread, this.readerId)) : 'none';
      this.threads.set(channelId, known);
    }
    return known;
  }

  /** Permission overwrites and roles change: a thread's sight is worked out again from the guild of the next batch. */
  forget(): void {
    this.threads.clear();
  }
}

function sightOf(permissions: bigint): Sight {
  if (!hasPermission(permissions, Permission.VIEW_CHANNEL)) return 'none';
  return hasPermission(permissions, Permission.READ_MESSAGE_HISTORY) ? 'text' : 'events';
}

/** The streams one process serves at once, per reader and per guild: a stream holds a request and a log reader. */
export class StreamSlots {
  private readonly byUser = new Map<string, number>();
  private readonly byGuild = new Map<string, number>();

  constructor(readonly limits: { perUser: number; perGuild: number }) {}

  /** Takes a place for the reader's stream of the guild, or refuses for now; the returned function gives it back. */
  take(userId: string, guildId: string): () => void {
    const user = this.byUser.get(userId) ?? 0;
    const guild = this.byGuild.get(guildId) ?? 0;
    if (user >= this.limits.perUser || guild >= this.limits.perGuild) {
      const whose = user >= this.limits.perUser ? `${this.limits.perUser} per reader` : `${this.limits.perGuild} per guild`;
      throw new DomainError('rate_limited', 'RATE_LIMITED', `Too many event streams open at once (${whose}): close one, or try again later`, undefined, 5);
    }
    this.byUser.set(userId, user + 1);
    this.byGuild.set(guildId, guild + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      decrement(this.byUser, userId);
      decrement(this.byGuild, guildId);
    };
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** One step of a stream: the events shown, the position read up to (resume after it), and whether catch-up is over. */
export interface GuildEventBatch {
  events: GuildEvent[];
  position: string | null;
  caughtUp: boolean;
}

/** Why a stream ended before its reader let go: the reader lost VIEW_AUDIT_LOG or left the guild, or the guild is gone. */
export type StreamEnd = { reason: 'access_lost'; position: string | null };

export interface GuildEventStream {
  /** The next batch; null once the stream has ended (see `ended`). */
  next(): Promise<GuildEventBatch | null>;
  ended: StreamEnd | null;
  close(): Promise<void>;
}

export type GuildEventDeps = Uses<'commands' | 'clock'> & { guildEvents: { log: GuildEventLog; slots: StreamSlots } };

/** Who reads: a user (a person or a bot with the permission), or an OAuth2 application acting for one. */
export interface EventReader {
  userId: string;
  /** The OAuth2 application reading for `userId`, if any: what the user may read, through the scope they granted. */
  applicationId?: string;
}

/** Refuses a reader who may not read the guild's events. */
function requireReader(guild: GuildState, reader: EventReader): void {
  requireMember(guild, reader.userId);
  if (!hasPermission(guildPermissions(guild, reader.userId), Permission.VIEW_AUDIT_LOG))
    throw missingPermissions(reader.applicationId ? 'The user who authorized this application lacks VIEW_AUDIT_LOG in the guild' : undefined);
}

/**
 * Opens the reader's stream of the guild's events after `after` (from the start when null). Refused with the guild's
 * own refusals, MISSING_PERMISSIONS without VIEW_AUDIT_LOG, and RATE_LIMITED while the reader or the guild has as
 * many streams open as the limits allow.
 */
export async function openGuildEvents(deps: GuildEventDeps, reader: EventReader, guildId: string, after: Position | null): Promise<GuildEventStream> {
  requireReader(await loadGuild(deps, guildId), reader);
  const release = deps.guildEvents.slots.take(reader.userId, guildId);
  try {
    const head = await deps.guildEvents.log.head();
    return new FollowedGuild(deps, reader, guildId, after, head, release);
  } catch (error) {
    release();
    throw error;
  }
}

/** A subscription turned into batches the consumer pulls: the log is read no faster than they are taken. */
class FollowedGuild implements GuildEventStream {
  ended: StreamEnd | null = null;
  private readonly subscription: Subscription;
  private readonly sights: Sights;
  /** The batch waiting for `next`, and the subscription's handler waiting for it to be taken. */
  private waiting: { batch: ChosenBatch; taken: () => void } | null = null;
  private wanted: ((batch: ChosenBatch | null) => void) | null = null;
  private failure: unknown = null;
  private finished = false;
  private caughtUp: boolean;
  private announcedCaughtUp = false;
  private lastRead: Position | null;

  constructor(
    private readonly deps: GuildEventDeps,
    private readonly reader: EventReader,
    private readonly guildId: string,
    after: Position | null,
    private readonly head: Position | null,
    private readonly release: () => void,
  ) {
    this.lastRead = after;
    this.caughtUp = head === null || (after !== null && comparePositions(after, head) >= 0);
    this.sights = new Sights(deps, reader.userId);
    this.subscription = deps.guildEvents.log.follow(
      after,
      (event) => placeOf(event).guildId === guildId,
      (events, readUpTo) => this.offer(events, readUpTo),
      (error) => this.fail(error),
    );
  }

  private async offer(events: RecordedEvent[], readUpTo: Position): Promise<void> {
    if (this.finished) return;
    const chosen = await this.chosen(events);
    if (chosen === null) {
      this.end({ reason: 'access_lost', position: this.lastRead && encodePosition(this.lastRead) });
      return;
    }
    this.lastRead = readUpTo;
    if (!this.caughtUp && this.head && comparePositions(readUpTo, this.head) >= 0) this.caughtUp = true;
    // Nothing to hand on: no wait for the consumer, unless catch-up just ended, which the consumer must hear of.
    if (chosen.length === 0 && (this.announcedCaughtUp || !this.caughtUp)) return;
    await this.hand({ chosen, position: encodePosition(readUpTo), caughtUp: this.caughtUp });
  }

  /** The events the reader may see; null once they may not read the guild's events at all. */
  private async chosen(events: RecordedEvent[]): Promise<Chosen[] | null> {
    const guild = await loadGuildNow(this.deps, this.guildId);
    if (guild.status !== 'active' || !guild.members.has(this.reader.userId)) return null;
    if (!hasPermission(guildPermissions(guild, this.reader.userId), Permission.VIEW_AUDIT_LOG)) return null;
    this.sights.forget();
    const chosen: Chosen[] = [];
    for (const event of events) {
      const channels = placeOf(event).channels;
      let readsHistory = true;
      let visible = true;
      for (const channel of channels) {
        const sight = await this.sights.of(guild, channel);
        if (sight === 'none') visible = false;
        if (sight !== 'text') readsHistory = false;
      }
      if (visible) chosen.push({ event, readsHistory });
    }
    return chosen;
  }

  private hand(batch: ChosenBatch): Promise<void> {
    if (batch.caughtUp) this.announcedCaughtUp = true;
    const wanted = this.wanted;
    if (wanted) {
      this.wanted = null;
      wanted(batch);
      return Promise.resolve();
    }
    return new Promise((taken) => (this.waiting = { batch, taken }));
  }

  async next(): Promise<GuildEventBatch | null> {
    const batch = await this.nextChosen();
    return batch && { events: await this.opened(batch.chosen), position: batch.position, caughtUp: batch.caughtUp };
  }

  /**
   * The events as shown to the reader, opened only now that the consumer takes them to write: a key destroyed while
   * they waited (a message deleted) leaves its fields null.
   */
  private async opened(chosen: Chosen[]): Promise<GuildEvent[]> {
    if (chosen.length === 0) return [];
    const events = await this.deps.guildEvents.log.open(chosen.map((c) => c.event));
    return events.map((event, i) => guildEventOf(event, shownData(event, chosen[i].readsHistory)));
  }

  /** The next batch as chosen, taken from the subscription's handler, which then reads on. */
  private nextChosen(): Promise<ChosenBatch | null> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.finished) return Promise.resolve(null);
    // A stream opened at the head has nothing to catch up: it says so at once.
    if (this.caughtUp && !this.announcedCaughtUp && !this.waiting) {
      this.announcedCaughtUp = true;
      return Promise.resolve({ chosen: [], position: this.lastRead && encodePosition(this.lastRead), caughtUp: true });
    }
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = null;
      waiting.taken();
      return Promise.resolve(waiting.batch);
    }
    return new Promise((resolve, reject) => {
      this.wanted = (batch) => (this.failure ? reject(this.failure) : resolve(batch));
    });
  }

  private end(end: StreamEnd): void {
    this.ended = end;
    this.finish();
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.finish();
  }

  /** Lets a consumer waiting for a batch go with null (or the failure), and frees the reader's place. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.release();
    const wanted = this.wanted;
    this.wanted = null;
    wanted?.(null);
    this.waiting?.taken();
    this.waiting = null;
  }

  async close(): Promise<void> {
    this.finish();
    await this.subscription.stop();
  }
}
