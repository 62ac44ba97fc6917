// Hints are real-time signals that are not state (the spec's typing indicator): never written to the log, only
// relayed to the gateway. In the embedded runtime they travel in-process; with BUS=kafka over a topic of their own.
export type Hint = {
  type: 'TYPING_START';
  channelId: string;
  guildId: string | null;
  userId: string;
  timestamp: number;
  /** For DM and group DM channels: who receives the hint. */
  recipientIds?: string[];
};

export interface HintBus {
  publish(hint: Hint): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (hint: Hint) => void): () => void;
}

export class LocalHintBus implements HintBus {
  private readonly listeners = new Set<(hint: Hint) => void>();

  publish(hint: Hint): void {
    for (const listener of this.listeners) listener(hint);
  }

  subscribe(listener: (hint: Hint) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A hint older than this when it arrives is dropped: a typing indicator means nothing seconds later. */
export const HINT_MAX_AGE_MS = 10_000;

/** A hint read from another process, or null for anything that is not one (or is stale). */
export function parseHint(text: string, now: number): Hint | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const hint = value as Partial<Hint> | null;
  const valid =
    hint?.type === 'TYPING_START' &&
    typeof hint.channelId === 'string' &&
    typeof hint.userId === 'string' &&
    (typeof hint.guildId === 'string' || hint.guildId === null) &&
    typeof hint.timestamp === 'number' &&
    (hint.recipientIds === undefined || (Array.isArray(hint.recipientIds) && hint.recipientIds.every((id) => typeof id === 'string')));
  return valid && now - hint.timestamp! <= HINT_MAX_AGE_MS ? (hint as Hint) : null;
}
