// What command functions need from the running service, whatever engines are behind it. Each use case names the
// ports it uses (`Uses<'commands' | 'settle'>`), so a caller or a spec hands it those and nothing else.
import type { SnowflakeGenerator } from '../domain/snowflake.js';
import type { BlobStore } from '../ports/blobs.js';
import { type Clock, isoNow } from '../ports/clock.js';
import { type EventMetadata, type Position, comparePositions } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import type { SecretBox } from '../ports/secrets.js';
import type { CommandHandler } from './handle.js';

export interface CommandDeps {
  commands: CommandHandler;
  ids: SnowflakeGenerator;
  readStore: ReadStore;
  blobs: BlobStore;
  /** Seals credentials the service must read back (webhook tokens) before they enter the log. */
  secrets: SecretBox;
  clock: Clock;
  /** Waits until the read models reflect the log up to `position`, so a client reads its own writes. */
  settle(position: Position | null): Promise<void>;
  /**
   * Waits until what the log erased up to `position` is gone: the files it let go of (deleted messages', dropped
   * attachments') have left the blob store and the keys of erased subjects are destroyed, where this process removes
   * and destroys them (processes/attachmentRemoval.ts, processes/keyShredding.ts); elsewhere it returns at once.
   */
  settleFiles(position: Position | null): Promise<void>;
}

/** The ports one use case takes. */
export type Uses<K extends keyof CommandDeps> = Pick<CommandDeps, K>;

/** Who asked, and why: carried on every event a request appends. */
export type RequestMeta = Omit<EventMetadata, 'createdAt'>;
/** A request's metadata with the authenticated actor. */
export type ActorMeta = RequestMeta & { actorId: string };

export function metadata(meta: RequestMeta, clock: Clock): EventMetadata {
  return { ...meta, createdAt: isoNow(clock) };
}

/** The service's own doing, not a request's (creating a missing key, failing an interaction, archiving an idle thread). */
export const serviceMeta = (deps: Uses<'clock'>) => metadata({ actorId: null, reason: null }, deps.clock);

/** settle, and the files the log let go of up to `position` gone too: what a command that drops files answers after. */
export async function settleWithFiles(deps: Uses<'settle' | 'settleFiles'>, position: Position | null): Promise<void> {
  await Promise.all([deps.settle(position), deps.settleFiles(position)]);
}

/** The latest of several append positions (null entries are commands that appended nothing). */
export function lastPosition(...positions: (Position | null)[]): Position | null {
  return positions.reduce<Position | null>((last, p) => (p && (!last || comparePositions(p, last) > 0) ? p : last), null);
}
