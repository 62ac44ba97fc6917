// Accounts and applications (outside the spec, in the widely used API's shapes): what a developer needs to get a
// session, register an application and obtain a bot token.
import Router from '@koa/router';
import type { Context } from 'koa';
import { createApplication, createBot, login, registerUser, resetBotToken, resetClientSecret } from '../../commands/accounts.js';
import { notFound } from '../../domain/errors.js';
import { applicationById, applicationIdFor } from '../../projections/applications.queries.js';
import { requireSession } from '../auth.js';
import { type HttpDeps, requestMeta } from '../context.js';
import { rateLimit } from '../rateLimit.js';
import { nameSchema, parseBody, snowflakeSchema } from '../validation.js';
import { fetchApplicationObject, redirectUrisSchema } from './applications.js';

export const registerSchema = {
  type: 'object',
  properties: {
    username: { ...nameSchema(2, 32), pattern: '^[^@#:`]*[^@#:`\\s][^@#:`]*$' },
    password: { type: 'string', minLength: 8, maxLength: 128 },
    email: { type: 'string', format: 'email', maxLength: 254 },
  },
  required: ['username', 'password'],
  additionalProperties: false,
} as const;

export const loginSchema = {
  type: 'object',
  properties: { login: { type: 'string', minLength: 1, maxLength: 300 }, password: { type: 'string', minLength: 1, maxLength: 128 } },
  required: ['login', 'password'],
  additionalProperties: false,
} as const;

export const applicationSchema = {
  type: 'object',
  properties: { name: nameSchema(2, 32), redirect_uris: redirectUrisSchema },
  required: ['name'],
  additionalProperties: false,
} as const;

export const idParam = { type: 'object', properties: { id: snowflakeSchema }, required: ['id'] } as const;

export function accountRoutes(deps: HttpDeps): Router {
  const router = new Router();
  // Password guessing is slow by design (scrypt); these buckets also keep it slow from outside.
  const authLimit = rateLimit({ bucket: 'auth', points: 60, durationSeconds: 60, key: (ctx) => `ip:${ctx.ip}` });
  /** The id of the application the path names, by its id or its bot user's (applicationIdFor). */
  const applicationOf = (ctx: Context) => applicationIdFor(deps.readStore, parseBody(idParam, ctx.params).id);

  router.post('/auth/register', authLimit, async (ctx) => {
    const body = parseBody(registerSchema, ctx.request.body);
    const { token, userId } = await registerUser(deps, requestMeta(ctx), body);
    ctx.status = 201;
    ctx.body = { token, user_id: userId };
  });

  router.post('/auth/login', authLimit, async (ctx) => {
    const body = parseBody(loginSchema, ctx.request.body);
    const { token, userId } = await login(deps, requestMeta(ctx), body);
    ctx.body = { token, user_id: userId };
  });

  router.post('/applications', async (ctx) => {
    const auth = requireSession(ctx);
    const body = parseBody(applicationSchema, ctx.request.body);
    const { applicationId, clientSecret } = await createApplication(deps, { ...requestMeta(ctx), actorId: auth.userId }, { name: body.name, redirectUris: body.redirect_uris });
    ctx.status = 201;
    ctx.body = { ...(await fetchApplicationObject(deps, applicationId)), client_secret: clientSecret };
  });

  router.get('/applications/:id', async (ctx) => {
    const auth = requireSession(ctx);
    const id = await applicationOf(ctx);
    const application = await applicationById(deps.readStore, id);
    if (!application || application.owner_id !== auth.userId) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
    ctx.body = await fetchApplicationObject(deps, id);
  });

  router.post('/applications/:id/bot', async (ctx) => {
    const auth = requireSession(ctx);
    const id = await applicationOf(ctx);
    const application = await applicationById(deps.readStore, id);
    const { botUserId, token, discriminator } = await createBot(deps, { ...requestMeta(ctx), actorId: auth.userId }, id, application?.name ?? 'bot');
    ctx.status = 201;
    ctx.body = { id: botUserId, username: application?.name, discriminator, bot: true, token };
  });

  router.post('/applications/:id/bot/reset', async (ctx) => {
    const auth = requireSession(ctx);
    const id = await applicationOf(ctx);
    ctx.body = await resetBotToken(deps, { ...requestMeta(ctx), actorId: auth.userId }, id);
  });

  // The OAuth2 client secret, shown this once; the old one stops working.
  router.post('/applications/:id/reset', async (ctx) => {
    const auth = requireSession(ctx);
    const id = await applicationOf(ctx);
    const { clientSecret } = await resetClientSecret(deps, { ...requestMeta(ctx), actorId: auth.userId }, id);
    ctx.body = { client_secret: clientSecret };
  });

  return router;
}
