// The session start limit under a race, with real WebSocket clients: however many IDENTIFYs one bot sends at once,
// no more get READY than GET /gateway/bot reported as remaining. The others are refused: past the limit with 4008,
// and those that lost every retry to the bot's other IDENTIFYs (more at once than max_concurrency) with op 9 Invalid
// Session, after which they may identify again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestServer, createBot, startTestServer } from '../support/server.js';

/** More than the command handler's retries, so that some of a burst can lose every one of them. */
const LIMIT = 10;
const BURST = 30;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ GATEWAY_SESSION_START_LIMIT: String(LIMIT) });
});
afterAll(async () => {
  await server.close();
});

type Outcome = 'ready' | 'invalid_session' | `closed ${number}`;

async function helloed(): Promise<GatewayClient> {
  const client = await connectGateway(server);
  await client.next((p) => p.op === 10);
  return client;
}

const identify = (client: GatewayClient, token: string) =>
  client.send({ op: 2, d: { token, intents: 1, properties: { os: 'linux', browser: 'test', device: 'test' } } });

function outcome(client: GatewayClient): Promise<Outcome> {
  return Promise.race([
    client.dispatch('READY', 10_000).then((): Outcome => 'ready'),
    client.next((p) => p.op === 9, 10_000).then((): Outcome => 'invalid_session'),
    client.closed.then(({ code }): Outcome => `closed ${code}`),
  ]);
}

const startLimit = async (token: string) => (await server.api('GET', '/gateway/bot', { token, scheme: 'Bot' })).body.session_start_limit;

it('never gives more READYs than remain to IDENTIFYs sent at once, and refuses the rest', async () => {
  const bot = await createBot(server);
  const { remaining } = await startLimit(bot.token);
  expect(remaining).toBe(LIMIT);

  const burst = await Promise.all(Array.from({ length: BURST }, helloed));
  for (const client of burst) identify(client, bot.token);
  const outcomes = await Promise.all(burst.map(outcome));
  const ready = outcomes.filter((o) => o === 'ready').length;
  expect(ready).toBeGreaterThan(0);
  expect(ready).toBeLessThanOrEqual(remaining);
  // Never an unknown error (4000): each refusal says whether to come back.
  expect(outcomes.filter((o) => o !== 'ready' && o !== 'invalid_session' && o !== 'closed 4008')).toEqual([]);

  // Told Invalid Session, a client identifies again (on a new connection, as clients of the widely used API do):
  // one at a time, they start until the limit, then are refused.
  const retries: Outcome[] = [];
  for (let i = 0; i < outcomes.filter((o) => o === 'invalid_session').length; i++) {
    const client = await helloed();
    identify(client, bot.token);
    retries.push(await outcome(client));
    client.close();
  }
  // A burst refuses with 4008 only once the limit is reached, so with the retries every remaining start is used.
  expect(ready + retries.filter((o) => o === 'ready').length).toBe(remaining);
  expect(retries.filter((o) => o !== 'ready' && o !== 'closed 4008')).toEqual([]);
  expect((await startLimit(bot.token)).remaining).toBe(0);

  const later = await helloed();
  identify(later, bot.token);
  expect(await outcome(later)).toBe('closed 4008');
  for (const client of burst) client.close();
});

it('counts each user on their own: another bot still starts', async () => {
  const other = await createBot(server);
  expect((await startLimit(other.token)).remaining).toBe(LIMIT);
  const client = await helloed();
  identify(client, other.token);
  expect(await outcome(client)).toBe('ready');
  expect((await startLimit(other.token)).remaining).toBe(LIMIT - 1);
  client.close();
});
