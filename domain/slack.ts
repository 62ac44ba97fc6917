// The chat adapter of webhook execution: renders a Slack-style incoming webhook body (text, username, icon_url and
// legacy attachments) as a message: text becomes the content, each attachment one embed. Pure, like codehost.ts.
// mrkdwn links are converted; user refs and @here/@channel/@everyone are rendered as inert text, never as pings.
import { type AdapterMessage, EMBED_LIMITS, compact, isObject, list, record, text, truncate, webUrl } from './codehost.js';
import { type Embed, MAX_EMBEDS, MAX_EMBED_TEXT } from './embeds.js';
import { invalidForm } from './errors.js';
import { MAX_CONTENT_LENGTH, emptyMessage } from './message.js';

const MAX_USERNAME_LENGTH = 80;
/** Slack's named attachment colors. */
const NAMED_COLORS: Record<string, number> = { good: 0x2eb886, warning: 0xdaa038, danger: 0xa30200 };
/** A field needs a name and a value; a blank one shows as this, as is usual for embeds. */
const BLANK = '\u200b';
/** The last instant a date-time string can name with a four-digit year. */
const MAX_TIMESTAMP_SECONDS = 253402300799;

/** Slack's <…> tokens: <url>, <url|label>, <@U123>, <#C123|name>, <!here>, <!subteam^ID|@team>, <!date^…|fallback>. */
const TOKEN = /<([^<>]+)>/g;

function fromToken(token: string): string {
  const bar = token.indexOf('|');
  const target = bar < 0 ? token : token.slice(0, bar);
  const label = bar < 0 ? undefined : token.slice(bar + 1);
  if (target.startsWith('@')) return `@${label || target.slice(1)}`;
  if (target.startsWith('#')) return `#${label || target.slice(1)}`;
  if (target.startsWith('!')) {
    const command = target.slice(1).split('^')[0];
    if (['here', 'channel', 'everyone'].includes(command)) return `@${BLANK}${command}`;
    return label || `@${command}`;
  }
  if (!label) return target;
  return webUrl(target) ? `[${label}](${target})` : label;
}

/**
 * Slack mrkdwn to this service's markdown. Tokens are converted first, then Slack's &lt; &gt; &amp; escapes are
 * undone; what that reveals could spell a mention (<@id>, @everyone, @here), so a zero-width space breaks every
 * such spelling. Slack's *bold* is left as is (it shows in italics here): converting it safely needs a parser.
 */
function fromMrkdwn(value: string): string {
  return value
    .replace(TOKEN, (_, token: string) => fromToken(token))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/@(everyone|here)/g, `@${BLANK}$1`)
    .replace(/<@/g, `<${BLANK}@`);
}

/** An mrkdwn string field, converted, or undefined when it renders as nothing. */
function mrkdwn(value: unknown): string | undefined {
  const raw = text(value);
  const converted = raw && fromMrkdwn(raw).trim();
  return converted || undefined;
}

function color(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (Object.hasOwn(NAMED_COLORS, value)) return NAMED_COLORS[value];
  const hex = /^#?([0-9a-f]{6})$/i.exec(value);
  return hex ? parseInt(hex[1], 16) : undefined;
}

/** Slack's ts: seconds since the epoch, as a number or a numeric string. */
function timestamp(value: unknown): string | undefined {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  return seconds >= 0 && seconds <= MAX_TIMESTAMP_SECONDS ? new Date(seconds * 1000).toISOString() : undefined;
}

function fields(value: unknown): Embed['fields'] {
  const rendered = list(value).flatMap((item) => {
    const field = record(item);
    const name = mrkdwn(field.title);
    const fieldValue = mrkdwn(field.value);
    if (!name && !fieldValue) return [];
    return [
      { name: truncate(name ?? BLANK, EMBED_LIMITS.fieldName), value: truncate(fieldValue ?? BLANK, EMBED_LIMITS.fieldValue), inline: field.short === true },
    ];
  });
  return rendered.length ? rendered.slice(0, EMBED_LIMITS.fields) : undefined;
}

/**
 * One attachment as one embed, or undefined when it has nothing to show (a color or link alone is not a message).
 * The pretext, which Slack shows just above the attachment, becomes the first line of the description; the fallback
 * (a plain-text summary for notifications) is shown only when the attachment has nothing else.
 */
function attachmentEmbed(value: unknown): Embed | undefined {
  const attachment = record(value);
  const title = mrkdwn(attachment.title);
  const authorName = mrkdwn(attachment.author_name);
  const footer = mrkdwn(attachment.footer);
  const image = webUrl(attachment.image_url);
  const thumbnail = webUrl(attachment.thumb_url);
  const shown = compact({
    title: title && truncate(title, EMBED_LIMITS.title),
    description: [mrkdwn(attachment.pretext), mrkdwn(attachment.text)].filter(Boolean).join('\n') || undefined,
    fields: fields(attachment.fields),
    author: authorName
      ? compact({ name: truncate(authorName, EMBED_LIMITS.author), url: webUrl(attachment.author_link), icon_url: webUrl(attachment.author_icon) })
      : undefined,
    image: image ? { url: image } : undefined,
    thumbnail: thumbnail ? { url: thumbnail } : undefined,
    footer: footer ? compact({ text: truncate(footer, EMBED_LIMITS.footer), icon_url: webUrl(attachment.footer_icon) }) : undefined,
  });
  if (!Object.keys(shown).length) {
    const fallback = mrkdwn(attachment.fallback);
    if (!fallback) return undefined;
    shown.description = fallback;
  }
  if (shown.description) shown.description = truncate(shown.description, EMBED_LIMITS.description);
  return compact({ ...shown, url: title ? webUrl(attachment.title_link) : undefined, color: color(attachment.color), timestamp: timestamp(attachment.ts) });
}

const length = (value: string | undefined) => (value ? [...value].length : 0);
const fieldsLength = (embed: Embed) => (embed.fields ?? []).reduce((sum, field) => sum + length(field.name) + length(field.value), 0);
const textLength = (embed: Embed) =>
  length(embed.title) + length(embed.description) + length(embed.footer?.text) + length(embed.author?.name) + fieldsLength(embed);

/**
 * Keeps the embeds within the text all embeds may hold together. An embed that does not fit drops fields from the
 * last until cutting its description can make up the rest, cuts the description, then drops its footer; if it still
 * does not fit, or nothing of it is left to show, it and the ones after it are dropped.
 */
function fitEmbeds(embeds: Embed[]): Embed[] {
  const kept: Embed[] = [];
  let budget = MAX_EMBED_TEXT;
  for (const original of embeds) {
    const embed = { ...original };
    const excess = () => textLength(embed) - budget;
    while (embed.fields?.length && excess() > 0 && excess() >= length(embed.description)) embed.fields = embed.fields.slice(0, -1);
    if (!embed.fields?.length) delete embed.fields;
    if (excess() > 0 && embed.description) {
      const keep = length(embed.description) - excess();
      if (keep > 0) embed.description = truncate(embed.description, keep);
      else delete embed.description;
    }
    if (excess() > 0) delete embed.footer;
    if (excess() > 0 || !(textLength(embed) || embed.image || embed.thumbnail)) break;
    kept.push(embed);
    budget -= textLength(embed);
  }
  return kept;
}

/**
 * The message a Slack-style body asks for. Only text and legacy attachments are read (not blocks); a body with
 * neither is an empty message.
 */
export function slackMessage(body: unknown): AdapterMessage {
  if (!isObject(body)) throw invalidForm([{ path: '_root', message: 'Must be a JSON object' }]);
  const content = mrkdwn(body.text);
  const rendered = list(body.attachments).map(attachmentEmbed);
  const embeds = fitEmbeds(rendered.filter((embed): embed is Embed => embed !== undefined).slice(0, MAX_EMBEDS));
  if (!content && !embeds.length) throw emptyMessage();
  const username = text(body.username)?.trim();
  return compact({
    content: content && truncate(content, MAX_CONTENT_LENGTH),
    embeds,
    username: username && truncate(username, MAX_USERNAME_LENGTH),
    avatar_url: webUrl(body.icon_url),
  });
}
