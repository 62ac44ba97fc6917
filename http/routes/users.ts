// Users routes of the spec.
import { User } from '../../contracts/users.js';
import { deleteAccount } from '../../commands/accountDeletion.js';
import { updateProfile } from '../../commands/accounts.js';
import { notFound } from '../../domain/errors.js';
import { LOCALES } from '../../domain/user.js';
import type { UserDoc } from '../../projections/users.js';
import { userById } from '../../projections/users.queries.js';
import { hasScope, requireAuth } from '../auth.js';
import { type HttpDeps, requestMeta } from '../context.js';
import { userObject } from '../../presenters/users.js';
import type { LimitSpec } from '../rateLimit.js';
import { route } from '../route.js';
import { nameSchema, snowflakeSchema } from '../validation.js';

export const patchMeSchema = {
  type: 'object',
  properties: {
    username: { ...nameSchema(2, 32), pattern: '^[^@#:`]*[^@#:`\\s][^@#:`]*$' },
    avatar: { type: ['string', 'null'] },
    locale: { type: 'string', enum: LOCALES },
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

// The spec's Limits: the users routes as a group 5/s per token with a burst of 10, and tighter ones per route.
const group: LimitSpec = { bucket: 'users', points: 5, durationSeconds: 1, burst: 5, burstSeconds: 10 };
const readUser: LimitSpec = { bucket: 'users:get', points: 5, durationSeconds: 1 };

async function user(deps: HttpDeps, userId: string): Promise<UserDoc> {
  const doc = await userById(deps.readStore, userId);
  if (!doc) throw notFound('UNKNOWN_USER', 'Unknown User');
  return doc;
}

export const getMeRoute = route({
  method: 'GET',
  path: '/users/@me',
  summary: 'Get the current user',
  tag: 'Users',
  auth: 'any',
  scope: 'identify',
  limits: [group, readUser],
  responses: { 200: { description: 'The caller, with email and verified.', schema: User } },
  errors: [],
  async handle(ctx, _input, deps) {
    const auth = requireAuth(ctx);
    // An OAuth2 token sees the email (and whether it is verified) only with the email scope, as in the widely used API.
    const me = userObject(await user(deps, auth.userId), true);
    const { email: _, verified: __, ...identity } = me;
    return hasScope(auth, 'email') ? me : identity;
  },
});

export const updateMeRoute = route({
  method: 'PATCH',
  path: '/users/@me',
  summary: 'Change the current user',
  description:
    '`avatar` is a data URI (data:image/png;base64,…); null removes it. `locale` is one of the widely used API’s locales (`de`, `en-GB`, `pt-BR`…), which interactions carry. Limited to once per 10 seconds.',
  tag: 'Users',
  auth: 'any',
  body: patchMeSchema,
  limits: [group, { bucket: 'users:@me:patch', points: 1, durationSeconds: 10 }],
  responses: { 200: { description: 'The caller as changed.', schema: User } },
  errors: [],
  async handle(ctx, { body }, deps) {
    const { userId } = requireAuth(ctx);
    const avatar = body.avatar === undefined ? undefined : body.avatar === null ? null : await deps.images.parseDataUri(body.avatar, 'avatar');
    await updateProfile(deps, { ...requestMeta(ctx), actorId: userId }, { username: body.username, avatar, locale: body.locale });
    return userObject(await user(deps, userId), true);
  },
});

// As the widely used API's client deletes an account. A bot token is refused with 403 (not 401, which would make
// the client drop a token that is still good); an OAuth2 token never reaches here (http/auth.ts).
export const deleteMeRoute = route({
  method: 'POST',
  path: '/users/@me/delete',
  summary: 'Delete the current user’s account',
  description:
    'Takes the account’s password. The account leaves its guilds and group DMs, its OAuth2 grants, sessions and gateway connections (closed 4004) end, its username and email register again, and it shows as `Deleted User` (same id) wherever it appears, its messages included. Refused while it owns a guild or an application. Session tokens only: a bot token gets 403. Limited to 5 a minute.',
  tag: 'Users',
  auth: 'session',
  body: deleteMeSchema,
  // A few tries a minute: each one checks a password.
  limits: [group, { bucket: 'users:@me:delete', points: 5, durationSeconds: 60 }],
  responses: { 204: { description: 'The account is deleted; its tokens answer 401 from now on.' } },
  errors: ['GUILD_OWNERSHIP', 'APPLICATION_OWNERSHIP', 'BOTS_NOT_ALLOWED'],
  handle: (ctx, { body: { password } }, deps) => deleteAccount(deps, { ...requestMeta(ctx), actorId: requireAuth(ctx).userId }, { password }),
});

export const relationshipsRoute = route({
  method: 'GET',
  path: '/users/@me/relationships',
  summary: 'List the current user’s relationships',
  description: 'Always empty: no route adds a relationship.',
  tag: 'Users',
  auth: 'any',
  limits: [group, { bucket: 'users:@me:relationships', points: 3, durationSeconds: 1 }],
  responses: { 200: { description: 'An empty list.', schema: { type: 'array', items: {}, maxItems: 0 } } },
  errors: [],
  // The spec describes no route that adds a relationship, so no account has one yet.
  handle: () => [],
});

export const getUserRoute = route({
  method: 'GET',
  path: '/users/:userId',
  summary: 'Get a user',
  tag: 'Users',
  auth: 'none',
  params: userIdParam,
  limits: [group, readUser],
  responses: { 200: { description: 'The user.', schema: User } },
  errors: ['UNKNOWN_USER'],
  handle: async (_ctx, { params }, deps) => userObject(await user(deps, params.userId)),
});

export const userRoutes = [getMeRoute, updateMeRoute, deleteMeRoute, relationshipsRoute, getUserRoute];
