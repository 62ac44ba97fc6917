// What every message an adapter renders must satisfy: the bounds the send route checks on content and embeds.
import { expect } from 'vitest';
import type { AdapterMessage } from '../../domain/codehost.js';
import { embedErrors } from '../../domain/embeds.js';

export const points = (value: string) => [...value].length;

export /** Every bound of the widely used API's embeds and content, as the send route would check them. */
function expectWithinBounds(message: AdapterMessage): void {
  if (message.content !== undefined) expect(points(message.content)).toBeLessThanOrEqual(2000);
  expect(message.embeds.length).toBeLessThanOrEqual(10);
  expect(embedErrors(message.embeds, [])).toEqual([]);
  for (const embed of message.embeds) {
    const urls = [embed.url, embed.author?.url, embed.author?.icon_url, embed.footer?.icon_url, embed.image?.url, embed.thumbnail?.url];
    for (const url of urls.filter((u) => u !== undefined)) {
      expect(url).toMatch(/^https?:\/\/\S+$/);
      expect(points(url as string)).toBeLessThanOrEqual(2048);
    }
    const bounded: [string | undefined, number][] = [
      [embed.title, 256],
      [embed.description, 4096],
      [embed.footer?.text, 2048],
      [embed.author?.name, 256],
      ...(embed.fields ?? []).flatMap((f): [string, number][] => [
        [f.name, 256],
        [f.value, 1024],
      ]),
    ];
    for (const [value, max] of bounded.filter(([value]) => value !== undefined)) {
      expect(points(value!)).toBeGreaterThan(0);
      expect(points(value!)).toBeLessThanOrEqual(max);
    }
    expect((embed.fields ?? []).length).toBeLessThanOrEqual(25);
    if (embed.color !== undefined) expect(Number.isInteger(embed.color) && (embed.color as number) >= 0 && (embed.color as number) <= 0xffffff).toBe(true);
  }
}
