// The reference page: Swagger UI (swagger-ui-dist) rendering /openapi.json, every file served by the app itself from
// node_modules. No inline script or style, so the page's Content-Security-Policy allows its own origin only (and
// data: images, which Swagger UI's stylesheet uses for its icons).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { VERSIONING, eventSchemas } from '../asyncapi/document.js';
import { html } from '../html.js';

const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The page's own script: starts Swagger UI on the element that names the document. */
const INIT = `// Parley's API reference: Swagger UI on the document the page names.
const root = document.getElementById('reference');
window.ui = SwaggerUIBundle({
  url: root.dataset.document,
  domNode: root,
  deepLinking: true,
  filter: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  validatorUrl: null,
});
`;

/** The files the page loads, by the name it loads them with: Swagger UI's own, and the page's script. */
const ASSETS = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', read: () => readFile(join(SWAGGER_UI, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', read: () => readFile(join(SWAGGER_UI, 'swagger-ui-bundle.js')) },
  'favicon-32x32.png': { type: 'image/png', read: () => readFile(join(SWAGGER_UI, 'favicon-32x32.png')) },
  'reference.js': { type: 'text/javascript; charset=utf-8', read: async () => Buffer.from(INIT) },
} as const;

export type AssetName = keyof typeof ASSETS;

export const assetParams = {
  type: 'object',
  properties: { asset: { type: 'string', enum: Object.keys(ASSETS) as AssetName[] } },
  required: ['asset'],
} as const;

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const loaded = new Map<AssetName, Promise<Buffer>>();

/** An asset's bytes, read once from node_modules (the bundle is 1.7 MB: read when first asked for, then kept). */
export function asset(name: AssetName): { type: string; data: Promise<Buffer> } {
  if (!loaded.has(name)) loaded.set(name, ASSETS[name].read());
  return { type: ASSETS[name].type, data: loaded.get(name)! };
}

/** The page under `base` (/api/v1 or /api), whose document and assets it names by absolute path. */
export const referencePage = (base: '/api/v1' | '/api') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley API reference</title>
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png">
</head>
<body>
<div id="reference" data-document="${base}/openapi.json"></div>
${eventCatalogue(base)}
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/reference.js"></script>
</body>
</html>
`;

/**
 * The event catalogue beside the reference: every event type and its data's fields, as plain markup (the page runs no
 * script of its own but Swagger UI's), with the AsyncAPI document that holds their schemas.
 */
function eventCatalogue(base: string): string {
  const { events } = eventSchemas();
  const fields = (data: Record<string, unknown>) => Object.keys((data.properties as Record<string, unknown> | undefined) ?? {});
  return html`<section id="events" class="swagger-ui"><div class="wrapper">
<h2>Event catalogue</h2>
<p>What <code>GET ${base}/guilds/{guildId}/events</code> hands out: each event type, where it is declared, and its data’s fields. Their JSON
Schemas, and the gateway’s dispatches, are in the AsyncAPI 3 document <a href="${base}/asyncapi.json">${base}/asyncapi.json</a>.</p>
<p>${VERSIONING}</p>
<ul>${Object.entries(events).map(([type, event]) => html`<li><code>${type}</code> (${event.declaredIn}): ${fields(event.data).join(', ')}</li>`)}</ul>
</div></section>`.text;
}
