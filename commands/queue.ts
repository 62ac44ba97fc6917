// Ordering work inside this process. Commands on one stream queue behind each other instead of racing for the same
// revision (commands/handle.ts); other keys name other queues (a user's call voice). A gate lets many holders in at
// once but none beside an exclusive one: sends to a channel run side by side, and a channel's deletion waits for those
// under way and holds back new ones until it is appended. Between processes the command handler's retry still decides.

/** Work queued under keys: each key's work runs one at a time, in arrival order. */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `run` after the earlier work under `key`, whether that succeeded or failed. */
  run<T>(key: string, run: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(run);
    this.tails.set(key, next);
    const forget = () => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    };
    next.then(forget, forget);
    return next;
  }
}

const queues = new KeyedQueue();

/** Runs `run` after this process's earlier work under the same key. */
export function queued<T>(key: string, run: () => Promise<T>): Promise<T> {
  return queues.run(key, run);
}

interface GateState {
  holders: number;
  /** The exclusive holder's work (and those queued behind it), while there is one. */
  exclusive: Promise<unknown> | null;
  /** Called when the last shared holder leaves, for an exclusive one waiting on them. */
  drained: (() => void) | null;
}

const gates = new Map<string, GateState>();

function gate(key: string): GateState {
  let state = gates.get(key);
  if (!state) gates.set(key, (state = { holders: 0, exclusive: null, drained: null }));
  return state;
}

function forgetIfIdle(key: string, state: GateState): void {
  if (state.holders === 0 && state.exclusive === null && gates.get(key) === state) gates.delete(key);
}

/** Runs `run` beside other shared holders of `key`, never beside an exclusive one (it waits for that to finish). */
export async function shared<T>(key: string, run: () => Promise<T>): Promise<T> {
  let state = gate(key);
  while (state.exclusive) {
    await state.exclusive.catch(() => undefined);
    state = gate(key);
  }
  state.holders += 1;
  try {
    return await run();
  } finally {
    state.holders -= 1;
    if (state.holders === 0) state.drained?.();
    forgetIfIdle(key, state);
  }
}

/** Runs `run` alone under `key`: after the shared holders under way have left, with new ones held back until it ends. */
export function exclusive<T>(key: string, run: () => Promise<T>): Promise<T> {
  return queues.run(`exclusive:${key}`, async () => {
    const state = gate(key);
    let release!: () => void;
    state.exclusive = new Promise<void>((resolve) => (release = resolve));
    try {
      if (state.holders > 0) await new Promise<void>((resolve) => (state.drained = resolve));
      state.drained = null;
      return await run();
    } finally {
      state.exclusive = null;
      release();
      forgetIfIdle(key, state);
    }
  });
}

/** The gate a channel's sends pass through shared, and its deletion (or its guild's) exclusive. */
export const channelSendsGate = (channelId: string) => `channel-sends-${channelId}`;

/** Runs `run` holding every key exclusively, taken in one order so that two holders of several keys never deadlock. */
export function exclusiveAll<T>(keys: string[], run: () => Promise<T>): Promise<T> {
  return [...new Set(keys)].sort().reduceRight<() => Promise<T>>((inner, key) => () => exclusive(key, inner), run)();
}
