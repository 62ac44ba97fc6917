// Property-based fuzzing of every route the API and the CDN serve: fast-check generates path parameters, queries,
// bodies and credentials, mixing valid ids with edge values. Whatever it sends, the answer is never a 5xx, and a
// refused request (4xx) appends nothing to the log. Runs are bounded per route so the suite stays quick.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { apiRouter } from '../../http/app.js';
import { router } from '../../http/route.js';
import { cdnRoutes } from '../../http/routes/cdn.js';
import { type TestBot, type TestServer, type TestUser, createBot, registerUser, startTestServer } from '../support/server.js';
import { createGuild, join } from './guildSupport.js';

const RUNS_PER_ROUTE = 40;

const server: TestServer = await startTestServer();
afterAll(() => server.close());

/** Routes as [method, path pattern], from the routers themselves so that a new route is fuzzed without a new line here. */
function routesOf(router: ReturnType<typeof apiRouter>, prefix: string): [string, string][] {
  const routes = new Map<string, [string, string]>();
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string' || !layer.path.startsWith('/')) continue;
    for (const method of layer.methods) if (method !== 'HEAD') routes.set(`${method} ${layer.path}`, [method, `${prefix}${layer.path}`]);
  }
  return [...routes.values()];
}

const routes = [...routesOf(apiRouter(server.runtime), '/api/v1'), ...routesOf(router(cdnRoutes, server.runtime), '')];

interface Fixtures {
  owner: TestUser;
  bot: TestBot;
  ids: Record<string, string>;
}

let fixtures: Fixtures | null = null;
/** Set when a write succeeded: only then may the fixtures have been deleted or reset. */
let dirty = true;

/**
 * The server as fixture set-up uses it: fuzzed requests share its rate-limit buckets (invites, registration), so a
 * 429 here waits as the answer says and tries again, a few times at most.
 */
const patient: TestServer = {
  ...server,
  async api(method, path, options) {
    for (let attempt = 0; ; attempt++) {
      const response = await server.api(method, path, options);
      if (response.status !== 429 || attempt === 4) return response;
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(Number(response.body.retry_after) * 1000)));
    }
  },
};

async function newWebhook(owner: TestUser, channelId: string) {
  const webhook = await patient.api('POST', `/channels/${channelId}/webhooks`, { token: owner.token, body: { name: 'fuzz hook' } });
  return { webhookId: webhook.body.id as string, token: webhook.body.token as string };
}

/** Whether a fixture is still there: only 403, 404 or 401 say it is gone (a 429 is the checker's own rate limit). */
const ok = async (request: Promise<{ status: number }>) => ![401, 403, 404].includes((await request).status);

/**
 * A guild with a channel, a message, a role, a webhook and an invite, and a bot in it. A fuzzed request may delete or
 * reset any of it; only what broke is made again (registering is rate-limited per address, so the owner is kept).
 */
async function currentFixtures(): Promise<Fixtures> {
  if (fixtures && !dirty) return fixtures;
  dirty = false;
  let owner = fixtures?.owner;
  // Only a 401 means the session is gone: the users routes' own rate limit may answer 429.
  if (!owner || (await patient.api('GET', '/users/@me', { token: owner.token })).status === 401) {
    owner = await registerUser(patient);
    fixtures = null;
  }
  if (fixtures) {
    const { bot, ids } = fixtures;
    const [channel, message, webhook, member] = await Promise.all([
      ok(server.api('GET', `/channels/${ids.channelId}`, { token: owner.token })),
      ok(server.api('GET', `/channels/${ids.channelId}/messages/${ids.messageId}`, { token: owner.token })),
      ok(server.api('GET', `/webhooks/${ids.webhookId}`, { token: owner.token })),
      ok(server.api('GET', `/guilds/${ids.guildId}/members/${bot.id}`, { token: bot.token, scheme: 'Bot' })),
    ]);
    // A deleted message or webhook in a channel still standing is made again alone: most deletes hit only those.
    if (channel && member) {
      if (!message)
        ids.messageId = (await patient.api('POST', `/channels/${ids.channelId}/messages`, { token: owner.token, body: { content: 'fuzz target' } })).body.id;
      if (!webhook) Object.assign(ids, await newWebhook(owner, ids.channelId));
      return fixtures;
    }
  }
  const guild = await createGuild(patient, owner);
  const bot = await createBot(patient, owner);
  await join(patient, guild, bot, 'Bot');
  const message = await patient.api('POST', `/channels/${guild.channelId}/messages`, { token: owner.token, body: { content: 'fuzz target' } });
  await patient.api('PUT', `/channels/${guild.channelId}/messages/${message.body.id}/reactions/%F0%9F%91%8D/@me`, { token: owner.token });
  const role = await patient.api('POST', `/guilds/${guild.id}/roles`, { token: owner.token, body: { name: 'fuzzed' } });
  fixtures = {
    owner,
    bot,
    ids: {
      guildId: guild.id,
      channelId: guild.channelId,
      messageId: message.body.id,
      roleId: role.body.id,
      overwriteId: role.body.id,
      userId: bot.id,
      ...(await newWebhook(owner, guild.channelId)),
      code: guild.code,
      id: bot.applicationId,
      packId: guild.id,
      emoji: '%F0%9F%91%8D',
    },
  };
  return fixtures;
}

const edgeNumbers = fc.constantFrom(1e21, -1, 0, 1.5, 2 ** 53, 2 ** 64, Number.MAX_SAFE_INTEGER, 1e309 as number, -0);
const edgeStrings = fc.constantFrom(
  '',
  '0',
  '-1',
  '1e21',
  '1e309',
  'abc',
  '@me',
  '9'.repeat(30),
  '9'.repeat(70),
  '18446744073709551615',
  '18446744073709551616',
  '2016-12-31T23:59:60Z',
  'NaN',
  'Infinity',
  'true',
  '..',
  '%00',
  ' ',
  '\u0000',
  'a'.repeat(5000),
);
const scalar = fc.oneof(
  { arbitrary: edgeNumbers, weight: 3 },
  { arbitrary: edgeStrings, weight: 3 },
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 40, unit: 'grapheme' }),
);

/** Field names the routes read, so that generated bodies reach past "this field is not allowed". */
const FIELDS = [
  'name',
  'content',
  'permissions',
  'allow',
  'deny',
  'type',
  'id',
  'position',
  'color',
  'flags',
  'max_age',
  'max_uses',
  'delete_message_seconds',
  'delete_message_days',
  'limit',
  'embeds',
  'components',
  'nonce',
  'avatar',
  'icon',
  'topic',
  'nick',
  'roles',
  'channel_id',
  'message_id',
  'custom_id',
  'values',
  'recipient_id',
  'recipients',
  'access_tokens',
  'username',
  'password',
  'email',
  'login',
  'interaction_url',
  'parent_id',
  'permission_overwrites',
  'owner_id',
  'code',
  'messages',
  'hoist',
  'mentionable',
  'communication_disabled_until',
  'temporary',
  'unique',
  'afk_timeout',
  'tts',
  'allowed_mentions',
  'message_reference',
  'attachments',
  'nsfw',
  'rate_limit_per_user',
  'bitrate',
  'user_limit',
  'description',
  'system_channel_id',
  'text',
  'blocks',
  'wait',
  'deaf',
  'mute',
  'lock_permissions',
] as const;
const QUERY = [
  'limit',
  'before',
  'after',
  'around',
  'user_id',
  'action_type',
  'wait',
  'with_counts',
  'size',
  'quality',
  'animated',
  'width',
  'height',
  'format',
  'delete_message_days',
] as const;

const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...FIELDS), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const body = fc.oneof(fc.constant(undefined), fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }), value, fc.jsonValue({ maxDepth: 3 }));

const query = fc.dictionary(fc.constantFrom(...QUERY), fc.oneof(edgeStrings, fc.string({ maxLength: 20 }), fc.integer().map(String)), { maxKeys: 3 });
/** A path parameter: null (half the time) stands for the fixture's valid id, so that requests reach past the lookups. */
const param = fc.option(fc.oneof(edgeStrings, fc.string({ maxLength: 30, unit: 'grapheme' })).map(encodeURIComponent), { freq: 2, nil: null });
const credential = fc.constantFrom('owner', 'bot', 'none', 'garbage');

describe('fuzzed requests on every route', () => {
  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(90);
  });

  it.each(routes)(
    '%s %s: never a 5xx; a refusal appends nothing',
    async (method, pattern) => {
      const names = [...pattern.matchAll(/:(\w+)/g)].map((m) => m[1]);
      await fc.assert(
        fc.asyncProperty(fc.tuple(...names.map(() => param)), query, body, credential, async (picks, q, b, who) => {
          const { owner, bot, ids } = await currentFixtures();
          const path = names.reduce((path, name, i) => path.replace(`:${name}`, picks[i] ?? ids[name] ?? name), pattern);
          const search = new URLSearchParams(q as Record<string, string>).toString();
          const token = who === 'owner' ? owner.token : who === 'bot' ? bot.token : who === 'garbage' ? 'not-a-token' : undefined;
          const before = await server.runtime.store.headPosition();
          const response = await server.call(method, `${path}${search ? `?${search}` : ''}`, {
            token,
            scheme: who === 'bot' ? 'Bot' : 'Bearer',
            ...(b === undefined || method === 'GET' ? {} : { rawBody: JSON.stringify(b), headers: { 'content-type': 'application/json' } }),
          });
          expect(response.status, `${method} ${path}?${search} ${JSON.stringify(b)?.slice(0, 300)} → ${response.text.slice(0, 300)}`).toBeLessThan(500);
          if (response.status < 400 && method !== 'GET') dirty = true;
          if (response.status >= 400) {
            const appended = (await server.runtime.store.readAll({ fromPosition: before ?? undefined, maxCount: 10 })).filter(
              (e) => !before || e.position.commit > before.commit,
            );
            expect(
              appended.map((e) => `${e.streamId} ${e.type} ${JSON.stringify(e.data).slice(0, 200)}`),
              `${method} ${path} ${response.status} appended`,
            ).toEqual([]);
          }
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
      // Fixture set-up may wait out a rate limit the fuzzed requests ran into.
    },
    90_000,
  );
});
