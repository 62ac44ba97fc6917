// POST /interactions/click: a logged-in person clicks a button or submits a select menu on a message. The click is
// checked and recorded (204), and delivered to the posting webhook's interaction_url asynchronously.
import Router from '@koa/router';
import { clickComponent } from '../../commands/interactions.js';
import { actorMeta } from '../actor.js';
import { requireSession } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { rateLimit } from '../rateLimit.js';
import { parseBody, snowflakeSchema } from '../validation.js';

const clickSchema = {
  type: 'object',
  properties: {
    channel_id: snowflakeSchema,
    message_id: snowflakeSchema,
    custom_id: { type: 'string', minLength: 1, maxLength: 100 },
    values: { type: 'array', maxItems: 25, items: { type: 'string', minLength: 1, maxLength: 100 } },
  },
  required: ['channel_id', 'message_id', 'custom_id'],
  additionalProperties: false,
} as const;

export function interactionRoutes(deps: HttpDeps): Router {
  const router = new Router();
  // The spec: 60 per user per minute, bucket interaction:click::user_id.
  const limit = rateLimit({ bucket: 'interaction:click', points: 60, durationSeconds: 60, key: (ctx) => `interaction:click::${ctx.state.auth?.userId ?? `ip:${ctx.ip}`}` });

  // The session is checked before the limit, so that the bucket is the user's.
  router.post('/interactions/click', (ctx, next) => (requireSession(ctx), next()), limit, async (ctx) => {
    const click = parseBody(clickSchema, ctx.request.body);
    await clickComponent(deps, actorMeta(ctx), click);
    noContent(ctx);
  });

  return router;
}
