// Accounts and applications (outside the spec, in the widely used API's shapes): what a developer needs to get a
// session, register an application and obtain a bot token.
import { Application, ApplicationWithSecret, BotToken, BotUser, ClientSecret, Session } from '../../contracts/applications.js';
import type { Context } from 'koa';
import { createApplication, createBot, login, registerUser, resetBotToken, resetClientSecret } from '../../commands/accounts.js';
import { notFound } from '../../domain/errors.js';
import { applicationById, applicationIdFor } from '../../projections/applications.queries.js';
import { requireSession } from '../auth.js';
import { type HttpDeps, requestMeta } from '../context.js';
import type { LimitSpec } from '../rateLimit.js';
import { route } from '../route.js';
import { fetchApplicationObject, redirectUrisSchema } from '../shared/applications.js';
import { nameSchema, snowflakeSchema } from '../validation.js';

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

// Password guessing is slow by design (scrypt); this bucket also keeps it slow from outside.
const authLimit: LimitSpec = { bucket: 'auth', points: 60, durationSeconds: 60, key: (ctx) => `ip:${ctx.ip}` };

/** The application a path's id names, by its id or its bot user's (applicationIdFor). */
const applicationOf = (deps: HttpDeps, id: string) => applicationIdFor(deps.readStore, id);

/** The caller, a person, as event metadata. */
const personMeta = (ctx: Context) => ({ ...requestMeta(ctx), actorId: requireSession(ctx).userId });

export const registerRoute = route({
  method: 'POST',
  path: '/auth/register',
  summary: 'Register an account',
  description: 'Answers a session token. Limited per client address (60 a minute, shared with login).',
  tag: 'Accounts',
  auth: 'none',
  body: registerSchema,
  limits: [authLimit],
  responses: { 201: { description: 'The new account’s session.', schema: Session } },
  errors: [],
  async handle(ctx, { body }, deps) {
    const { token, userId } = await registerUser(deps, requestMeta(ctx), body);
    return { token, user_id: userId };
  },
});

export const loginRoute = route({
  method: 'POST',
  path: '/auth/login',
  summary: 'Log in',
  description:
    '`login` is a username (username#discriminator when several share it) or an email. A wrong login or password answers INVALID_FORM_BODY on both fields.',
  tag: 'Accounts',
  auth: 'none',
  body: loginSchema,
  limits: [authLimit],
  responses: { 200: { description: 'A new session.', schema: Session } },
  errors: ['BOT_CANNOT_LOG_IN'],
  async handle(ctx, { body }, deps) {
    const { token, userId } = await login(deps, requestMeta(ctx), body);
    return { token, user_id: userId };
  },
});

export const createApplicationRoute = route({
  method: 'POST',
  path: '/applications',
  summary: 'Create an application',
  tag: 'Accounts',
  auth: 'session',
  body: applicationSchema,
  responses: { 201: { description: 'The application, with its client secret.', schema: ApplicationWithSecret } },
  errors: [],
  async handle(ctx, { body }, deps) {
    const { applicationId, clientSecret } = await createApplication(deps, personMeta(ctx), { name: body.name, redirectUris: body.redirect_uris });
    return { ...(await fetchApplicationObject(deps, applicationId)), client_secret: clientSecret };
  },
});

export const getApplicationRoute = route({
  method: 'GET',
  path: '/applications/:id',
  summary: 'Get one of your applications',
  tag: 'Accounts',
  auth: 'session',
  params: idParam,
  responses: { 200: { description: 'The application.', schema: Application } },
  errors: ['UNKNOWN_APPLICATION'],
  async handle(ctx, { params }, deps) {
    const id = await applicationOf(deps, params.id);
    const application = await applicationById(deps.readStore, id);
    if (!application || application.owner_id !== requireSession(ctx).userId) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
    return fetchApplicationObject(deps, id);
  },
});

export const createBotRoute = route({
  method: 'POST',
  path: '/applications/:id/bot',
  summary: 'Add a bot user to an application',
  tag: 'Accounts',
  auth: 'session',
  params: idParam,
  responses: { 201: { description: 'The bot user and its token.', schema: BotUser } },
  errors: ['UNKNOWN_APPLICATION', 'MISSING_ACCESS', 'APPLICATION_HAS_BOT'],
  async handle(ctx, { params }, deps) {
    const id = await applicationOf(deps, params.id);
    const application = await applicationById(deps.readStore, id);
    const username = application?.name ?? 'bot';
    const { botUserId, token, discriminator } = await createBot(deps, personMeta(ctx), id, username);
    return { id: botUserId, username, discriminator, bot: true as const, token };
  },
});

export const resetBotTokenRoute = route({
  method: 'POST',
  path: '/applications/:id/bot/reset',
  summary: 'Reset the bot’s token',
  tag: 'Accounts',
  auth: 'session',
  params: idParam,
  responses: { 200: { description: 'The new token.', schema: BotToken } },
  errors: ['UNKNOWN_APPLICATION', 'MISSING_ACCESS', 'UNKNOWN_USER'],
  handle: async (ctx, { params }, deps) => resetBotToken(deps, personMeta(ctx), await applicationOf(deps, params.id)),
});

// The OAuth2 client secret, shown this once; the old one stops working.
export const resetClientSecretRoute = route({
  method: 'POST',
  path: '/applications/:id/reset',
  summary: 'Reset the application’s client secret',
  description: 'The OAuth2 client secret, shown this once; the old one stops working.',
  tag: 'Accounts',
  auth: 'session',
  params: idParam,
  responses: { 200: { description: 'The new secret.', schema: ClientSecret } },
  errors: ['UNKNOWN_APPLICATION', 'MISSING_ACCESS'],
  async handle(ctx, { params }, deps) {
    const { clientSecret } = await resetClientSecret(deps, personMeta(ctx), await applicationOf(deps, params.id));
    return { client_secret: clientSecret };
  },
});

export const accountRoutes = [
  registerRoute,
  loginRoute,
  createApplicationRoute,
  getApplicationRoute,
  createBotRoute,
  resetBotTokenRoute,
  resetClientSecretRoute,
];
