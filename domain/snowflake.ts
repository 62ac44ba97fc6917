// Snowflake ids as the spec's table: 42-bit ms since the service epoch, 5-bit worker, 5-bit process, 12-bit sequence.
export const SERVICE_EPOCH = 1420070400000n;
const MAX_SEQUENCE = 0xfffn;
/** Ids are 64-bit unsigned integers. */
export const MAX_SNOWFLAKE = (1n << 64n) - 1n;

export interface SnowflakeOptions {
  workerId: number;
  processId: number;
  clock?: () => number;
}

export class SnowflakeGenerator {
  private readonly workerId: bigint;
  private readonly processId: bigint;
  private readonly clock: () => number;
  private lastMs = -1n;
  private sequence = 0n;

  constructor({ workerId, processId, clock = Date.now }: SnowflakeOptions) {
    for (const [name, value] of [
      ['workerId', workerId],
      ['processId', processId],
    ] as const) {
      if (!Number.isInteger(value) || value < 0 || value > 31) throw new RangeError(`${name} must be an integer 0-31, got ${value}`);
    }
    this.workerId = BigInt(workerId);
    this.processId = BigInt(processId);
    this.clock = clock;
  }

  next(): string {
    let ms = BigInt(Math.floor(this.clock())) - SERVICE_EPOCH;
    // A clock that steps back must not produce an id lower than one already given out:
    // keep counting on the last millisecond, borrowing the next one when its sequence is spent.
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.sequence = (this.sequence + 1n) & MAX_SEQUENCE;
      if (this.sequence === 0n) ms = this.lastMs + 1n;
    } else {
      this.sequence = 0n;
    }
    this.lastMs = ms;
    return ((ms << 22n) | (this.workerId << 17n) | (this.processId << 12n) | this.sequence).toString();
  }
}

export function isSnowflake(value: string): boolean {
  return /^\d{1,20}$/.test(value) && BigInt(value) <= MAX_SNOWFLAKE;
}

export function snowflakeTimestamp(id: string): number {
  return Number((BigInt(id) >> 22n) + SERVICE_EPOCH);
}

export function snowflakeAt(timeMs: number): string {
  const ms = BigInt(Math.floor(timeMs)) - SERVICE_EPOCH;
  return (ms > 0n ? ms << 22n : 0n).toString();
}

/** Numeric order of two snowflakes given as decimal strings. */
export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Ids are stored as decimal strings and the read stores compare strings; every id this service makes between
 * 2015 and 2044 has 19 digits. Pagination bounds from clients are brought to the same width so string order is
 * numeric order ("0" is the beginning of time; anything wider than 19 digits is past every stored id).
 */
export function snowflakeSortKey(id: string): string {
  return id.length > 19 ? '9'.repeat(19) : id.padStart(19, '0');
}

/** A JSON string token, or a number token: an integer (captured) or one with a fraction or an exponent. */
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|(-?\d+)(?![.eE\d])|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * JSON.parse for text from clients, except that integers past 2^53 become their decimal strings, so ids stay exact.
 * Clients such as discord.py send ids as JSON numbers (a reply's message_reference, member roles, REQUEST_GUILD_MEMBERS'
 * guild_id and user_ids); every id is past 2^53, where JSON.parse would round it to another id. An integer spelled as a
 * double prints but not exactly the double's value (1152921504606847000 for 2 ** 60) may be one its sender already
 * rounded, so it stays a number for the schemas to refuse rather than be read as a value nobody meant (for a bitfield,
 * with low bits set). One the double holds exactly (a snowflake whose low 22 bits are zero, 1574265860443340800) is
 * the sender's exact value either way. Throws as
 * JSON.parse does on text that is not JSON.
 */
export function parseJsonKeepingIds(text: string): unknown {
  const value: unknown = JSON.parse(text);
  // An integer past 2^53 has at least 16 digits: text without such a run, most of it, is parsed once. Only valid JSON
  // is scanned: there every quote the scan meets opens a string that closes, which keeps the scan linear.
  if (!/\d{16}/.test(text)) return value;
  return JSON.parse(
    text.replace(STRING_OR_NUMBER, (token, integer: string | undefined) => {
      if (!integer || Number.isSafeInteger(Number(integer))) return token;
      if (String(Number(integer)) === integer && BigInt(Number(integer)) !== BigInt(integer)) return token;
      return `"${integer}"`;
    }),
  );
}
