// Times as the API presents them: one form for every response, since its clients parse it strictly.

/**
 * A time (stored ISO 8601, or epoch milliseconds) as the widely used API sends it: ISO 8601 with microseconds and
 * `+00:00`. Its clients depend on the form: discord.py reads timestamps with datetime.fromisoformat, which before
 * Python 3.11 refuses the `Z` of toISOString. Every presented timestamp goes through here; stored data keeps its form.
 */
export function apiTimestamp(time: string | number): string;
export function apiTimestamp(time: string | number | null): string | null;
export function apiTimestamp(time: string | number | null): string | null {
  return time === null ? null : new Date(time).toISOString().replace('Z', '000+00:00');
}
