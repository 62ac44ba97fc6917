// The Slack-style adapter: text to content, legacy attachments to embeds, mrkdwn links converted, mentions made inert
// (checked with the mention parser the send path uses), and every bound held whatever the body's sizes.
import { describe, expect, it } from 'vitest';
import type { AdapterMessage } from '../../domain/codehost.js';
import { DomainError } from '../../domain/errors.js';
import { parseMentions } from '../../domain/mentions.js';
import { slackMessage } from '../../domain/slack.js';
import { expectWithinBounds, points } from '../support/embeds.js';

const ZWSP = '\u200b';

function render(body: unknown): AdapterMessage {
  const message = slackMessage(body);
  expectWithinBounds(message);
  return message;
}

function refusal(body: unknown): DomainError {
  try {
    slackMessage(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

const build = 'https://ci.example.com/builds/42';
const ciBody = {
  text: `Deploy of <${build}|build 42> finished. <!here> please check, <@U024BE7LH> &amp; <#C024BE7LR|ops>`,
  username: 'ci-bot',
  icon_url: 'https://ci.example.com/icon.png',
  channel: '#deploys',
  attachments: [
    {
      fallback: `Build 42 passed: ${build}`,
      color: 'good',
      pretext: 'Nightly pipeline',
      author_name: 'Jenkins',
      author_link: 'https://ci.example.com/',
      author_icon: 'https://ci.example.com/jenkins.png',
      title: 'Build 42 passed',
      title_link: build,
      text: `All 312 tests passed in <${build}/log|4m 12s>.`,
      fields: [
        { title: 'Branch', value: 'main', short: true },
        { title: 'Commit', value: '<https://git.example.com/c/6dcb09b|6dcb09b>', short: true },
        { title: 'Changes', value: 'Fix the greeting' },
      ],
      image_url: 'https://ci.example.com/chart.png',
      thumb_url: 'https://ci.example.com/thumb.png',
      footer: 'Jenkins CI',
      footer_icon: 'https://ci.example.com/footer.png',
      ts: 1714564800,
      mrkdwn_in: ['text', 'pretext'],
    },
    { fallback: 'Deploy failed', color: 'danger', title: 'Deploy to staging failed', text: 'Step `migrate` exited with 1' },
  ],
};

describe('slack adapter: rendering', () => {
  it('turns text into content and each attachment into an embed', () => {
    expect(render(ciBody)).toEqual({
      content: `Deploy of [build 42](${build}) finished. @${ZWSP}here please check, @U024BE7LH & #ops`,
      username: 'ci-bot',
      avatar_url: 'https://ci.example.com/icon.png',
      embeds: [
        {
          title: 'Build 42 passed',
          url: build,
          description: `Nightly pipeline\nAll 312 tests passed in [4m 12s](${build}/log).`,
          color: 0x2eb886,
          author: { name: 'Jenkins', url: 'https://ci.example.com/', icon_url: 'https://ci.example.com/jenkins.png' },
          fields: [
            { name: 'Branch', value: 'main', inline: true },
            { name: 'Commit', value: '[6dcb09b](https://git.example.com/c/6dcb09b)', inline: true },
            { name: 'Changes', value: 'Fix the greeting', inline: false },
          ],
          image: { url: 'https://ci.example.com/chart.png' },
          thumbnail: { url: 'https://ci.example.com/thumb.png' },
          footer: { text: 'Jenkins CI', icon_url: 'https://ci.example.com/footer.png' },
          timestamp: '2024-05-01T12:00:00.000Z',
        },
        { title: 'Deploy to staging failed', description: 'Step `migrate` exited with 1', color: 0xa30200 },
      ],
    });
  });

  it('converts links: labelled, bare, and labelled non-web links as their label only', () => {
    const { content } = render({
      text: '<https://example.com/a> <https://example.com/b|docs> <mailto:ops@example.com|mail us> <javascript:alert(1)|click> <!subteam^SAZ94GDB8|@devs> <!date^1392734382^{date_short}|Feb 18, 2014>',
    });
    expect(content).toBe('https://example.com/a [docs](https://example.com/b) mail us click @devs Feb 18, 2014');
  });

  it('never pings: special mentions, user refs and escaped mention syntax all stay inert', () => {
    const { content } = render({
      text: '<!here> <!channel> <!everyone> @everyone @here <@U1|bob> <@123456789012345678> &lt;@123456789012345678&gt; &lt;@&amp;42&gt;',
    });
    expect(content).toBe(
      `@${ZWSP}here @${ZWSP}channel @${ZWSP}everyone @${ZWSP}everyone @${ZWSP}here @bob @123456789012345678 <${ZWSP}@123456789012345678> <${ZWSP}@&42>`,
    );
    expect(parseMentions(content!)).toEqual({ users: [], roles: [], channels: [], everyone: false });
  });

  it('reads the colors Slack names, hex colors, and drops any other', () => {
    const colors = ['warning', 'danger', '#439FE0', '439fe0', 'blue', '#12345', 0xff0000, null];
    const { embeds } = render({ attachments: colors.map((color, i) => ({ color, text: `${i}` })) });
    expect(embeds.map((embed) => embed.color)).toEqual([0xdaa038, 0xa30200, 0x439fe0, 0x439fe0, undefined, undefined, undefined, undefined]);
  });

  it('turns ts into an ISO timestamp, and drops one that is not a date', () => {
    const { embeds } = render({ attachments: ['1714564800.123456', 1714564800, 'soon', 1e20, -1].map((ts) => ({ text: 'x', ts })) });
    expect(embeds.map((embed) => embed.timestamp)).toEqual(['2024-05-01T12:00:00.123Z', '2024-05-01T12:00:00.000Z', undefined, undefined, undefined]);
  });

  it('keeps the first 10 renderable attachments; one with only a color or a link is skipped; the fallback shows when nothing else does', () => {
    const attachments = [
      null,
      'text',
      { color: 'good', title_link: 'https://example.com' },
      { fallback: 'Only a fallback' },
      ...Array.from({ length: 12 }, (_, i) => ({ title: `#${i}` })),
    ];
    const { embeds } = render({ attachments });
    expect(embeds).toHaveLength(10);
    expect(embeds[0]).toEqual({ description: 'Only a fallback' });
    expect(embeds.slice(1).map((embed) => embed.title)).toEqual(['#0', '#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8']);
  });

  it('gives a field a blank name or value when only one is set, skips empty ones, and keeps 25', () => {
    const fields = [
      { value: 'no title' },
      { title: 'no value' },
      { title: '', value: ' ' },
      'odd',
      ...Array.from({ length: 30 }, (_, i) => ({ title: `f${i}`, value: `${i}`, short: 'yes' })),
    ];
    const [embed] = render({ attachments: [{ fields }] }).embeds;
    expect(embed.fields).toHaveLength(25);
    expect(embed.fields!.slice(0, 3)).toEqual([
      { name: ZWSP, value: 'no title', inline: false },
      { name: 'no value', value: ZWSP, inline: false },
      { name: 'f0', value: '0', inline: false },
    ]);
  });

  it('passes username (cut to 80) and an http(s) icon_url through, and drops anything else', () => {
    expect(render({ text: 'hi', username: 'b'.repeat(100), icon_url: 'http://example.com/a.png' })).toEqual({
      content: 'hi',
      embeds: [],
      username: `${'b'.repeat(79)}…`,
      avatar_url: 'http://example.com/a.png',
    });
    expect(render({ text: 'hi', username: '   ', icon_url: 'javascript:alert(1)' })).toEqual({ content: 'hi', embeds: [] });
  });
});

describe('slack adapter: bounds and refusals', () => {
  it('cuts text to 2000 code points', () => {
    const { content } = render({ text: '😀'.repeat(2500) });
    expect(content).toBe(`${'😀'.repeat(1999)}…`);
  });

  it('keeps the embeds within 6000 characters together: the one that overflows is cut, the rest dropped', () => {
    const { embeds } = render({ attachments: Array.from({ length: 5 }, () => ({ text: 'x'.repeat(2500) })) });
    expect(embeds.map((embed) => points(embed.description!))).toEqual([2500, 2500, 1000]);
    expect(embeds[2].description!.endsWith('x…')).toBe(true);
    const field = { name: 'n'.repeat(200), value: 'v'.repeat(800), inline: false };
    const exact = render({ attachments: [{ text: 'x'.repeat(4000), footer: 'f'.repeat(1000) }, { fields: [{ title: field.name, value: field.value }] }] });
    expect(exact.embeds).toEqual([{ description: 'x'.repeat(4000), footer: { text: 'f'.repeat(1000) } }, { fields: [field] }]);
  });

  it('keeps one oversized attachment within every bound', () => {
    const huge = '𝔵'.repeat(10_000);
    const longUrl = `https://example.com/${'x'.repeat(3000)}`;
    const [embed] = render({
      text: huge,
      username: huge,
      attachments: [
        {
          title: huge,
          title_link: longUrl,
          pretext: huge,
          text: huge,
          author_name: huge,
          author_icon: longUrl,
          footer: huge,
          image_url: longUrl,
          fields: Array.from({ length: 30 }, () => ({ title: huge, value: huge })),
        },
      ],
    }).embeds;
    expect(points(embed.title!)).toBe(256);
    expect(embed.url).toBeUndefined();
    expect(embed.image).toBeUndefined();
    expect(embed.author).toEqual({ name: `${'𝔵'.repeat(255)}…` });
    // 256 + 256 + 2048 leave 3440 of 6000: two fields of 1280, and the description cut to what remains.
    expect(embed.fields).toHaveLength(2);
    expect(points(embed.footer!.text)).toBe(2048);
    expect(points(embed.description!)).toBe(880);
  });

  it('refuses a body with no text and no renderable attachment as an empty message', () => {
    for (const body of [
      {},
      { text: '   ' },
      { attachments: [{ color: 'good' }, null] },
      { attachments: 'x' },
      { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }] },
    ]) {
      expect(refusal(body).code).toBe('CANNOT_SEND_EMPTY_MESSAGE');
    }
  });

  it('refuses a body that is not a JSON object', () => {
    for (const body of [null, [], 'text', 42]) {
      const error = refusal(body);
      expect(error.code).toBe('INVALID_FORM_BODY');
      expect(error.errors).toEqual([{ path: '_root', message: 'Must be a JSON object' }]);
    }
  });
});
