// HTTP interactions, end to end: an application's Ed25519 key (verify_key), its interactions endpoint URL taken only
// from an endpoint that checks signatures, interactions POSTed there signed instead of sent on the gateway, the
// endpoint's answer (JSON or multipart) taking effect as a callback would, and the 3-second clock: a late, failing or
// unusable answer fails the invoker's request and posts nothing; on the gateway, an unacknowledged interaction fails
// after 3 seconds. The invoker's sessions get INTERACTION_SUCCESS or INTERACTION_FAILURE either way. The endpoint is a real HTTPS server built on
// discord-interactions' verifyKeyMiddleware, as bots verify their requests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyKeyMiddleware } from 'discord-interactions';
import selfsigned from 'selfsigned';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { gatewayClients } from '../support/gateway.js';
import { type TestBot, createBot, fileServer, registerUser } from '../support/server.js';
import { interactionWorld, invoke } from './commandInteractionSupport.js';
import { expectError, expectRefusedWithoutEvents } from './guildSupport.js';

/** Small, so that an endpoint streaming past it gets there at once, however busy the machine. */
const JSON_BODY_LIMIT = 64 * 1024;
const server = await fileServer({ INTERACTIONS_ALLOW_PRIVATE: '1', JSON_BODY_LIMIT: String(JSON_BODY_LIMIT) });
const clients = gatewayClients(() => server);
afterEach(() => clients.closeAll());

type Interaction = any;
type Answer = (interaction: Interaction, res: ServerResponse) => void | Promise<void>;

const json = (res: ServerResponse, body: unknown, status = 200) => {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
};

/**
 * Answers 200 with `first`, then with `next()` whenever the connection takes more (or every `everyMs`), and never
 * ends: resolves once Parley closed the connection, the only way such an answer stops.
 */
function neverEnding(res: ServerResponse, first: string, next: () => string, everyMs?: number): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.on('error', () => {});
  res.write(first);
  const more = () => {
    if (res.destroyed) return;
    if (everyMs === undefined) {
      while (res.write(next()));
      res.once('drain', more);
    } else {
      res.write(next());
      setTimeout(more, everyMs);
    }
  };
  more();
  return new Promise((resolve) => res.on('close', resolve));
}

/** A bot's HTTPS interactions endpoint: verifyKeyMiddleware with the application's key (unless told not to check), then `answer`. */
class Endpoint {
  key = '';
  checksSignatures = true;
  answer: Answer = (_interaction, res) => json(res, { type: 4, data: { content: 'Hi' } });
  /** Answers every request instead, PINGs included, when set. */
  answerAll: ((res: ServerResponse) => void) | null = null;
  /** What reached `answer` (signature verified), the status of every request, PINGs included, and how many came. */
  readonly interactions: Interaction[] = [];
  readonly statuses: number[] = [];
  requests = 0;
  private server!: Server;

  async start(): Promise<string> {
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' });
    this.server = createServer({ cert: pems.cert, key: pems.private }, (req: IncomingMessage & { header?: unknown; body?: unknown }, res) => {
      this.requests += 1;
      res.on('finish', () => this.statuses.push(res.statusCode));
      const answerAll = this.answerAll;
      if (answerAll) return void req.resume().on('end', () => answerAll(res));
      if (!this.checksSignatures) return void req.resume().on('end', () => json(res, { type: 1 }));
      req.header = (name: string) => req.headers[name.toLowerCase()];
      void verifyKeyMiddleware(this.key)(req as never, res as never, () => {
        this.interactions.push(req.body);
        void this.answer(req.body, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/interactions`;
  }

  close() {
    this.server.closeAllConnections();
    this.server.close();
  }
}

const endpoints: Endpoint[] = [];
afterAll(() => endpoints.forEach((e) => e.close()));

async function endpointFor(bot: TestBot): Promise<{ endpoint: Endpoint; url: string }> {
  const endpoint = new Endpoint();
  endpoints.push(endpoint);
  endpoint.key = (await server.api('GET', '/applications/@me', { token: bot.token, scheme: 'Bot' })).body.verify_key;
  return { endpoint, url: await endpoint.start() };
}

const setEndpoint = (bot: TestBot, url: string | null, version = 'v1') =>
  server.call('PATCH', `/api/${version}/applications/@me`, { token: bot.token, scheme: 'Bot', body: { interactions_endpoint_url: url } });

describe('an application’s key and interactions endpoint URL', () => {
  it('every application object carries the public half of its Ed25519 key as verify_key, the same for the owner and the bot', async () => {
    const bot = await createBot(server);
    const own = await server.api('GET', '/applications/@me', { token: bot.token, scheme: 'Bot' });
    const listed = await server.api('GET', '/applications', { token: bot.owner.token });
    expect(own.body.verify_key).toMatch(/^[0-9a-f]{64}$/);
    expect(listed.body.find((a: { id: string }) => a.id === bot.applicationId).verify_key).toBe(own.body.verify_key);
    expect(own.body.interactions_endpoint_url).toBeNull();
  });

  it('takes an endpoint that answers a signed PING with {"type": 1} and refuses a forged one with 401', async () => {
    const bot = await createBot(server);
    const { endpoint, url } = await endpointFor(bot);
    const set = await setEndpoint(bot, url);
    expect(set.status).toBe(200);
    expect(set.body.interactions_endpoint_url).toBe(url);
    // verifyKeyMiddleware answered the signed PING itself and refused the other: the key Parley signs with is verify_key.
    expect(endpoint.statuses).toEqual([200, 401]);
    expect((await server.api('GET', '/applications/@me', { token: bot.token, scheme: 'Bot' })).body.interactions_endpoint_url).toBe(url);

    // The owner's route sets it too; null or "" removes it.
    const removed = await server.api('PATCH', `/applications/${bot.applicationId}`, { token: bot.owner.token, body: { interactions_endpoint_url: '' } });
    expect(removed.status).toBe(200);
    expect(removed.body.interactions_endpoint_url).toBeNull();
    expect((await server.api('PATCH', `/applications/${bot.applicationId}`, { token: bot.owner.token, body: { interactions_endpoint_url: url } })).status).toBe(
      200,
    );
    expect((await setEndpoint(bot, null)).body.interactions_endpoint_url).toBeNull();
  });

  it('refuses 400 at interactions_endpoint_url, appending nothing, and in one sentence whatever failed: no check of signatures, a wrong key, no answer, a 404, nobody listening', async () => {
    const bot = await createBot(server);
    const { endpoint, url } = await endpointFor(bot);
    endpoint.checksSignatures = false;
    await expectRefusedWithoutEvents(server, () => setEndpoint(bot, url), 400, 'INVALID_FORM_BODY');
    const refused = await setEndpoint(bot, url, 'v10');
    expect(refused.body.errors.interactions_endpoint_url._errors[0]).toEqual({
      code: 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID',
      message: 'The specified interactions endpoint url could not be verified.',
    });

    // Another application of the same owner: each counts its own verifications.
    const sibling = await createBot(server, bot.owner);
    const { endpoint: failing, url: failingUrl } = await endpointFor(sibling);
    failing.key = '0'.repeat(64);
    const failures: [string, () => void][] = [
      [failingUrl, () => {}],
      [failingUrl, () => (failing.answerAll = () => {})],
      [failingUrl, () => (failing.answerAll = (res) => json(res, { message: 'Not Found' }, 404))],
      ['https://127.0.0.1:1/interactions', () => {}],
    ];
    for (const [target, arrange] of failures) {
      arrange();
      const failed = await setEndpoint(sibling, target);
      expect(failed.body.errors).toEqual([{ path: 'interactions_endpoint_url', message: 'The specified interactions endpoint url could not be verified.' }]);
    }
    // How the URL is written is still told: it says nothing of any host.
    const plain = await setEndpoint(sibling, failingUrl.replace('https:', 'http:'));
    expect(plain.body.errors).toEqual([{ path: 'interactions_endpoint_url', message: 'Must be an https URL' }]);
    expect((await server.api('GET', '/applications/@me', { token: bot.token, scheme: 'Bot' })).body.interactions_endpoint_url).toBeNull();

    // Someone else's application: refused before the endpoint is called.
    const stranger = await registerUser(server);
    const calls = endpoint.statuses.length;
    const other = await server.api('PATCH', `/applications/${bot.applicationId}`, { token: stranger.token, body: { interactions_endpoint_url: url } });
    expectError(other, 403, 'MISSING_ACCESS');
    expect(endpoint.statuses.length).toBe(calls);
  });
});

describe('verifying an endpoint is limited per application and per owner', () => {
  const PER_APPLICATION = 5;
  const PER_OWNER = 10;

  const expectLimited = (response: Awaited<ReturnType<typeof setEndpoint>>) => {
    expectError(response, 429, 'RATE_LIMITED');
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  };

  it('verifies the stored URL again each time it is set; past the limit answers 429 with Retry-After before any request', async () => {
    const bot = await createBot(server);
    const { endpoint, url } = await endpointFor(bot);
    for (let i = 0; i < PER_APPLICATION; i++) expect((await setEndpoint(bot, url)).status).toBe(200);
    // A signed and a forged PING each time.
    expect(endpoint.requests).toBe(2 * PER_APPLICATION);
    // Any URL, through either route: the application's verifications are spent.
    expectLimited(await setEndpoint(bot, url));
    const elsewhere = await endpointFor(bot);
    expectLimited(
      await server.api('PATCH', `/applications/${bot.applicationId}`, { token: bot.owner.token, body: { interactions_endpoint_url: elsewhere.url } }),
    );
    expect([endpoint.requests, elsewhere.endpoint.requests]).toEqual([2 * PER_APPLICATION, 0]);
    // A change that sets no endpoint is not verified, and not limited.
    expect((await setEndpoint(bot, null)).status).toBe(200);
  });

  it('an owner’s applications share a limit of their own', async () => {
    const owner = await registerUser(server);
    const bots = [await createBot(server, owner), await createBot(server, owner), await createBot(server, owner)];
    const endpoints = await Promise.all(bots.map((bot) => endpointFor(bot)));
    for (const i of [0, 1]) for (let n = 0; n < PER_OWNER / 2; n++) expect((await setEndpoint(bots[i], endpoints[i].url)).status).toBe(200);
    expectLimited(await setEndpoint(bots[2], endpoints[2].url));
    expect(endpoints.map(({ endpoint }) => endpoint.requests)).toEqual([PER_OWNER, PER_OWNER, 0]);
  });
});

describe('interactions delivered to the endpoint', () => {
  const MEMBER_INTENTS = Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT;
  let world: Awaited<ReturnType<typeof interactionWorld>>;
  let endpoint: Endpoint;

  beforeAll(async () => {
    world = await interactionWorld(server, clients, [{ name: 'hello', description: 'Says hello', type: 1 }]);
    const made = await endpointFor(world.bot);
    endpoint = made.endpoint;
    expect((await setEndpoint(world.bot, made.url)).status).toBe(200);
  });

  const messages = async () =>
    (await server.api('GET', `/channels/${world.guild.channelId}/messages?limit=50`, { token: world.member.token })).body as { id: string; content: string }[];

  it('POSTs a slash command signed instead of sending it on the gateway; the inline answer is the response, which members see', async () => {
    const member = await clients.session(world.member.token, MEMBER_INTENTS);
    endpoint.answer = (interaction, res) => json(res, { type: 4, data: { content: `Hello, <@${interaction.member.user.id}>!` } });
    const invoked = await invoke(server, world, 'hello');
    expect(invoked.status).toBe(204);

    const interaction = endpoint.interactions.at(-1);
    expect(interaction).toMatchObject({ type: 2, application_id: world.bot.applicationId, data: { name: 'hello' }, channel_id: world.guild.channelId });
    const content = `Hello, <@${world.member.id}>!`;
    // Answered before the invoker's request was: the message is there at once.
    const posted = (await messages()).find((m) => m.content === content);
    expect(posted).toMatchObject({ author: { id: world.bot.id }, interaction_metadata: { id: interaction.id, user: { id: world.member.id } } });
    expect((await member.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === content)).d.id).toBe(posted!.id);
    expect(world.botSession.received.filter((p) => p.t === 'INTERACTION_CREATE' && p.d.id === interaction.id)).toEqual([]);
    expect((await member.next((p) => p.t === 'INTERACTION_SUCCESS' && p.d.id === interaction.id)).d.nonce).toBe('1234');

    // The token then serves follow-ups and edits through the webhook routes, as on the gateway.
    const followUp = await server.api('POST', `/webhooks/${world.bot.applicationId}/${interaction.token}?wait=true`, {
      body: { content: 'And another thing' },
    });
    expect(followUp.status).toBe(200);
    const edited = await server.api('PATCH', `/webhooks/${world.bot.applicationId}/${interaction.token}/messages/@original`, { body: { content: 'Hi again' } });
    expect(edited.body).toMatchObject({ id: posted!.id, content: 'Hi again' });
  });

  it('POSTs clicks on the application’s messages there too; an UPDATE_MESSAGE answer edits the message', async () => {
    const button = { type: 1, components: [{ type: 2, style: 1, label: 'Press', custom_id: 'press' }] };
    endpoint.answer = (interaction, res) =>
      interaction.type === 2
        ? json(res, { type: 4, data: { content: 'Nobody pressed it yet', components: [button] } })
        : json(res, { type: 7, data: { content: `Pressed by ${interaction.member.user.username}`, components: [] } });
    expect((await invoke(server, world, 'hello')).status).toBe(204);
    const posted = (await messages()).find((m) => m.content === 'Nobody pressed it yet')!;
    const click = { channel_id: world.guild.channelId, message_id: posted.id, custom_id: 'press' };
    expect((await server.api('POST', '/interactions/click', { token: world.member.token, body: click })).status).toBe(204);
    expect(endpoint.interactions.at(-1)).toMatchObject({ type: 3, data: { custom_id: 'press', component_type: 2 }, message: { id: posted.id } });
    expect((await messages()).find((m) => m.id === posted.id)).toMatchObject({ content: `Pressed by ${world.member.username}`, components: [] });
  });

  it('takes a multipart answer: payload_json and files', async () => {
    endpoint.answer = (_interaction, res) => {
      const boundary = 'parley-test-boundary';
      res.setHeader('Content-Type', `multipart/form-data; boundary=${boundary}`);
      res.end(
        [
          `--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\nContent-Type: application/json\r\n\r\n`,
          JSON.stringify({ type: 4, data: { content: 'With a file', attachments: [{ id: 0, filename: 'notes.txt' }] } }),
          `\r\n--${boundary}\r\nContent-Disposition: form-data; name="files[0]"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n`,
          'some notes',
          `\r\n--${boundary}--\r\n`,
        ].join(''),
      );
    };
    expect((await invoke(server, world, 'hello')).status).toBe(204);
    const posted = (await messages()).find((m) => m.content === 'With a file') as unknown as { attachments: { filename: string; url: string }[] };
    expect(posted.attachments).toMatchObject([{ filename: 'notes.txt', size: 10 }]);
  });

  it('fails the invoker’s request with 424 INTERACTION_FAILED on an error status, a late answer or no valid response: nothing is posted, the token takes no response after', async () => {
    const member = await clients.session(world.member.token, MEMBER_INTENTS);
    const before = (await messages()).length;
    const failures: [Answer, string][] = [
      [(_i, res) => json(res, { message: 'oops' }, 500), 'The application’s interactions endpoint answered with an error (500)'],
      [(_i, res) => json(res, { type: 4, data: {} }), 'The application answered with something that is no interaction response: '],
      [(_i, res) => json(res, { type: 1 }), 'The application answered with something that is no interaction response: '],
      [(_i, res) => void setTimeout(() => json(res, { type: 4, data: { content: 'Too late' } }), 3500), 'The application did not respond within 3 seconds'],
    ];
    for (const [answer, message] of failures) {
      endpoint.answer = answer;
      const failed = await invoke(server, world, 'hello');
      expectError(failed, 424, 'INTERACTION_FAILED');
      expect(failed.body.message).toContain(message);
      const { id, token } = endpoint.interactions.at(-1);
      const late = await server.api('POST', `/interactions/${id}/${token}/callback`, { body: { type: 4, data: { content: 'Via the callback' } } });
      expectError(late, 404, 'UNKNOWN_INTERACTION');
      expect((await member.next((p) => p.t === 'INTERACTION_FAILURE' && p.d.id === id)).d.reason).toMatch(/^endpoint_/);
    }
    expect((await messages()).length).toBe(before);
  });
});

describe('an endpoint’s answer is read only up to JSON_BODY_LIMIT and within the 3 seconds', () => {
  let world: Awaited<ReturnType<typeof interactionWorld>>;
  let endpoint: Endpoint;

  beforeAll(async () => {
    world = await interactionWorld(server, clients, [{ name: 'stream', description: 'Answers at length', type: 1 }]);
    const made = await endpointFor(world.bot);
    endpoint = made.endpoint;
    expect((await setEndpoint(world.bot, made.url)).status).toBe(200);
  });

  /** Invokes with `answer` at the endpoint: the invoker's answer, once the endpoint saw its connection closed. */
  async function invokedWith(answer: (res: ServerResponse) => Promise<void>) {
    let closed!: Promise<void>;
    endpoint.answer = (_interaction, res) => void (closed = answer(res));
    const before = (await server.api('GET', `/channels/${world.guild.channelId}/messages`, { token: world.member.token })).body.length;
    const invoked = await invoke(server, world, 'stream');
    await closed;
    const { id, token } = endpoint.interactions.at(-1);
    // Nothing was posted, and the token takes no response after.
    expect((await server.api('GET', `/channels/${world.guild.channelId}/messages`, { token: world.member.token })).body.length).toBe(before);
    expectError(
      await server.api('POST', `/interactions/${id}/${token}/callback`, { body: { type: 4, data: { content: 'Late' } } }),
      404,
      'UNKNOWN_INTERACTION',
    );
    return invoked;
  }

  it('fails with 424 an answer past the limit, whole or streaming without end (cut off there)', async () => {
    // A valid response, then whitespace (which JSON allows): only its size can refuse it.
    const response = JSON.stringify({ type: 4, data: { content: 'Padded' } });
    const padding = ' '.repeat(16 * 1024);
    const whole = (res: ServerResponse) =>
      new Promise<void>((resolve) => {
        res.on('close', resolve);
        res.setHeader('Content-Type', 'application/json');
        res.end(response.padEnd(JSON_BODY_LIMIT + 1));
      });
    for (const answer of [whole, (res: ServerResponse) => neverEnding(res, response, () => padding)]) {
      const failed = await invokedWith(answer);
      expectError(failed, 424, 'INTERACTION_FAILED');
      expect(failed.body.message).toBe(`The application answered with something that is no interaction response: it is larger than ${JSON_BODY_LIMIT} bytes`);
    }
  });

  it('fails with 424 at the deadline an answer that trickles past it, which is cut off then', async () => {
    const failed = await invokedWith((res) => neverEnding(res, '{"type": 4, "data": {"content": "', () => 'a', 100));
    expectError(failed, 424, 'INTERACTION_FAILED');
    expect(failed.body.message).toBe('The application did not respond within 3 seconds');
  });
});

describe('the 3-second clock on the gateway', () => {
  it('refuses a first response after 3 seconds with UNKNOWN_INTERACTION; one deferred in time keeps its token for follow-ups', async () => {
    const world = await interactionWorld(server, clients, [{ name: 'slow', description: 'Takes its time', type: 1 }]);
    const handled = new Set<string>();
    const seen = async () => (await world.botSession.next((p) => p.t === 'INTERACTION_CREATE' && !handled.has(p.d.id))).d;
    expect((await invoke(server, world, 'slow')).status).toBe(204);
    const deferred = await seen();
    handled.add(deferred.id);
    expect((await server.api('POST', `/interactions/${deferred.id}/${deferred.token}/callback`, { body: { type: 5 } })).status).toBe(204);
    expect((await invoke(server, world, 'slow')).status).toBe(204);
    const unanswered = await seen();
    await new Promise((resolve) => setTimeout(resolve, 3100));
    const late = await server.api('POST', `/interactions/${unanswered.id}/${unanswered.token}/callback`, { body: { type: 4, data: { content: 'Late' } } });
    expectError(late, 404, 'UNKNOWN_INTERACTION');
    // The invoker's sessions learn how each went, with the nonce its client sent.
    const told = (t: string, id: string) => world.memberSession.next((p) => p.t === t && p.d.id === id);
    expect((await told('INTERACTION_SUCCESS', deferred.id)).d).toEqual({ id: deferred.id, nonce: '1234' });
    expect((await told('INTERACTION_FAILURE', unanswered.id)).d).toEqual({ id: unanswered.id, nonce: '1234', reason: 'not_acknowledged' });
    const followUp = await server.api('POST', `/webhooks/${world.bot.applicationId}/${deferred.token}?wait=true`, { body: { content: 'Done thinking' } });
    expect(followUp.status).toBe(200);
  });
});
