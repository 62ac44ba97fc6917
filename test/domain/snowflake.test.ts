import { describe, expect, it } from 'vitest';
import {
  SERVICE_EPOCH,
  SnowflakeGenerator,
  compareSnowflakes,
  isSnowflake,
  parseJsonKeepingIds,
  snowflakeAt,
  snowflakeSortKey,
  snowflakeTimestamp,
} from '../../domain/snowflake.js';

describe('snowflakes', () => {
  it('packs time, worker, process and sequence as the spec table', () => {
    const now = 1_700_000_000_123;
    const ids = new SnowflakeGenerator({ workerId: 3, processId: 17, clock: () => now });
    const first = BigInt(ids.next());
    const second = BigInt(ids.next());
    expect(first >> 22n).toBe(BigInt(now) - SERVICE_EPOCH);
    expect((first >> 17n) & 0x1fn).toBe(3n);
    expect((first >> 12n) & 0x1fn).toBe(17n);
    expect(first & 0xfffn).toBe(0n);
    expect(second & 0xfffn).toBe(1n);
    expect(snowflakeTimestamp(first.toString())).toBe(now);
  });

  it('stays monotonic when the clock steps back and when a millisecond runs out of sequence', () => {
    let now = 1_700_000_000_000;
    const ids = new SnowflakeGenerator({ workerId: 0, processId: 0, clock: () => now });
    const seen: string[] = [ids.next()];
    now -= 5_000;
    for (let i = 0; i < 5000; i++) seen.push(ids.next());
    for (let i = 1; i < seen.length; i++) expect(compareSnowflakes(seen[i - 1], seen[i])).toBe(-1);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('refuses worker and process ids outside 5 bits', () => {
    expect(() => new SnowflakeGenerator({ workerId: 32, processId: 0 })).toThrow(RangeError);
    expect(() => new SnowflakeGenerator({ workerId: 0, processId: -1 })).toThrow(RangeError);
  });

  it('makes a snowflake for a time, and sort keys that order like numbers', () => {
    expect(snowflakeAt(Number(SERVICE_EPOCH) + 1)).toBe((1n << 22n).toString());
    expect(snowflakeAt(0)).toBe('0');
    expect(isSnowflake('18446744073709551615')).toBe(true);
    expect(isSnowflake('18446744073709551616')).toBe(false);
    expect(isSnowflake('12a')).toBe(false);
    const id = new SnowflakeGenerator({ workerId: 0, processId: 0 }).next();
    expect(snowflakeSortKey('0') < snowflakeSortKey(id)).toBe(true);
    expect(snowflakeSortKey('99999999999999999999') > snowflakeSortKey(id)).toBe(true);
  });
});

describe('parseJsonKeepingIds', () => {
  it('reads integers past 2^53 as their exact decimal strings, digits inside strings and small numbers as they are', () => {
    expect(parseJsonKeepingIds('{"id": 1574265860443340801, "s": "1574265860443340801", "n": 12, "f": -3.5e2}')).toEqual({
      id: '1574265860443340801',
      s: '1574265860443340801',
      n: 12,
      f: -350,
    });
  });

  it('keeps an id a double holds exactly, whose digits are also the double print (low 22 bits zero)', () => {
    expect(String(Number('1574265860443340800'))).toBe('1574265860443340800');
    expect(parseJsonKeepingIds('[1574265860443340800, 1152921504606846976]')).toEqual(['1574265860443340800', '1152921504606846976']);
  });

  it('leaves a number that is only the print of a rounded double (2 ** 60 as 1152921504606847000) for the schemas to refuse', () => {
    expect(parseJsonKeepingIds('{"permissions": 1152921504606847000}')).toEqual({ permissions: 2 ** 60 });
  });

  it('throws as JSON.parse does on text that is not JSON', () => {
    expect(() => parseJsonKeepingIds('{"a": 12345678901234567890')).toThrow(SyntaxError);
  });
});
