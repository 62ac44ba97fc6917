// The gateway routes (http/routes/gateway.ts): where the WebSocket is.
import { ref } from './components.js';
import type { RouteDoc } from './entry.js';

export const gatewayDocs: RouteDoc[] = [
  { method: 'GET', path: '/gateway', summary: 'Get the gateway URL', tag: 'Gateway', auth: 'none', responses: { 200: { description: 'The WebSocket URL.', schema: ref('Gateway') } }, errors: [] },
  {
    method: 'GET',
    path: '/gateway/bot',
    summary: 'Get the gateway URL and session start limit',
    tag: 'Gateway',
    auth: 'any',
    responses: { 200: { description: 'The URL, one shard, and the session starts left.', schema: ref('GatewayBot') } },
    errors: [],
  },
];
