// Where the WebSocket gateway is.
import { integer, object, string } from './schema.js';

export const Gateway = object('Where to open the WebSocket gateway.', { url: string });

export const GatewayBot = object('The gateway for a bot, with how many sessions it may still start.', {
  url: string,
  shards: integer,
  session_start_limit: object('Session starts left in the window.', { total: integer, remaining: integer, reset_after: integer, max_concurrency: integer }),
});
