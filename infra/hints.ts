// Hints are real-time signals that are not state (the spec's typing indicator): never written to the log, only
// relayed to the gateway. In the embedded runtime they travel in-process.
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
