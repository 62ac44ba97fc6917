// The API reference: GET /openapi.json answers the OpenAPI document (built once, when the routes are made), and
// GET /docs the page that renders it with Swagger UI, whose files are served from here too (no CDN). GET / (at the
// origin's root and the API's) leads there: it is where a newcomer looks first.
import Router from '@koa/router';
import type { Context } from 'koa';
import { openApiDocument } from '../openapi/document.js';
import { PAGE_CSP, asset, assetParams, referencePage } from '../openapi/page.js';
import { parseBody } from '../validation.js';

const DOCS = '/api/v1/docs';
const OPENAPI = '/api/v1/openapi.json';

/** The version prefix the request came under, for the page's links. */
const baseOf = (ctx: Context) => (ctx.originalUrl.startsWith('/api/v1') ? '/api/v1' : '/api');

export function referenceRoutes(): Router {
  const router = new Router();
  const document = openApiDocument();

  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });

  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = referencePage(baseOf(ctx));
  });

  router.get('/docs/:asset', async (ctx) => {
    const { type, data } = asset(parseBody(assetParams, ctx.params).asset);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = type;
    ctx.body = await data;
  });

  return router;
}

/** GET / at the origin's root and under /api, /api/v1…: a browser is sent to the reference page, a client told where it is. */
export function entryRoutes(): Router {
  const router = new Router();
  router.get('/', (ctx) => {
    // A browser asks for HTML first; curl's */* and a client's JSON get the JSON answer.
    if (ctx.accepts('json', 'html') === 'html') return ctx.redirect(DOCS);
    ctx.body = { message: `Parley's API: the reference is at ${DOCS}, its OpenAPI document at ${OPENAPI}`, docs: DOCS, openapi: OPENAPI };
  });
  return router;
}
