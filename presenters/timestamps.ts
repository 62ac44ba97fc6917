// Times as the API presents them: one form for every response, since its clients parse it strictly.

/** What Date.prototype.toISOString gives for the years 0 to 9999. */
const ISO_STRING = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * A time (stored ISO 8601, or epoch milliseconds) as the widely used API sends it: ISO 8601 with microseconds and
 * `+00:00`. Its clients depend on the form: discord.py reads timestamps with datetime.fromisoformat, which before
 * Python 3.11 refuses the `Z` of toISOString. Every presented timestamp goes through here; stored data keeps its form.
 */
export function apiTimestamp(time: string | number): string;
export function apiTimestamp(time: string | number | null): string | null;
export function apiTimestamp(time: string | number | null): string | null {
  if (time === null) return null;
  // Stored times are toISOString's own form, which a Date would only give back: taken as they are (a Date's parse and
  // format cost a send about a microsecond each time, and a send presents its message twice: answer and dispatch).
  if (typeof time === 'string' && ISO_STRING.test(time)) return `${time.slice(0, -1)}000+00:00`;
  return new Date(time).toISOString().replace('Z', '000+00:00');
}
