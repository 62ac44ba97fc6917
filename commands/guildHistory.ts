// The guild as it was at a moment, and what changed between two: folded from the guild's stream in the log as it was
// recorded, never from the read models (which hold only the present). The cost is bounded by folding at most
// MAX_FOLDED_EVENTS events of the guild's stream (the command side folds the same stream, whole, to decide anything):
// a guild whose stream is longer is refused with 400 rather than folded slowly.
import { invalidForm } from '../domain/errors.js';
import type { GuildEvent } from '../domain/guild.js';
import { type GuildAt, type GuildLogEvent, foldGuildAt } from '../domain/guildHistory.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import { type EventStore, type Position, type RecordedEvent, comparePositions } from '../ports/eventStore.js';
import { type AuditEntryDoc, auditEntryOf } from '../projections/auditLog.js';
import { guildAccess } from './access.js';
import type { Uses } from './deps.js';
import { guildStream } from './streams.js';

export const MAX_FOLDED_EVENTS = 100_000;

/** A moment of the log: a time (ISO 8601), or a position in it. */
export type Moment = { time: string } | { position: Position };

/** What reading a guild's history takes: the command side for the access check, and the log itself. */
export type HistoryDeps = Uses<'commands' | 'clock'> & { store: Pick<EventStore, 'readStream'> };

export const loggedEvent = (e: RecordedEvent): GuildLogEvent => ({
  id: e.id,
  event: { type: e.type, data: e.data } as GuildEvent,
  actorId: e.metadata.actorId,
  reason: e.metadata.reason ?? null,
  ...(e.metadata.causationId ? { causationId: e.metadata.causationId } : {}),
  at: e.metadata.createdAt,
});

/** The guild's stream, whole, or 400 when it is longer than a fold may be (`path`: the field that asked for it). */
export async function readGuildLog(deps: Pick<HistoryDeps, 'store'>, guildId: string, path: string): Promise<RecordedEvent[]> {
  const events = await deps.store.readStream(guildStream(guildId), { maxCount: MAX_FOLDED_EVENTS + 1 });
  if (events.length > MAX_FOLDED_EVENTS)
    throw invalidForm([{ path, message: `The guild's log is longer than ${MAX_FOLDED_EVENTS} events: its history is not folded` }]);
  return events;
}

export const atOrBefore = (moment: Moment) => (e: RecordedEvent) =>
  'time' in moment ? Date.parse(e.metadata.createdAt) <= Date.parse(moment.time) : comparePositions(e.position, moment.position) <= 0;

async function requireAuditLogViewer(deps: HistoryDeps, guildId: string, userId: string) {
  const { permissions } = await guildAccess(deps, guildId, userId);
  requirePermission(permissions, Permission.VIEW_AUDIT_LOG);
}

export interface GuildThen extends GuildAt {
  /** The last event folded, which says when and where in the log the state is from. */
  last: RecordedEvent;
}

/** The guild as it was at `moment`; 400 when it did not exist yet. VIEW_AUDIT_LOG. */
export async function guildAsAt(deps: HistoryDeps, userId: string, guildId: string, moment: Moment, path = 'at'): Promise<GuildThen> {
  await requireAuditLogViewer(deps, guildId, userId);
  return foldUntil(await readGuildLog(deps, guildId, path), moment, path);
}

function foldUntil(events: RecordedEvent[], moment: Moment, path: string): GuildThen {
  const then = events.filter(atOrBefore(moment));
  if (!then.length) throw invalidForm([{ path, message: 'The guild did not exist yet then' }]);
  return { ...foldGuildAt(then.map(loggedEvent)), last: then[then.length - 1] };
}

export interface GuildChanges {
  /** The moment `from` stands for: the one asked for, or the guild's creation when that was before it. */
  fromMoment: Moment;
  from: GuildThen;
  to: GuildThen;
  /** The audit log's entries of the events between the two moments (after `from`, up to `to`), oldest first. */
  entries: AuditEntryDoc[];
}

/**
 * What changed in the guild's structure between two moments, as its audit log words it; a `from` before the guild is
 * its creation (`from` answers the moment used). VIEW_AUDIT_LOG.
 */
export async function guildChangesBetween(deps: HistoryDeps, userId: string, guildId: string, from: Moment, to: Moment): Promise<GuildChanges> {
  await requireAuditLogViewer(deps, guildId, userId);
  const events = await readGuildLog(deps, guildId, 'from');
  const fromMoment = events.length && !atOrBefore(from)(events[0]) ? { position: events[0].position } : from;
  const [then, now] = [foldUntil(events, fromMoment, 'from'), foldUntil(events, to, 'to')];
  if (comparePositions(then.last.position, now.last.position) > 0) throw invalidForm([{ path: 'to', message: 'Must not be before from' }]);
  const between = events.filter((e) => comparePositions(e.position, then.last.position) > 0 && comparePositions(e.position, now.last.position) <= 0);
  return { from: then, fromMoment, to: now, entries: between.flatMap((e) => auditEntryOf(e) ?? []) };
}
