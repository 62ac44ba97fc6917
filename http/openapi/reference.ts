// The reference's own routes (http/routes/reference.ts): this document, the page that renders it, and the root that
// leads to them. The one module still documented by hand: its routes serve the document that is built from the
// entries, so entries of them would import the document that imports them (an import cycle).
import { assetParams } from './page.js';
import type { RouteDoc } from './entry.js';

export const referenceDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/',
    summary: 'Find the reference',
    description:
      'Where the reference is: a browser (`Accept: text/html`) is redirected to the page, any other client answered where the page and this document are.',
    tag: 'Reference',
    auth: 'none',
    root: 'also',
    responses: {
      200: {
        description: 'Where the reference is.',
        schema: {
          type: 'object',
          properties: { message: { type: 'string' }, docs: { const: '/api/v1/docs' }, openapi: { const: '/api/v1/openapi.json' } },
          required: ['message', 'docs', 'openapi'],
        },
      },
      302: { description: 'To the page (`Location: /api/v1/docs`), for a browser.' },
    },
    errors: [],
  },
  {
    method: 'GET',
    path: '/openapi.json',
    summary: 'Get this document',
    description: 'The OpenAPI 3.1 document of the API, built from the schemas the routes validate with.',
    tag: 'Reference',
    auth: 'none',
    responses: {
      200: {
        description: 'The document.',
        schema: {
          type: 'object',
          properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
          required: ['openapi', 'info', 'paths'],
        },
      },
    },
    errors: [],
  },
  {
    method: 'GET',
    path: '/docs',
    summary: 'Read the reference',
    description: 'This document rendered by Swagger UI, served by the app itself.',
    tag: 'Reference',
    auth: 'none',
    responses: { 200: { description: 'The page.', type: 'text/html', schema: { type: 'string' } } },
    errors: [],
  },
  {
    method: 'GET',
    path: '/docs/:asset',
    summary: 'Get a file of the reference page',
    tag: 'Reference',
    auth: 'none',
    params: assetParams,
    responses: {
      200: {
        description: 'The file.',
        content: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' }, 'image/png': { type: 'string', contentMediaType: 'image/png' } },
      },
    },
    errors: [],
  },
];
