// Names people type (usernames, nicknames, guild, channel and role names) as the widely used API takes them: stored
// NFC-normalized and trimmed, refused when they hold control characters, NUL or lone surrogates, and refused when
// nothing is left once whitespace and invisible characters are removed, so no one can be named "" in disguise.

/** With the u flag a surrogate pair is one code point: what still matches is half of a pair. */
const LONE_SURROGATE = /\p{Cs}/u;
/** C0 and C1 control characters (NUL among them) and DEL. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;
/**
 * A character that shows: anything but whitespace and the characters that render as nothing (zero-width spaces and
 * joiners, word joiner, BOM, soft hyphen, Hangul fillers).
 */
const VISIBLE = /[^\s\u00AD\u034F\u115F\u1160\u180E\u200B-\u200F\u2028-\u202F\u205F-\u206F\u3164\uFEFF\uFFA0]/u;

/** True when `text` shows nothing: empty, or only whitespace and invisible characters. Stops at the first that shows. */
export const isBlank = (text: string) => !VISIBLE.test(text);

export type CleanName = { ok: true; value: string } | { ok: false; message: string };

/** The name as stored, or why it is refused. */
export function cleanName(raw: string): CleanName {
  if (LONE_SURROGATE.test(raw)) return { ok: false, message: 'Must not contain unpaired surrogates' };
  if (CONTROL.test(raw)) return { ok: false, message: 'Must not contain control characters' };
  const value = raw.normalize('NFC').trim();
  if (isBlank(value)) return { ok: false, message: 'Must contain visible characters' };
  return { ok: true, value };
}
