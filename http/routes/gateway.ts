// Where the gateway is, and (for bots) how many sessions they may still start today.
import Router from '@koa/router';
import { sessionStartLimitOf } from '../../commands/gateway.js';
import { gatewayUrl } from '../../presenters/urls.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';

export function gatewayRoutes(deps: HttpDeps): Router {
  const router = new Router();

  router.get('/gateway', (ctx) => {
    ctx.body = { url: gatewayUrl(deps.config) };
  });

  router.get('/gateway/bot', async (ctx) => {
    const auth = requireAuth(ctx);
    ctx.body = { url: gatewayUrl(deps.config), shards: 1, session_start_limit: await sessionStartLimitOf(deps, auth.userId) };
  });

  return router;
}
