// Keyword matching against the widely used API's keyword matching strategies (its documented examples, in any case
// and any surrounding text), the keyword automaton against a plain scan of every keyword, and the folding that makes
// text which only looks different (decomposed, another case, invisible characters) match alike.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeywordMatcher, REGEX_FLAGS, foldText, isSpam, parseKeyword, regexSource, spamText, writtenSpan } from '../../domain/autoModerationMatch.js';

/** The documented examples: keyword, then content it matches with the matched part. */
const DOCUMENTED: [string, string, string][] = [
  // Prefix: the word must start with the keyword.
  ['cat*', 'catch', 'catch'],
  ['cat*', 'Catapult', 'Catapult'],
  ['cat*', 'CAttLE', 'CAttLE'],
  ['tra*', 'train', 'train'],
  ['tra*', 'trade', 'trade'],
  ['tra*', 'TRAditional', 'TRAditional'],
  ['the mat*', 'the matrix', 'the matrix'],
  // Suffix: the word must end with the keyword.
  ['*cat', 'wildcat', 'wildcat'],
  ['*cat', 'copyCat', 'copyCat'],
  ['*tra', 'extra', 'extra'],
  ['*tra', 'ultra', 'ultra'],
  ['*tra', 'orchesTRA', 'orchesTRA'],
  ['*the mat', 'breathe mat', 'breathe mat'],
  // Anywhere.
  ['*cat*', 'location', 'location'],
  ['*cat*', 'eduCation', 'eduCation'],
  ['*tra*', 'abstracted', 'abstracted'],
  ['*tra*', 'outrage', 'outrage'],
  ['*the mat*', 'breathe matter', 'breathe matter'],
  // Whole word.
  ['cat', 'cat', 'cat'],
  ['train', 'train', 'train'],
  ['the mat', 'the mat', 'the mat'],
];

const first = (keywords: string[], content: string) => new KeywordMatcher(keywords).matches(foldText(content))[0];

/** Text around a word that keeps it a word: empty, or starting / ending with a separator. */
const separated = (side: 'before' | 'after') =>
  fc.oneof(
    fc.constant(''),
    fc
      .tuple(fc.stringMatching(/^[a-z ]{0,8}$/), fc.constantFrom(' ', '.', ',', '!', '\n'))
      .map(([text, separator]) => (side === 'before' ? `${text}${separator}` : `${separator}${text}`)),
  );
const anyCase = (text: string) =>
  fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

describe('keyword matching strategies', () => {
  it('matches every documented example, in any case, wherever the word stands', () => {
    for (const [keyword, word, matched] of DOCUMENTED) {
      fc.assert(
        fc.property(separated('before'), anyCase(word), separated('after'), (before, cased, after) => {
          // Text around the word that holds a match of its own ("tra " before "train" for tra*) is not this case.
          fc.pre(first([keyword], before) === undefined && first([keyword], after) === undefined);
          const content = `${before}${cased}${after}`;
          const match = first([keyword], content);
          expect(match, `${keyword} in ${JSON.stringify(content)}`).toBeDefined();
          expect(foldText(writtenSpan(content, match!.start, match!.end))).toBe(foldText(matched));
        }),
        { numRuns: 50 },
      );
    }
  });

  it('keeps to word boundaries: no prefix match inside a word, no suffix match before more letters, whole words whole', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z]{2,6}$/), (before, after, word) => {
        // Unless the word also begins (ends) the whole text: "bbb*" rightly finds "bbbb".
        if (!`${before}${word}`.startsWith(word)) expect(first([`${word}*`], `${before}${word}`)).toBeUndefined();
        if (!`${word}${after}`.endsWith(word)) expect(first([`*${word}`], `${word}${after}`)).toBeUndefined();
        expect(first([word], `${before}${word}`)).toBeUndefined();
        expect(first([word], `${word}${after}`)).toBeUndefined();
        expect(first([`*${word}*`], `${before}${word}${after}`)).toBeDefined();
      }),
    );
    expect(first(['cat'], 'cats')).toBeUndefined();
    expect(first(['cat*'], 'concat')).toBeUndefined();
    expect(first(['*cat'], 'catch')).toBeUndefined();
  });

  it('finds in one pass what a scan of every keyword finds', () => {
    const keyword = fc
      .tuple(fc.boolean(), fc.stringMatching(/^[ab ]{1,4}$/), fc.boolean())
      .filter(([, text]) => text.trim().length > 0)
      .map(([start, text, end]) => `${start ? '*' : ''}${text.trim()}${end ? '*' : ''}`);
    fc.assert(
      fc.property(fc.array(keyword, { minLength: 1, maxLength: 12 }), fc.stringMatching(/^[ab .]{0,30}$/), (keywords, content) => {
        const matcher = new KeywordMatcher(keywords);
        const found = new Set(matcher.matches(content).map((m) => m.keyword));
        const expected = keywords.filter((source) => {
          const { text, openStart, openEnd } = parseKeyword(source);
          const word = (i: number) => i >= 0 && i < content.length && /[a-z]/.test(content[i]);
          for (let at = content.indexOf(text); at !== -1; at = content.indexOf(text, at + 1)) {
            if ((openStart || !word(at - 1)) && (openEnd || !word(at + text.length))) return true;
          }
          return false;
        });
        expect([...found].sort()).toEqual([...new Set(expected)].sort());
      }),
    );
  });
});

describe('text that only looks different', () => {
  it('folds to one form: NFKC, case-folded (ß as ss, a final sigma as σ), without zero-width characters and soft hyphens', () => {
    expect(foldText('e\u0301cole')).toBe(foldText('école'));
    expect(foldText('ÉCOLE')).toBe('école');
    expect(foldText('STRASSE')).toBe(foldText('straße'));
    expect(foldText('ΟΔΟΣ')).toBe(foldText('οδος'));
    expect(foldText('ｃａｔ ﬁsh')).toBe('cat fish');
    for (const invisible of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad']) expect(foldText(`b${invisible}ad`)).toBe('bad');
    expect(foldText('Plain ASCII, as most messages are.')).toBe('plain ascii, as most messages are.');
  });

  it('matches keywords however the content writes them, and reports what was written', () => {
    const cases: [string, string, string][] = [
      ['école', 'une e\u0301cole ici', 'e\u0301cole'],
      ['e\u0301cole', 'UNE ÉCOLE', 'ÉCOLE'],
      ['straße', 'die STRASSE', 'STRASSE'],
      ['STRASSE', 'die straße', 'straße'],
      ['οδος', 'ΟΔΟΣ!', 'ΟΔΟΣ'],
      ['bad', 'so b\u200bad', 'b\u200bad'],
      ['bad*', 'so ba\u00addly', 'ba\u00addly'],
      ['*cat*', 'ｌｏｃａｔｉｏｎ', 'ｌｏｃａｔｉｏｎ'],
    ];
    for (const [keyword, content, written] of cases) {
      const match = first([keyword], content);
      expect(match, `${keyword} in ${JSON.stringify(content)}`).toBeDefined();
      expect(writtenSpan(content, match!.start, match!.end)).toBe(written);
    }
    // Still whole words: folding joins no words and splits none.
    expect(first(['école'], 'les écoliers')).toBeUndefined();
    expect(parseKeyword('*ÉCOLE*')).toMatchObject({ text: 'école', openStart: true, openEnd: true });
  });

  it('folds a pattern’s non-ASCII characters as the content is, keeping its syntax', () => {
    const matches = (pattern: string, content: string) => new RegExp(regexSource(pattern), REGEX_FLAGS).test(foldText(content));
    expect(matches('straße\\s+\\d', 'STRASSE 5')).toBe(true);
    expect(matches('^ß+$', 'ssss')).toBe(true);
    expect(matches('^ß+$', 'sss')).toBe(false);
    expect(matches('e\u0301cole', 'ÉCOLE')).toBe(true);
    expect(matches('a（b）', 'a(b)')).toBe(true);
    expect(matches('[éa]x', 'E\u0301X')).toBe(true);
    expect(matches('οδος', 'ΟΔΟΣ')).toBe(true);
    expect(regexSource('free\\s+nitro')).toBe('free\\s+nitro');
    expect(regexSource('ß+')).toBe('(?:ss)+');
    expect(regexSource('\u200b*x')).toBe('(?:)*x');
  });

  it('counts copies for SPAM however they are written', () => {
    expect(spamText('Straße  E\u0301cole')).toBe(spamText('strasse école'));
  });
});

describe('SPAM', () => {
  it('is the third copy within 30 seconds, or the sixth message within 5 seconds', () => {
    const now = 100_000;
    const copy = (ago: number) => ({ at: now - ago, text: 'buy now' });
    expect(isSpam([copy(20_000)], 'Buy  now', now)).toBe(false);
    expect(isSpam([copy(20_000), copy(1_000)], 'Buy  now', now)).toBe(true);
    expect(isSpam([copy(31_000), copy(1_000)], 'buy now', now)).toBe(false);
    const flood = Array.from({ length: 5 }, (_, i) => ({ at: now - i * 900, text: `m${i}` }));
    expect(isSpam(flood, 'hello', now)).toBe(true);
    expect(isSpam(flood.slice(1), 'hello', now)).toBe(false);
  });
});
