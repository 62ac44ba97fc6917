// Users routes of the spec.
import Router from '@koa/router';
import { deleteAccount } from '../../commands/accountDeletion.js';
import { updateProfile } from '../../commands/accounts.js';
import { notFound } from '../../domain/errors.js';
import type { UserDoc } from '../../projections/users.js';
import { userById } from '../../projections/users.queries.js';
import { hasScope, requireAuth, requireSession } from '../auth.js';
import { type HttpDeps, requestMeta } from '../context.js';
import { userObject } from '../../presenters/users.js';
import { rateLimit } from '../rateLimit.js';
import { nameSchema, parseBody, snowflakeSchema } from '../validation.js';

export const patchMeSchema = {
  type: 'object',
  properties: {
    username: { ...nameSchema(2, 32), pattern: '^[^@#:`]*[^@#:`\\s][^@#:`]*$' },
    avatar: { type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;

export const deleteMeSchema = {
  type: 'object',
  properties: { password: { type: 'string', minLength: 1, maxLength: 128 } },
  required: ['password'],
  additionalProperties: false,
} as const;

export const userIdParam = { type: 'object', properties: { userId: snowflakeSchema }, required: ['userId'] } as const;

export function userRoutes(deps: HttpDeps): Router {
  const router = new Router();
  // The spec's Limits: the users routes as a group 5/s per token with a burst of 10, and tighter ones per route.
  const group = rateLimit({ bucket: 'users', points: 5, durationSeconds: 1, burst: 5, burstSeconds: 10 });
  const readUser = rateLimit({ bucket: 'users:get', points: 5, durationSeconds: 1 });
  const patchMe = rateLimit({ bucket: 'users:@me:patch', points: 1, durationSeconds: 10 });
  const relationships = rateLimit({ bucket: 'users:@me:relationships', points: 3, durationSeconds: 1 });
  // A few tries a minute: each one checks a password.
  const deleteMe = rateLimit({ bucket: 'users:@me:delete', points: 5, durationSeconds: 60 });

  async function user(userId: string): Promise<UserDoc> {
    const doc = await userById(deps.readStore, userId);
    if (!doc) throw notFound('UNKNOWN_USER', 'Unknown User');
    return doc;
  }

  router.get('/users/@me', group, readUser, async (ctx) => {
    const auth = requireAuth(ctx);
    // An OAuth2 token sees the email (and whether it is verified) only with the email scope, as in the widely used API.
    const me = userObject(await user(auth.userId), true);
    const { email: _, verified: __, ...identity } = me;
    ctx.body = hasScope(auth, 'email') ? me : identity;
  });

  router.patch('/users/@me', group, patchMe, async (ctx) => {
    const auth = requireAuth(ctx);
    const body = parseBody(patchMeSchema, ctx.request.body);
    const avatar = body.avatar === undefined ? undefined : body.avatar === null ? null : await deps.images.parseDataUri(body.avatar, 'avatar');
    await updateProfile(deps, { ...requestMeta(ctx), actorId: auth.userId }, { username: body.username, avatar });
    ctx.body = userObject(await user(auth.userId), true);
  });

  // As the widely used API's client deletes an account. A bot token is refused with 403 (not 401, which would make
  // the client drop a token that is still good); an OAuth2 token never reaches here (http/auth.ts).
  router.post('/users/@me/delete', group, deleteMe, async (ctx) => {
    const auth = requireSession(ctx);
    const { password } = parseBody(deleteMeSchema, ctx.request.body);
    await deleteAccount(deps, { ...requestMeta(ctx), actorId: auth.userId }, { password });
    ctx.status = 204;
  });

  router.get('/users/@me/relationships', group, relationships, async (ctx) => {
    requireAuth(ctx);
    // The spec describes no route that adds a relationship, so no account has one yet.
    ctx.body = [];
  });

  router.get('/users/:userId', group, readUser, async (ctx) => {
    const { userId } = parseBody(userIdParam, ctx.params);
    ctx.body = userObject(await user(userId));
  });

  return router;
}
