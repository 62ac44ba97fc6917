// Clicks and their signed, retried delivery, end to end: a real HTTPS bot endpoint inside the test receives the
// deliveries and checks each signature with its own HMAC code; the bot's private reply reaches only the clicker on
// the gateway; retries follow the backoff and survive a restart of the service.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway } from '../support/gateway.js';
import { type TestServer, createBot, registerUser, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, newMember } from './guildSupport.js';

const BASE_MS = 400;
const ENV = { INTERACTIONS_ALLOW_PRIVATE: '1', DELIVERY_BACKOFF_BASE_MS: String(BASE_MS) };

interface Delivery {
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The bot's own check of X-Service-Signature and X-Service-Timestamp. */
  verified: boolean;
}

/** A bot's HTTPS endpoint: answers each delivery with the next status of `statuses` (the last one repeats). */
class BotEndpoint {
  readonly deliveries: Delivery[] = [];
  statuses: number[] = [200];
  token = '';
  private server!: Server;
  private waiters: (() => void)[] = [];

  async start(): Promise<string> {
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' });
    this.server = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.deliveries.push({ at: Date.now(), headers: req.headers, body, verified: this.verify(req.headers, body) });
        res.statusCode = this.statuses[Math.min(this.deliveries.length - 1, this.statuses.length - 1)];
        res.end();
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/interactions`;
  }

  private verify(headers: Delivery['headers'], body: string): boolean {
    const timestamp = String(headers['x-service-timestamp']);
    const signature = Buffer.from(String(headers['x-service-signature']));
    const expected = Buffer.from(`v1=${createHmac('sha256', this.token).update(`v1:${timestamp}:${body}`).digest('hex')}`);
    const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
    return fresh && signature.length === expected.length && timingSafeEqual(signature, expected);
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} deliveries, got ${this.deliveries.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.deliveries;
  }

  reset(statuses: number[], token: string) {
    this.deliveries.length = 0;
    this.statuses = statuses;
    this.token = token;
  }

  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const components = [
  {
    type: 1,
    components: [
      { type: 2, style: 1, label: 'Accept', custom_id: 'accept' },
      { type: 2, style: 2, label: 'Off', custom_id: 'off', disabled: true },
      { type: 2, style: 5, label: 'Docs', url: 'https://example.com/docs' },
    ],
  },
  {
    type: 1,
    components: [
      {
        type: 3,
        custom_id: 'flavour',
        min_values: 1,
        max_values: 2,
        options: [
          { label: 'Vanilla', value: 'vanilla' },
          { label: 'Mint', value: 'mint' },
          { label: 'Lemon', value: 'lemon' },
        ],
      },
    ],
  },
];

let server: TestServer;
const bot = new BotEndpoint();
let botUrl: string;

beforeAll(async () => {
  botUrl = await bot.start();
  server = await startTestServer(ENV);
});
afterAll(async () => {
  await server.close();
  await bot.close();
});

interface Setup {
  guild: TestGuild;
  hook: { id: string; token: string };
  messageId: string;
}

/** A guild, a webhook with the bot's interaction_url (or none), and a message of the webhook with components. */
async function setup(target: TestServer = server, interactionUrl: string | null = botUrl): Promise<Setup> {
  const guild = await createGuild(target);
  const created = await target.api('POST', `/channels/${guild.channelId}/webhooks`, {
    token: guild.owner.token,
    body: { name: 'Bot hook', interaction_url: interactionUrl },
  });
  if (created.status !== 200) throw new Error(`webhook failed: ${created.status} ${created.text}`);
  const hook = { id: created.body.id, token: created.body.token };
  const message = await target.api('POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, { body: { content: 'Choose', components } });
  return { guild, hook, messageId: message.body.id };
}

const click = (s: Setup, token: string, body: Record<string, unknown>, target = server) =>
  target.api('POST', '/interactions/click', { token, body: { channel_id: s.guild.channelId, message_id: s.messageId, ...body } });

async function deliveriesOf(s: Setup, target = server) {
  return (await target.api('GET', `/webhooks/${s.hook.id}/interactions`, { token: s.guild.owner.token })).body;
}

async function waitForStatus(s: Setup, status: string, target = server) {
  for (let i = 0; i < 100; i++) {
    const [latest] = await deliveriesOf(s, target);
    if (latest?.status === status) return latest;
    await sleep(100);
  }
  throw new Error(`delivery never became ${status}: ${JSON.stringify(await deliveriesOf(s, target))}`);
}

describe('delivery', () => {
  it('POSTs the spec’s payload with its headers and a signature the bot verifies; the private reply reaches only the clicker', async () => {
    const s = await setup();
    bot.reset([200], s.hook.token);
    const clicker = await newMember(server, s.guild);
    const bystander = await newMember(server, s.guild);
    const intents = (1 << 0) | (1 << 9) | (1 << 15);
    const [clickerGateway, bystanderGateway] = await Promise.all([connectGateway(server), connectGateway(server)]);
    await Promise.all([clickerGateway.identify(clicker.token, intents), bystanderGateway.identify(bystander.token, intents)]);

    const response = await click(s, clicker.token, { custom_id: 'flavour', values: ['mint', 'lemon'] });
    expect(response.status).toBe(204);
    const [delivery] = await bot.waitFor(1);
    expect(delivery.verified).toBe(true);
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Service-Interactions/1.0',
      'x-service-timestamp': expect.stringMatching(/^\d+$/),
    });
    expect(delivery.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    const payload = JSON.parse(delivery.body);
    expect(payload).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: 3,
      token: expect.any(String),
      version: 1,
      channel_id: s.guild.channelId,
      guild_id: s.guild.id,
      message_id: s.messageId,
      user: { id: clicker.id, username: clicker.username, discriminator: expect.any(String), avatar: null },
      data: { custom_id: 'flavour', component_type: 3, values: ['mint', 'lemon'] },
    });
    // Times in the widely used API's form, as every presented timestamp.
    const time = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    const delivered = await waitForStatus(s, 'delivered');
    expect(delivered).toMatchObject({ clicked_at: time, next_attempt_at: null });
    expect(delivered.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200, outcome: 'delivered', started_at: time, finished_at: time })]);

    // The bot answers through its webhook: ephemeral, mentioning the clicker.
    const reply = await server.api('POST', `/webhooks/${s.hook.id}/${s.hook.token}?wait=true`, {
      body: { content: `<@${payload.user.id}> you chose mint and lemon`, flags: 64 },
    });
    expect(reply.status).toBe(200);
    const after = await server.api('POST', `/channels/${s.guild.channelId}/messages`, { token: s.guild.owner.token, body: { content: 'public' } });
    const seen = await clickerGateway.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === reply.body.id);
    expect(seen.d).toMatchObject({ webhook_id: s.hook.id, flags: 64 });
    await bystanderGateway.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === after.body.id);
    expect(bystanderGateway.received.some((p) => p.t === 'MESSAGE_CREATE' && p.d.id === reply.body.id)).toBe(false);
    clickerGateway.close();
    bystanderGateway.close();
  });

  it('retries a 500 after the backoff, then delivers: two attempts recorded', async () => {
    const s = await setup();
    bot.reset([500, 200], s.hook.token);
    const member = await newMember(server, s.guild);
    expect((await click(s, member.token, { custom_id: 'accept' })).status).toBe(204);
    const [first, second] = await bot.waitFor(2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(BASE_MS * 0.8);
    expect(first.body).toBe(second.body);
    expect(second.verified).toBe(true);
    const delivered = await waitForStatus(s, 'delivered');
    expect(delivered.attempts).toEqual([
      expect.objectContaining({ attempt: 1, status: 500, outcome: 'failed' }),
      expect.objectContaining({ attempt: 2, status: 200, outcome: 'delivered' }),
    ]);
  });

  it("takes a click's interaction id for no bot interaction: its callback answers 404, whatever the token", async () => {
    const s = await setup();
    bot.reset([200], s.hook.token);
    const member = await newMember(server, s.guild);
    await click(s, member.token, { custom_id: 'accept' });
    const [delivery] = await bot.waitFor(1);
    await waitForStatus(s, 'delivered');
    const { id, token } = JSON.parse(delivery.body) as { id: string; token: string };
    for (const tried of [token, 'not-a-token']) {
      const response = await server.api('POST', `/interactions/${id}/${tried}/callback`, { body: { type: 4, data: { content: 'hi' } } });
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 404, code: 'UNKNOWN_INTERACTION' });
    }
  });

  it('drops on a 4xx other than 429 after one attempt; retries a 429', async () => {
    const s = await setup();
    bot.reset([400], s.hook.token);
    const member = await newMember(server, s.guild);
    await click(s, member.token, { custom_id: 'accept' });
    await bot.waitFor(1);
    const dropped = await waitForStatus(s, 'dropped');
    expect(dropped.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 400, outcome: 'dropped' })]);
    await sleep(BASE_MS * 2);
    expect(bot.deliveries).toHaveLength(1);

    bot.reset([429, 204], s.hook.token);
    await click(s, member.token, { custom_id: 'accept' });
    await bot.waitFor(2);
    expect((await waitForStatus(s, 'delivered')).attempts.map((a: { status: number }) => a.status)).toEqual([429, 204]);
  });

  it('gives up after 5 failed attempts, with the delays growing', async () => {
    // A service of its own with a short base, so the four growing delays fit in a few seconds.
    const fast = await startTestServer({ ...ENV, DELIVERY_BACKOFF_BASE_MS: '60' });
    try {
      const s = await setup(fast);
      bot.reset([503], s.hook.token);
      const member = await newMember(fast, s.guild);
      await click(s, member.token, { custom_id: 'accept' }, fast);
      const deliveries = await bot.waitFor(5, 20_000);
      const failed = await waitForStatus(s, 'failed', fast);
      expect(failed.attempts).toHaveLength(5);
      expect(failed.next_attempt_at).toBeNull();
      const gaps = deliveries.slice(1).map((d, i) => d.at - deliveries[i].at);
      gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(60 * 4 ** i * 0.8));
      await sleep(500);
      expect(bot.deliveries).toHaveLength(5);
    } finally {
      await fast.close();
    }
  });

  it('continues the schedule after a restart between attempts', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'parley-delivery-'));
    const slow = { ...ENV, DELIVERY_BACKOFF_BASE_MS: '1500' };
    let first = await startTestServer(slow, dataDir);
    try {
      const s = await setup(first);
      bot.reset([503, 200], s.hook.token);
      const member = await newMember(first, s.guild);
      await click(s, member.token, { custom_id: 'accept' }, first);
      await bot.waitFor(1);
      await waitForStatus(s, 'queued', first);
      await first.close();

      first = await startTestServer(slow, dataDir);
      const [one, two] = await bot.waitFor(2);
      expect(two.at - one.at).toBeGreaterThanOrEqual(1500 * 0.8);
      expect(two.verified).toBe(true);
      expect((await waitForStatus(s, 'delivered', first)).attempts.map((a: { status: number }) => a.status)).toEqual([503, 200]);
    } finally {
      await first.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('delivers nothing without an interaction_url, nor after it is removed', async () => {
    const s = await setup(server, null);
    bot.reset([200], s.hook.token);
    const member = await newMember(server, s.guild);
    expect((await click(s, member.token, { custom_id: 'accept' })).status).toBe(204);
    expect((await deliveriesOf(s))[0]).toMatchObject({ status: 'undelivered', custom_id: 'accept', user_id: member.id, attempts: [] });

    const withUrl = await setup();
    bot.reset([200], withUrl.hook.token);
    expect(
      (await server.api('PATCH', `/webhooks/${withUrl.hook.id}`, { token: withUrl.guild.owner.token, body: { interaction_url: null } })).body.interaction_url,
    ).toBeNull();
    await click(withUrl, withUrl.guild.owner.token, { custom_id: 'accept' });
    await sleep(300);
    expect(bot.deliveries).toHaveLength(0);
    expect((await deliveriesOf(withUrl))[0].status).toBe('undelivered');
  });
});

describe('click validation', () => {
  it('refuses each invalid click with a clear 4xx and appends nothing', async () => {
    const s = await setup(server, null);
    const member = await newMember(server, s.guild);
    const outsider = await registerUser(server);
    const refuse = (token: string, body: Record<string, unknown>, status: number, code: string) =>
      expectRefusedWithoutEvents(server, () => click(s, token, body), status, code);
    await refuse(outsider.token, { custom_id: 'accept' }, 404, 'UNKNOWN_CHANNEL');
    await refuse(member.token, { custom_id: 'accept', message_id: '1' }, 404, 'UNKNOWN_MESSAGE');
    await refuse(member.token, { custom_id: 'nope' }, 400, 'UNKNOWN_COMPONENT');
    await refuse(member.token, { custom_id: 'off' }, 400, 'COMPONENT_DISABLED');
    await refuse(member.token, { custom_id: 'accept', values: ['x'] }, 400, 'INVALID_FORM_BODY');
    await refuse(member.token, { custom_id: 'flavour', values: ['chocolate'] }, 400, 'INVALID_FORM_BODY');
    await refuse(member.token, { custom_id: 'flavour', values: [] }, 400, 'INVALID_FORM_BODY');
    await refuse(member.token, { custom_id: 'flavour', values: ['mint', 'lemon', 'vanilla'] }, 400, 'INVALID_FORM_BODY');
    await refuse(member.token, { custom_id: 'flavour' }, 400, 'INVALID_FORM_BODY');
    await refuse(member.token, { custom_id: '' }, 400, 'INVALID_FORM_BODY');
    await refuse(member.token, { custom_id: 'accept', channel_id: 'abc' }, 400, 'INVALID_FORM_BODY');
    const robot = await createBot(server);
    await expectRefusedWithoutEvents(
      server,
      () =>
        server.api('POST', '/interactions/click', {
          token: robot.token,
          scheme: 'Bot',
          body: { channel_id: s.guild.channelId, message_id: s.messageId, custom_id: 'accept' },
        }),
      403,
      'BOTS_NOT_ALLOWED',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', '/interactions/click', { body: { channel_id: s.guild.channelId, message_id: s.messageId, custom_id: 'accept' } }),
      401,
      'UNAUTHORIZED',
    );

    const values = await click(s, member.token, { custom_id: 'flavour', values: ['vanilla'] });
    expect(values.status).toBe(204);
    const wrong = await click(s, member.token, { custom_id: 'flavour', values: ['mint', 'chocolate'] });
    expect(wrong.body.errors).toEqual([{ path: 'values.1', message: expect.any(String) }]);
  });

  it('an ephemeral message can be clicked only by those who see it', async () => {
    const s = await setup(server, null);
    const [mentioned, other] = [await newMember(server, s.guild), await newMember(server, s.guild)];
    const secret = await server.api('POST', `/webhooks/${s.hook.id}/${s.hook.token}?wait=true`, {
      body: { content: `<@${mentioned.id}>`, flags: 64, components },
    });
    const onSecret = { ...s, messageId: secret.body.id };
    expect((await click(onSecret, mentioned.token, { custom_id: 'accept' })).status).toBe(204);
    expectError(await click(onSecret, other.token, { custom_id: 'accept' }), 404, 'UNKNOWN_MESSAGE');
  });

  it('limits clicks to 60 per user per minute with the spec’s 429 body', async () => {
    const s = await setup(server, null);
    const member = await newMember(server, s.guild);
    for (let i = 0; i < 60; i++) expect((await click(s, member.token, { custom_id: 'accept' })).status).toBe(204);
    const limited = await click(s, member.token, { custom_id: 'accept' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.any(String), retry_after: expect.any(Number) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another user has a bucket of their own.
    expect((await click(s, s.guild.owner.token, { custom_id: 'accept' })).status).toBe(204);
  });
});
