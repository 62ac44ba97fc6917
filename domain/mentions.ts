// Mentions in message content, as the spec's formatting table writes them: <@id> and <@!id> (users), <@&id> (roles),
// <#id> (channels), and @everyone / @here. The content itself is stored verbatim; this only finds whom it mentions.
// Code spans and code blocks show their text literally, so what they hold mentions no one.

export interface ParsedMentions {
  users: string[];
  roles: string[];
  channels: string[];
  /** @everyone or @here appears outside code. */
  everyone: boolean;
}

/** Ids the widely used API would make of a mention: at most 20 digits (a 64-bit number). */
const ID = '(\\d{1,20})';
const USER = new RegExp(`<@!?${ID}>`, 'g');
const ROLE = new RegExp(`<@&${ID}>`, 'g');
const CHANNEL = new RegExp(`<#${ID}>`, 'g');
const EVERYONE = /@(everyone|here)\b/;
/** Fenced blocks first (```…```), then inline spans of one or two backticks. */
const CODE = /```[\s\S]*?```|``[\s\S]*?``|`[^`]*`/g;

const unique = (values: Iterable<string>) => [...new Set(values)];
const idsOf = (text: string, pattern: RegExp) => unique([...text.matchAll(pattern)].map((m) => m[1]));

export function parseMentions(content: string): ParsedMentions {
  // Every mention starts with < or @: most messages have neither, and need no pattern run over them.
  if (!content.includes('<') && !content.includes('@')) return { users: [], roles: [], channels: [], everyone: false };
  const text = content.replace(CODE, ' ');
  return { users: idsOf(text, USER), roles: idsOf(text, ROLE), channels: idsOf(text, CHANNEL), everyone: EVERYONE.test(text) };
}

/** The send field allowed_mentions of the widely used API: which of the parsed mentions count. */
export interface AllowedMentions {
  parse?: readonly ('users' | 'roles' | 'everyone')[];
  users?: readonly string[];
  roles?: readonly string[];
  replied_user?: boolean;
}

/** Keeps the mentions that `allowed` lets through; without allowed_mentions every parsed mention counts. */
export function allowMentions(parsed: ParsedMentions, allowed: AllowedMentions | undefined): ParsedMentions {
  if (!allowed) return parsed;
  const parse = allowed.parse ?? [];
  const pick = (ids: string[], kind: 'users' | 'roles', listed: readonly string[] | undefined) =>
    parse.includes(kind) ? ids : ids.filter((id) => listed?.includes(id));
  return {
    users: pick(parsed.users, 'users', allowed.users),
    roles: pick(parsed.roles, 'roles', allowed.roles),
    channels: parsed.channels,
    everyone: parsed.everyone && parse.includes('everyone'),
  };
}
