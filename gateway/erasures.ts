// What a RESUME must not replay: dispatches buffered before an erasure (a message deleted or edited, its channel,
// thread or guild deleted, a group DM ended, an account deleted) show fields whose keys are now destroyed (domain/personalData.ts). Each buffered
// dispatch is marked, once for all its recipients, with the subjects its payload shows; the gateway records the
// subjects erased since; a RESUME replays the dispatches whole, in order, with their sequence numbers, but with the
// erased fields blanked (a message's text empty, a deleted thread's or ended group DM's name null, a deleted account
// shown as Deleted User). Only the dispatches of a subject erased after them are opened again, and the record forgets
// an erasure once no buffer holds a dispatch older than it.
import { DELETED_USER } from '../projections/users.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const isMessage = (o: Json) => typeof o.id === 'string' && typeof o.channel_id === 'string' && typeof o.content === 'string' && isObject(o.author);
const isUser = (o: Json) => typeof o.id === 'string' && typeof o.username === 'string';
/** Channel types whose name a person gave, sealed under the channel's key: a group DM (3) and threads and posts (10–12). */
const NAMED_BY_PEOPLE: ReadonlySet<unknown> = new Set([3, 10, 11, 12]);
/** A group DM or a thread (a post among them) as a channel object shows it, its name included. */
const isNamedPlace = (o: Json) => typeof o.id === 'string' && NAMED_BY_PEOPLE.has(o.type) && 'name' in o;

/** Every object in a payload with the guild it is in (its own guild_id, or the nearest enclosing one's). */
function visit(value: unknown, guildId: string | null, each: (o: Json, guildId: string | null) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, guildId, each);
    return;
  }
  if (!isObject(value)) return;
  const inGuild = typeof value.guild_id === 'string' ? value.guild_id : guildId;
  each(value, inGuild);
  for (const key in value) visit(value[key], inGuild, each);
}

function messageSubjects(message: Json, guildId: string | null): string[] {
  return [`message:${message.id as string}`, `channel:${message.channel_id as string}`, ...(guildId ? [`guild:${guildId}`] : [])];
}

/** A thread's name is sealed under its channel's and its guild's keys (domain/personalData.ts), a group DM's its channel's. */
function placeSubjects(place: Json, guildId: string | null): string[] {
  return [`channel:${place.id as string}`, ...(guildId ? [`guild:${guildId}`] : [])];
}

export const NO_SUBJECTS: readonly string[] = [];

/**
 * The subjects whose keys seal fields a payload shows: its messages (with their channels and guilds), its users, and
 * its threads and group DMs (their names).
 */
export function subjectsOf(d: unknown): readonly string[] {
  const subjects = new Set<string>();
  visit(d, null, (o, guildId) => {
    if (isMessage(o)) for (const subject of messageSubjects(o, guildId)) subjects.add(subject);
    else if (isUser(o)) subjects.add(`user:${o.id as string}`);
    else if (isNamedPlace(o)) for (const subject of placeSubjects(o, guildId)) subjects.add(subject);
  });
  return subjects.size ? [...subjects] : NO_SUBJECTS;
}

/** Blanks what a message's author wrote, and a webhook's per-message name and avatar. */
function blankText(message: Json): void {
  Object.assign(message, { content: '', embeds: [], attachments: [], components: [] });
  if (message.webhook_id && isObject(message.author)) Object.assign(message.author, { username: DELETED_USER.username, global_name: null, avatar: null });
}

/**
 * The payload with the fields of the erased subjects blanked: messages' text, the names of threads and group DMs (null,
 * as the log reads a destroyed name), and deleted users shown as Deleted User.
 */
function scrub(d: unknown, erased: ReadonlySet<string>): unknown {
  visit(d, null, (o, guildId) => {
    if (isMessage(o)) {
      if (messageSubjects(o, guildId).some((subject) => erased.has(subject))) blankText(o);
    } else if (isUser(o) && erased.has(`user:${o.id as string}`)) {
      Object.assign(o, DELETED_USER);
      for (const key of ['global_name', 'banner', 'avatar_decoration_data']) if (key in o) o[key] = null;
    } else if (isNamedPlace(o)) {
      if (placeSubjects(o, guildId).some((subject) => erased.has(subject))) o.name = null;
    } else if (isObject(o.user) && erased.has(`user:${o.user.id as string}`) && 'nick' in o) {
      // A member: its nickname and guild avatar are its user's.
      for (const key of ['nick', 'avatar', 'banner']) if (key in o) o[key] = null;
    }
  });
  return d;
}

/** A buffered dispatch as the erasure record reads it. */
export interface Marked {
  /** The payload, serialized once for all its recipients. */
  d: string;
  subjects: readonly string[];
  /** The record's mark when it was buffered: the erasures after it apply. */
  mark: number;
}

export class ErasedSubjects {
  private count = 0;
  /** By subject, the mark of its last erasure; in the order of those marks. */
  private readonly last = new Map<string, number>();

  get mark(): number {
    return this.count;
  }

  get size(): number {
    return this.last.size;
  }

  erase(subject: string): void {
    this.count += 1;
    this.last.delete(subject);
    this.last.set(subject, this.count);
  }

  /** The dispatch's payload as it may be replayed now. */
  replayable(entry: Marked): string {
    if (!this.erasedSince(entry)) return entry.d;
    const erased = new Set(entry.subjects.filter((subject) => this.erasedAfter(subject, entry.mark)));
    return JSON.stringify(scrub(JSON.parse(entry.d), erased));
  }

  /** Whether a subject the dispatch shows was erased after it was buffered (looked up without building anything). */
  private erasedSince(entry: Marked): boolean {
    if (entry.mark === this.count) return false;
    for (let i = 0; i < entry.subjects.length; i++) if (this.erasedAfter(entry.subjects[i], entry.mark)) return true;
    return false;
  }

  private erasedAfter(subject: string, mark: number): boolean {
    return (this.last.get(subject) ?? 0) > mark;
  }

  /** Forgets the erasures that no dispatch still buffered predates: `oldest` is the mark of the oldest. */
  forgetUpTo(oldest: number): void {
    for (const [subject, mark] of this.last) {
      if (mark > oldest) break;
      this.last.delete(subject);
    }
  }
}
