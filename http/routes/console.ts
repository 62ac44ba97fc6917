// The moderator console, GET /console at the origin's root: a page (assets/console/) whose own script signs in with the
// login use case the authorization page's sign-in uses (POST /auth/login), then reads and acts through this API with
// the session's token, and follows the guild's audit log over the gateway (GUILD_AUDIT_LOG_ENTRY_CREATE). Every file
// it loads is served from here: its policy allows scripts, styles and connections to this origin and the gateway only.
import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import { gatewayUrl } from '../../presenters/urls.js';
import { PALETTE } from '../html.js';
import { route } from '../route.js';

const read = (name: string) => readFile(new URL(`../../assets/console/${name}`, import.meta.url));

/** The page's files by the name it loads them with; its stylesheet starts with the other pages' colours. */
const FILES = {
  'console.js': { type: 'text/javascript; charset=utf-8', read: () => read('console.js') },
  'console.css': { type: 'text/css; charset=utf-8', read: async () => Buffer.concat([Buffer.from(PALETTE), await read('console.css')]) },
} as const;

type FileName = keyof typeof FILES;
const loaded = new Map<string, Promise<Buffer>>();
/** A file's bytes, read once. */
const file = (name: FileName | 'index.html', readIt: () => Promise<Buffer>) => {
  if (!loaded.has(name)) loaded.set(name, readIt());
  return loaded.get(name)!;
};

function secured(ctx: Context) {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
}

const base = { tag: 'Console', auth: 'none', errors: [], root: 'only' } as const;

export const consolePageRoute = route({
  ...base,
  method: 'GET',
  path: '/console',
  summary: 'Open the moderator console',
  description:
    'A page for moderators: sign in, pick a server where you may view the audit log, then filter and page the log (live from the gateway), lift timeouts and bans, see the server at a past moment and roll back what one actor did.',
  responses: { 200: { description: 'The page.', type: 'text/html', schema: { type: 'string' } } },
  async handle(ctx, _input, deps) {
    const gateway = new URL(gatewayUrl(deps.config)).origin;
    ctx.set(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self' ${gateway}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    secured(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    return await file('index.html', () => read('index.html'));
  },
});

export const consoleFileRoute = route({
  ...base,
  method: 'GET',
  path: '/console/:file',
  summary: 'Get a file of the moderator console',
  params: {
    type: 'object',
    properties: { file: { type: 'string', enum: Object.keys(FILES) as FileName[] } },
    required: ['file'],
  } as const,
  responses: { 200: { description: 'The file.', content: { 'text/javascript': { type: 'string' }, 'text/css': { type: 'string' } } } },
  async handle(ctx, { params }) {
    const { type, read: readIt } = FILES[params.file];
    secured(ctx);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = type;
    return await file(params.file, readIt);
  },
});

export const consoleRoutes = [consolePageRoute, consoleFileRoute];
