import { describe, expect, it } from 'vitest';
import { cleanName, isBlank } from '../../domain/text.js';

describe('cleanName', () => {
  it('stores names NFC-normalized and trimmed', () => {
    expect(cleanName('  Cafe\u0301  ')).toEqual({ ok: true, value: 'Café' });
    expect(cleanName('Zoë 😀')).toEqual({ ok: true, value: 'Zoë 😀' });
  });

  it('refuses NUL and other control characters, and lone surrogates', () => {
    for (const raw of ['a\u0000b', 'tab\there', 'bell\u0007', 'c1\u0085x', 'del\u007f'])
      expect(cleanName(raw)).toMatchObject({ ok: false, message: expect.stringContaining('control') });
    expect(cleanName('half\uD83Dpair')).toMatchObject({ ok: false, message: expect.stringContaining('surrogate') });
  });

  it('refuses names that show nothing: whitespace, zero-width characters, Hangul fillers', () => {
    for (const raw of ['   ', '\u200B\u200B', ' \u200D\uFEFF ', '\u3164', '\u2060'])
      expect(cleanName(raw)).toMatchObject({ ok: false, message: 'Must contain visible characters' });
  });
});

describe('isBlank', () => {
  it('is true for text made only of whitespace and invisible characters', () => {
    expect(isBlank('')).toBe(true);
    expect(isBlank(' \n\t\u200B\u00AD')).toBe(true);
    expect(isBlank(' a ')).toBe(false);
    expect(isBlank('\u200Bx')).toBe(false);
  });
});
