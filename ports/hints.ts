// Hints are real-time signals that are not durable state (the spec's typing indicator, presences): never written to
// the log, only relayed to the gateway nodes. In the embedded runtime they travel in-process; with BUS=kafka over a
// topic of their own.
export type TypingHint = {
  type: 'TYPING_START';
  channelId: string;
  guildId: string | null;
  userId: string;
  timestamp: number;
  /** For DM and group DM channels: who receives the hint. */
  recipientIds?: string[];
};

/** What others see of a user's presence on one gateway node, announced on each change and re-announced periodically. */
export type PresenceHint = {
  type: 'PRESENCE_UPDATE';
  /** The gateway node whose sessions the presence is of. */
  node: string;
  userId: string;
  /** 'offline' once the user has no session there that others can see. */
  status: 'online' | 'idle' | 'dnd' | 'offline';
  /** Activity objects as the gateway relays them. */
  activities: Record<string, unknown>[];
  /** When the user set this presence: of the nodes' presences, the latest set is the user's. */
  setAt: number;
  /**
   * Whether the user has a session on the node at all, an invisible one included. Nodes from before this field leave
   * it out: read it then as `status !== 'offline'`.
   */
  connected?: boolean;
  timestamp: number;
};

export type Hint = TypingHint | PresenceHint;

/** Hints of one channel (typing) or of one user (presence) stay in order on a Kafka partition. */
export const hintKey = (hint: Hint) => (hint.type === 'TYPING_START' ? hint.channelId : hint.userId);

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

/** A hint older than this when it arrives is dropped: a typing indicator means nothing seconds later, and a presence is announced again. */
export const HINT_MAX_AGE_MS = 10_000;

const isString = (value: unknown) => typeof value === 'string';

function valid(hint: Partial<TypingHint> | Partial<PresenceHint>): boolean {
  if (hint.type === 'TYPING_START') {
    return (
      isString(hint.channelId) &&
      isString(hint.userId) &&
      (isString(hint.guildId) || hint.guildId === null) &&
      (hint.recipientIds === undefined || (Array.isArray(hint.recipientIds) && hint.recipientIds.every(isString)))
    );
  }
  return (
    hint.type === 'PRESENCE_UPDATE' &&
    isString(hint.node) &&
    isString(hint.userId) &&
    ['online', 'idle', 'dnd', 'offline'].includes(hint.status as string) &&
    Array.isArray(hint.activities) &&
    hint.activities.every((activity) => typeof activity === 'object' && activity !== null && !Array.isArray(activity)) &&
    typeof hint.setAt === 'number' &&
    (hint.connected === undefined || typeof hint.connected === 'boolean')
  );
}

/** A hint read from another process, or null for anything that is not one (or is stale). */
export function parseHint(text: string, now: number): Hint | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const hint = value as Partial<Hint> | null;
  if (typeof hint !== 'object' || hint === null || typeof hint.timestamp !== 'number' || !valid(hint)) return null;
  return now - hint.timestamp <= HINT_MAX_AGE_MS ? (hint as Hint) : null;
}
