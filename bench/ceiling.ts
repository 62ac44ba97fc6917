// The bench's ceiling: a bare koa + @koa/router HTTPS server on the same TLS setup as Parley (a self-signed P-256
// certificate made by infra/tls.ts's loadTls into CEILING_DIR, keep-alive, TLS ≥ 1.2), with nothing of Parley's in
// the request path. Started by bench/run.ts as its own process, as Parley is, so both are loaded the same way.
//   POST /echo                     parses the JSON body and answers it back (the ceiling of a JSON POST);
//   GET  /channels/:id/messages    answers the bytes of CEILING_PAGE (the ceiling of a message page read).
// Prints {"listening":"https://127.0.0.1:port"} once ready.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import Router from '@koa/router';
import Koa from 'koa';
import getRawBody from 'raw-body';
import { loadTls } from '../infra/tls.js';

const dir = process.env.CEILING_DIR!;
const page = process.env.CEILING_PAGE ? await readFile(process.env.CEILING_PAGE) : Buffer.from('[]');
const tls = await loadTls(dir, null, '127.0.0.1');

const router = new Router();
router.post('/echo', async (ctx) => {
  ctx.body = JSON.parse(await getRawBody(ctx.req, { limit: '1mb', length: ctx.request.length, encoding: 'utf8' }));
});
router.get('/channels/:channelId/messages', (ctx) => {
  ctx.type = 'application/json';
  ctx.body = page;
});
const app = new Koa();
app.use(router.routes()).use(router.allowedMethods());

// koa answers its own failures: the request listener has nothing to wait for.
const handle = app.callback();
const server = createServer(
  { cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2', keepAliveTimeout: 65_000 },
  (request, response) => void handle(request, response),
);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(JSON.stringify({ listening: `https://127.0.0.1:${address.port}` }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
