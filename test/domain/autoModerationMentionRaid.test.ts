// The mention raid detector, driven by explicit times: the threshold, the window, and the lockdown's end and renewal.
import { describe, expect, it } from 'vitest';
import { type MentionRaidWatch, MENTION_RAID, NO_MENTION_RAID, inMentionRaid, noteMentionSend } from '../../domain/autoModerationMentionRaid.js';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
/** The watch after these [author, ms after T0] sends. */
const after = (sends: [string, number][], watch: MentionRaidWatch = NO_MENTION_RAID) =>
  sends.reduce((w, [author, at]) => noteMentionSend(w, author, T0 + at), watch);
/** `count` sends by a, b and c in turn, `gapMs` apart from `startMs`. */
const wave = (count: number, gapMs: number, startMs = 0): [string, number][] =>
  Array.from({ length: count }, (_, i) => [['a', 'b', 'c'][i % 3], startMs + i * gapMs]);

describe('the mention raid detector', () => {
  it('sees a raid in ten mentioning sends by three authors within 30 seconds, not in nine', () => {
    const last = (MENTION_RAID.sends - 1) * 3000;
    expect(inMentionRaid(after(wave(MENTION_RAID.sends - 1, 3000)), T0 + last)).toBe(false);
    expect(inMentionRaid(after(wave(MENTION_RAID.sends, 3000)), T0 + last)).toBe(true);
  });

  it('sees none when the ten are spread over more than 30 seconds, or come from two authors', () => {
    expect(inMentionRaid(after(wave(MENTION_RAID.sends, 3400)), T0 + 9 * 3400)).toBe(false);
    const two = Array.from({ length: MENTION_RAID.sends }, (_, i): [string, number] => [i % 2 ? 'a' : 'b', i]);
    expect(inMentionRaid(after(two), T0 + 10)).toBe(false);
  });

  it('holds the guild for five minutes after the last time the threshold held, renewed while the raid goes on', () => {
    const raid = after(wave(MENTION_RAID.sends, 100));
    const seen = T0 + (MENTION_RAID.sends - 1) * 100;
    expect(inMentionRaid(raid, seen + MENTION_RAID.lockdownMs - 1)).toBe(true);
    expect(inMentionRaid(raid, seen + MENTION_RAID.lockdownMs)).toBe(false);
    // Another wave a minute later renews it from its own last send.
    const renewed = after(wave(MENTION_RAID.sends, 100, 60_000), raid);
    expect(renewed.raidUntil).toBe(T0 + 60_000 + (MENTION_RAID.sends - 1) * 100 + MENTION_RAID.lockdownMs);
  });

  it('keeps at most the last ten sends', () => {
    expect(after(wave(50, 1)).recent).toHaveLength(MENTION_RAID.sends);
  });
});
