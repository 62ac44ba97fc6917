// Server-rendered pages (the OAuth2 authorization page): markup built with the `html` tagged template, which escapes
// every interpolated value unless it is markup a template made, so an application's name, a guild's name or a URL can
// never become markup. Pages go out under a Content-Security-Policy that allows no script at all, the one inline
// stylesheet below by its hash, forms posting only where the page says, and no framing.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';

/** Markup a template made: interpolated as is. Anything else interpolated is text. */
export class Html {
  constructor(readonly text: string) {}
}

export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  return new Html(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i]) : ''), ''));
}

/** The pages' colours, light and dark: the moderator console's stylesheet starts with them too. */
export const PALETTE = `
:root { color-scheme: light dark; --fg: #1f2329; --muted: #5c6370; --bg: #eef0f4; --card: #fff; --line: #d6d9e0; --accent: #4752c4; --danger: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #a3a8b3; --bg: #1b1d22; --card: #26292f; --line: #3a3e46; --accent: #7983f5; --danger: #f28b82; } }
`;

const STYLE = `${PALETTE}* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { width: min(28rem, calc(100vw - 2rem)); margin: 2rem 0; padding: 2rem; background: var(--card); border: 1px solid var(--line); border-radius: 12px; }
h1 { margin: 0 0 .25rem; font-size: 1.35rem; line-height: 1.3; }
p { margin: .5rem 0; }
.muted { color: var(--muted); font-size: .9rem; }
.error { padding: .6rem .8rem; border: 1px solid var(--danger); border-radius: 8px; color: var(--danger); }
ul { margin: .75rem 0; padding-left: 1.25rem; }
li { margin: .2rem 0; }
label { display: block; margin: .9rem 0 .25rem; font-weight: 600; font-size: .95rem; }
input, select { width: 100%; padding: .55rem .65rem; font: inherit; color: inherit; background: transparent; border: 1px solid var(--line); border-radius: 8px; }
.actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
button { flex: 1; padding: .6rem 1rem; font: inherit; font-weight: 600; border-radius: 8px; border: 1px solid var(--line); background: transparent; color: inherit; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export interface PageOptions {
  /** Origins the page's forms may end up at besides this one: a POST answered by a redirect there counts (CSP 3 form-action). */
  formTargets?: readonly string[];
}

/** Answers `body` as a whole HTML page with the security headers every page carries. */
export function sendPage(ctx: Context, status: number, title: string, body: Html, options: PageOptions = {}): void {
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  ctx.set('Content-Security-Policy', `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // The page's URL carries the client's state, and the redirect it answers the code: no other site gets either.
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.text;
}
