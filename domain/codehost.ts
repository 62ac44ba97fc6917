// The code host adapter of webhook execution: renders a code host's webhook payload (GitHub's shapes) as the message
// the widely used API's GitHub-compatible endpoint posts. Pure: the route reads X-Codehost-Event and posts the result.
// Payloads are untrusted JSON, so every field is read defensively and every embed is kept within the embed bounds.
import type { Embed } from './embeds.js';
import { invalidForm } from './errors.js';

/** What an adapter asks the webhook to post; no username or avatar_url means the webhook's own. */
export interface AdapterMessage {
  content?: string;
  embeds: Embed[];
  username?: string;
  avatar_url?: string;
}

/** The widely used API's per-field embed bounds, in code points. */
export const EMBED_LIMITS = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, author: 256, url: 2048 } as const;

export const COLOR_OPENED = 0x2cbe4e;
export const COLOR_CLOSED = 0xcb2431;
export const COLOR_MERGED = 0x6f42c1;
export const COLOR_COMMENT = 0xe68d60;
export const COLOR_PUSH = 0x7289da;
export const COLOR_RELEASE = 0xdbab09;

/** As the widely used API's endpoint: five commit lines, first lines cut short, bodies previewed. */
const MAX_COMMITS = 5;
const COMMIT_MESSAGE_LENGTH = 50;
const COMMIT_AUTHOR_LENGTH = 64;
const BODY_PREVIEW_LENGTH = 500;

// Readers of untrusted JSON, shared with the other adapters.

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Anything that is not an object reads as an empty one, so a missing or odd field is just absent. */
export const record = (value: unknown): Record<string, unknown> => (isObject(value) ? value : {});
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** A string with something besides white space in it. */
export const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** Cuts to `max` code points, the last one an ellipsis, so a cut is visible. */
export function truncate(value: string, max: number): string {
  const points = [...value];
  return points.length <= max ? value : `${points.slice(0, max - 1).join('')}…`;
}

/** A web link an embed may carry; anything else (javascript:, relative, too long) is dropped rather than refused. */
export function webUrl(value: unknown): string | undefined {
  return typeof value === 'string' && /^https?:\/\/\S+$/.test(value) && [...value].length <= EMBED_LIMITS.url ? value : undefined;
}

/** Drops the keys left undefined, so the posted embed holds only what was rendered. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

type Payload = Record<string, unknown>;

/** A field without which the event cannot be rendered: the caller sent a malformed payload. */
function required(payload: Payload, key: string): Payload {
  const value = payload[key];
  if (!isObject(value)) throw invalidForm([{ path: key, message: 'Must be an object' }]);
  return value;
}

/** "owner/repo", the subject of every title. */
function repositoryName(payload: Payload): string {
  const repository = record(payload.repository);
  const name = text(repository.full_name) ?? text(repository.name);
  if (!name) throw invalidForm([{ path: 'repository.full_name', message: 'This field is required' }]);
  return name;
}

/** A PR, issue or comment body: GitHub sends CRLF line ends, and the message shows only the start. */
function preview(body: unknown): string | undefined {
  const value = text(body)?.replace(/\r\n?/g, '\n').trim();
  return value && truncate(value, BODY_PREVIEW_LENGTH);
}

/** "#12 Title" (or "#12: Title"), or as much of it as the payload has. */
function subject(item: Payload, separator = ' '): string {
  const number = typeof item.number === 'number' && Number.isInteger(item.number) ? `#${item.number}` : undefined;
  return [number, text(item.title)].filter(Boolean).join(separator);
}

function renderEmbed(payload: Payload, parts: { title: string; url?: unknown; description?: string; color: number }): Embed {
  const sender = record(payload.sender);
  const login = text(sender.login);
  return compact({
    title: truncate(parts.title, EMBED_LIMITS.title),
    url: webUrl(parts.url),
    description: parts.description && truncate(parts.description, EMBED_LIMITS.description),
    color: parts.color,
    author: login ? compact({ name: truncate(login, EMBED_LIMITS.author), url: webUrl(sender.html_url), icon_url: webUrl(sender.avatar_url) }) : undefined,
  });
}

/** "[`abc1234`](url) first line of the message - author name". */
function commitLine(commit: Payload): string {
  const sha = typeof commit.id === 'string' && /^[0-9a-f]+$/i.test(commit.id) ? `\`${commit.id.slice(0, 7)}\`` : undefined;
  const url = webUrl(commit.url);
  const message = text(commit.message)?.trim().split(/\r?\n/)[0];
  const author = text(record(commit.author).name) ?? text(record(commit.author).username);
  return [sha && url ? `[${sha}](${url})` : sha, message && truncate(message, COMMIT_MESSAGE_LENGTH), author && `- ${truncate(author, COMMIT_AUTHOR_LENGTH)}`]
    .filter(Boolean)
    .join(' ');
}

/**
 * Branch pushes only: tags are announced by the release event. A deleted branch, or a new one with no new commits,
 * renders nothing; a force push that leaves no new commits says where the branch now points.
 */
function push(payload: Payload): Embed | null {
  const ref = text(payload.ref);
  if (!ref) throw invalidForm([{ path: 'ref', message: 'This field is required' }]);
  if (!ref.startsWith('refs/heads/') || payload.deleted === true) return null;
  const branch = ref.slice('refs/heads/'.length);
  const repository = repositoryName(payload);
  const commits = list(payload.commits).map(record);
  if (commits.length === 0) {
    const after = typeof payload.after === 'string' && /^[0-9a-f]+$/i.test(payload.after) ? payload.after.slice(0, 7) : undefined;
    if (payload.forced !== true || !after) return null;
    return renderEmbed(payload, { title: `[${repository}] Branch ${branch} was force-pushed to \`${after}\``, url: payload.compare, color: COLOR_PUSH });
  }
  const count = `${commits.length} new commit${commits.length === 1 ? '' : 's'}`;
  const lines = commits.slice(0, MAX_COMMITS).map(commitLine).filter(Boolean);
  return renderEmbed(payload, {
    title: `[${repository}:${branch}] ${count}`,
    url: payload.compare,
    description: lines.join('\n') || undefined,
    color: COLOR_PUSH,
  });
}

/** Opened, closed (or merged) and reopened; the rest (synchronize, labeled, edited…) would flood the channel. */
function pullRequest(payload: Payload): Embed | null {
  const action = payload.action;
  if (action !== 'opened' && action !== 'closed' && action !== 'reopened') return null;
  const pr = required(payload, 'pull_request');
  const merged = action === 'closed' && pr.merged === true;
  const verb = merged ? 'merged' : action;
  const about = subject(pr);
  return renderEmbed(payload, {
    title: `[${repositoryName(payload)}] Pull request ${verb}${about && `: ${about}`}`,
    url: pr.html_url,
    description: action === 'opened' ? preview(pr.body) : undefined,
    color: merged ? COLOR_MERGED : action === 'closed' ? COLOR_CLOSED : COLOR_OPENED,
  });
}

function issues(payload: Payload): Embed | null {
  const action = payload.action;
  if (action !== 'opened' && action !== 'closed' && action !== 'reopened') return null;
  const issue = required(payload, 'issue');
  const about = subject(issue);
  return renderEmbed(payload, {
    title: `[${repositoryName(payload)}] Issue ${action}${about && `: ${about}`}`,
    url: issue.html_url,
    description: action === 'opened' ? preview(issue.body) : undefined,
    color: action === 'closed' ? COLOR_CLOSED : COLOR_OPENED,
  });
}

/** New comments only; the code host sends pull request conversation comments as issue comments too. */
function issueComment(payload: Payload): Embed | null {
  if (payload.action !== 'created') return null;
  const issue = required(payload, 'issue');
  const comment = required(payload, 'comment');
  const kind = isObject(issue.pull_request) ? 'pull request' : 'issue';
  const about = subject(issue, ': ');
  return renderEmbed(payload, {
    title: `[${repositoryName(payload)}] New comment on ${kind}${about && ` ${about}`}`,
    url: webUrl(comment.html_url) ?? issue.html_url,
    description: preview(comment.body),
    color: COLOR_COMMENT,
  });
}

/**
 * Published only: publishing a release that was never a draft sends both "created" and "published", and a draft's
 * "created" is not public yet, so rendering "created" would post twice or leak a draft.
 */
function release(payload: Payload): Embed | null {
  if (payload.action !== 'published') return null;
  const rel = required(payload, 'release');
  const tag = text(rel.tag_name) ?? text(rel.name);
  if (!tag) throw invalidForm([{ path: 'release.tag_name', message: 'This field is required' }]);
  return renderEmbed(payload, {
    title: `[${repositoryName(payload)}] New release published: ${tag}`,
    url: rel.html_url,
    description: preview(rel.body),
    color: COLOR_RELEASE,
  });
}

/** A Map, not an object literal: the event name comes from a request header and must not reach Object.prototype. */
const RENDERERS = new Map<string, (payload: Payload) => Embed | null>([
  ['push', push],
  ['pull_request', pullRequest],
  ['issues', issues],
  ['issue_comment', issueComment],
  ['release', release],
]);

/** null when the event is not rendered (ping, unknown events, actions not worth a message). */
export function renderCodehostEvent(event: string, payload: unknown): AdapterMessage | null {
  const render = RENDERERS.get(event);
  if (!render) return null;
  if (!isObject(payload)) throw invalidForm([{ path: '_root', message: 'Must be a JSON object' }]);
  const embed = render(payload);
  return embed && { embeds: [embed] };
}
