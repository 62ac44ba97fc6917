// Embeds: the per-field bounds are in the request schema; these are the rules that span fields. As the widely used
// API: at most 10 embeds and 6000 characters of text across them; an image field may point at a file uploaded with
// the message as attachment://<filename>, which must be a PNG, JPEG, WebP or GIF image.
import type { FieldError } from './errors.js';

export const MAX_EMBEDS = 10;
export const MAX_EMBED_TEXT = 6000;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
/** Embed fields that hold a URL which may name an uploaded file. */
const URL_FIELDS = [
  ['image', 'url'],
  ['thumbnail', 'url'],
  ['author', 'icon_url'],
  ['footer', 'icon_url'],
] as const;

export interface Embed {
  title?: string;
  description?: string;
  fields?: { name: string; value: string; inline?: boolean }[];
  footer?: { text: string; icon_url?: string };
  author?: { name: string; url?: string; icon_url?: string };
  image?: { url: string };
  thumbnail?: { url: string };
  [key: string]: unknown;
}

export const ATTACHMENT_SCHEME = 'attachment://';

const length = (text: string | undefined) => (text ? [...text].length : 0);

function textLength(embed: Embed): number {
  return (
    length(embed.title) +
    length(embed.description) +
    length(embed.footer?.text) +
    length(embed.author?.name) +
    (embed.fields ?? []).reduce((sum, field) => sum + length(field.name) + length(field.value), 0)
  );
}

/** The attachment:// URLs of an embed, with their field paths. */
export function attachmentReferences(embed: Embed): { path: string; filename: string }[] {
  const references: { path: string; filename: string }[] = [];
  for (const [field, key] of URL_FIELDS) {
    const url = (embed[field] as Record<string, unknown> | undefined)?.[key];
    if (typeof url === 'string' && url.startsWith(ATTACHMENT_SCHEME))
      references.push({ path: `${field}.${key}`, filename: url.slice(ATTACHMENT_SCHEME.length) });
  }
  return references;
}

/** Problems of a message's embeds against its (kept and new) attachments. */
export function embedErrors(embeds: readonly Embed[], attachments: readonly { filename: string; content_type: string }[]): FieldError[] {
  const errors: FieldError[] = [];
  const total = embeds.reduce((sum, embed) => sum + textLength(embed), 0);
  if (total > MAX_EMBED_TEXT) errors.push({ path: 'embeds', message: `Embeds must hold at most ${MAX_EMBED_TEXT} characters in total` });
  embeds.forEach((embed, i) => {
    for (const reference of attachmentReferences(embed)) {
      const file = attachments.find((a) => a.filename === reference.filename);
      if (!file) errors.push({ path: `embeds.${i}.${reference.path}`, message: `No attachment named ${reference.filename} in this message` });
      else if (!IMAGE_TYPES.includes(file.content_type)) {
        errors.push({ path: `embeds.${i}.${reference.path}`, message: 'Only PNG, JPEG, WebP and GIF attachments can be used in embeds' });
      }
    }
  });
  return errors;
}
