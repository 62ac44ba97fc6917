// A guild as it was at a moment of its log: the guild decider's own evolve, folded over the guild stream's events as
// they were recorded, with what the structure needs from their metadata (a ban's reason). Pure: the caller reads the
// events and decides where to stop.
import { type GuildEvent, guildDecider } from './guild.js';
import type { GuildState } from './guildState.js';

/** One event of a guild's stream, with the metadata history and rollbacks read. */
export interface GuildLogEvent {
  /** The event's id in the log: what a compensating event names as its cause. */
  id: string;
  event: GuildEvent;
  actorId: string | null;
  reason: string | null;
  /** The id of the event this one compensates (a rollback's), when any. */
  causationId?: string;
  /** ISO 8601. */
  at: string;
}

export interface GuildAt {
  state: GuildState;
  /** By banned user: the ban's audit-log reason. */
  banReasons: ReadonlyMap<string, string | null>;
}

export const initialGuildAt = (): GuildAt => ({ state: guildDecider.initialState(), banReasons: new Map() });

export function evolveGuildAt(current: GuildAt, logged: GuildLogEvent): GuildAt {
  const state = guildDecider.evolve(current.state, logged.event);
  if (logged.event.type === 'MemberBanned') return { state, banReasons: new Map(current.banReasons).set(logged.event.data.userId, logged.reason) };
  if (logged.event.type === 'MemberUnbanned') {
    const banReasons = new Map(current.banReasons);
    banReasons.delete(logged.event.data.userId);
    return { state, banReasons };
  }
  return { state, banReasons: current.banReasons };
}

export const foldGuildAt = (events: readonly GuildLogEvent[]): GuildAt => events.reduce(evolveGuildAt, initialGuildAt());
