// The time use cases stamp on what they decide (createdAt, editedAt, bannedAt, nonce windows): a port, so a spec
// fixes it instead of faking the process's Date.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The clock's time as the ISO 8601 string events carry. */
export const isoNow = (clock: Clock) => new Date(clock.now()).toISOString();
