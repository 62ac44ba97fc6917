// The API reference: GET /openapi.json answers the OpenAPI document, and GET /docs the page that renders it with
// Swagger UI, whose files are served from here too (no CDN). GET / (at the origin's root and the API's) leads there: it
// is where a newcomer looks first. The document is built from every entry, these among them, so they are given it as a
// function by the composition (http/app.ts) instead of importing it.
import type { Context } from 'koa';
import { asyncApiDocument } from '../asyncapi/document.js';
import type { Schema } from '../openapi/entry.js';
import { PAGE_CSP, asset, assetParams, referencePage } from '../openapi/page.js';
import { route } from '../route.js';

const DOCS = '/api/v1/docs';
const OPENAPI = '/api/v1/openapi.json';

/** The version prefix the request came under, for the page's links. */
const baseOf = (ctx: Context) => (ctx.originalUrl.startsWith('/api/v1') ? '/api/v1' : '/api');

const base = { tag: 'Reference', auth: 'none', errors: [] } as const;

/** The documents' answers only in outline: their own specifications (OpenAPI 3.1, AsyncAPI 3) say the rest. */
const outline = (schema: Schema): Schema => schema;

/** The reference's routes, serving `document` (called on each request: it is built once the entries are all made). */
export function referenceRoutes(document: () => object) {
  const getDocumentRoute = route({
    ...base,
    method: 'GET',
    path: '/openapi.json',
    summary: 'Get this document',
    description: 'The OpenAPI 3.1 document of the API, built from the schemas the routes validate with.',
    responses: {
      200: {
        description: 'The document.',
        schema: outline({
          type: 'object',
          properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
          required: ['openapi', 'info', 'paths'],
        }),
      },
    },
    handle: () => document(),
  });

  const getEventCatalogueRoute = route({
    ...base,
    method: 'GET',
    path: '/asyncapi.json',
    summary: 'Get the event catalogue',
    description:
      'The AsyncAPI 3 document of every event type a guild’s event stream hands out (its data as JSON Schema, generated from the code’s declarations) and of the gateway’s dispatches.',
    responses: {
      200: {
        description: 'The document.',
        schema: outline({ type: 'object', properties: { asyncapi: { const: '3.0.0' }, channels: { type: 'object' } }, required: ['asyncapi', 'channels'] }),
      },
    },
    handle: () => asyncApiDocument(),
  });

  const readReferenceRoute = route({
    ...base,
    method: 'GET',
    path: '/docs',
    summary: 'Read the reference',
    description: 'This document rendered by Swagger UI, served by the app itself.',
    responses: { 200: { description: 'The page.', type: 'text/html', schema: { type: 'string' } } },
    handle(ctx) {
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = 'text/html; charset=utf-8';
      return referencePage(baseOf(ctx));
    },
  });

  const getReferenceFileRoute = route({
    ...base,
    method: 'GET',
    path: '/docs/:asset',
    summary: 'Get a file of the reference page',
    params: assetParams,
    responses: {
      200: {
        description: 'The file.',
        content: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' }, 'image/png': { type: 'string', contentMediaType: 'image/png' } },
      },
    },
    async handle(ctx, { params }) {
      const { type, data } = asset(params.asset);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.type = type;
      return await data;
    },
  });

  /** GET / at the origin's root and under /api, /api/v1…: a browser is sent to the reference page, a client told where it is. */
  const findReferenceRoute = route({
    ...base,
    method: 'GET',
    path: '/',
    summary: 'Find the reference',
    description:
      'Where the reference is: a browser (`Accept: text/html`) is redirected to the page, any other client answered where the page and this document are.',
    root: 'also',
    responses: {
      200: {
        description: 'Where the reference is.',
        schema: {
          type: 'object',
          properties: { message: { type: 'string' }, docs: { const: DOCS }, openapi: { const: OPENAPI } },
          required: ['message', 'docs', 'openapi'],
        },
      },
      302: { description: `To the page (\`Location: ${DOCS}\`), for a browser.` },
    },
    handle(ctx) {
      // A browser asks for HTML first; curl's */* and a client's JSON get the JSON answer.
      if (ctx.accepts('json', 'html') === 'html') return ctx.redirect(DOCS);
      return { message: `Parley's API: the reference is at ${DOCS}, its OpenAPI document at ${OPENAPI}`, docs: DOCS, openapi: OPENAPI } as const;
    },
  });

  return [getDocumentRoute, getEventCatalogueRoute, readReferenceRoute, getReferenceFileRoute, findReferenceRoute];
}
