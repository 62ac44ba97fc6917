// Where the gateway is, and (for bots) how many sessions they may still start today.
import { Gateway, GatewayBot } from '../../contracts/gateway.js';
import { sessionStartLimitOf } from '../../commands/gateway.js';
import { gatewayUrl } from '../../presenters/urls.js';
import { requireAuth } from '../auth.js';
import { route } from '../route.js';

export const gatewayRoute = route({
  method: 'GET',
  path: '/gateway',
  summary: 'Get the gateway URL',
  tag: 'Gateway',
  auth: 'none',
  responses: { 200: { description: 'The WebSocket URL.', schema: Gateway } },
  errors: [],
  handle: (_ctx, _input, deps) => ({ url: gatewayUrl(deps.config) }),
});

export const gatewayBotRoute = route({
  method: 'GET',
  path: '/gateway/bot',
  summary: 'Get the gateway URL and session start limit',
  tag: 'Gateway',
  auth: 'any',
  responses: { 200: { description: 'The URL, one shard, and the session starts left.', schema: GatewayBot } },
  errors: [],
  handle: async (ctx, _input, deps) => ({
    url: gatewayUrl(deps.config),
    shards: 1,
    session_start_limit: await sessionStartLimitOf(deps, requireAuth(ctx).userId),
  }),
});

export const gatewayRoutes = [gatewayRoute, gatewayBotRoute];
