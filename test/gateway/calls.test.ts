// DM and group DM calls over the real gateway and HTTP API, with two or three people's WebSocket sessions: ringing
// (CALL_CREATE, CALL_UPDATE, CALL_DELETE to every participant), a ring nobody answers stopping by itself, op 4 joins
// (VOICE_STATE_UPDATE to all, VOICE_SERVER_UPDATE to the joining session only) that answer the ringing, self flags,
// leaving, a session that ends, one call at a time, requests that change nothing, and a restart that ends what the
// previous run left.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CallEvent, callDecider } from '../../domain/call.js';
import { type GatewayClient, type Payload, gatewayClients } from '../support/gateway.js';
import { type TestServer, type TestUser, createBot, fileServer, registerUser, startTestServer, expectNothingAppendedSince } from '../support/server.js';

const DIRECT_MESSAGES = 1 << 12;
const RING_TIMEOUT_MS = 1500;

const server = await fileServer({ CALL_RING_TIMEOUT_MS: String(RING_TIMEOUT_MS) });
const clients = gatewayClients(() => server);
afterEach(() => clients.closeAll());

const api = (user: TestUser, method: string, path: string, body?: unknown) => server.api(method, path, { token: user.token, body });

async function people(n: number) {
  return Promise.all(Array.from({ length: n }, () => registerUser(server)));
}

/** A channel of `owner` with the others: a DM for one, a group DM for more. */
async function channelOf(owner: TestUser, ...others: TestUser[]): Promise<string> {
  const body = others.length === 1 ? { recipient_id: others[0].id } : { recipients: others.map((u) => u.id) };
  const opened = await api(owner, 'POST', '/users/@me/channels', body);
  expect(opened.status).toBe(200);
  return opened.body.id;
}

/** A session of the user, with its session id from READY. */
async function sessionOf(user: TestUser) {
  const client = await clients.connect();
  const ready = await client.identify(user.token, DIRECT_MESSAGES);
  return { client, id: ready.d.session_id as string };
}

/** Resolves with the first dispatch `t` of the channel from the client's `from`-th payload on that matches. */
const nextOf = (client: GatewayClient, t: string, channelId: string, from: number, matches: (d: any) => boolean = () => true): Promise<Payload> =>
  client.next((p) => client.received.indexOf(p) >= from && p.t === t && p.d.channel_id === channelId && matches(p.d));

const voiceOp = (channelId: string | null, flags: object = {}) => ({
  op: 4,
  d: { guild_id: null, channel_id: channelId, self_mute: false, self_deaf: false, ...flags },
});

const ids = (states: { user_id: string }[]) => states.map((s) => s.user_id);

/** The call as the command side has it. */
const callState = async (channelId: string) => (await server.runtime.commands.load(`call-${channelId}`, callDecider)).state;

describe('ringing', () => {
  it('announces a ring to every participant (CALL_CREATE), a partial stop (CALL_UPDATE) and the end (CALL_DELETE)', async () => {
    const [ada, bob, cy] = await people(3);
    const channel = await channelOf(ada, bob, cy);
    const [a, b, c] = await Promise.all([sessionOf(ada), sessionOf(bob), sessionOf(cy)]);

    expect((await api(ada, 'POST', `/channels/${channel}/call/ring`, { recipients: [bob.id, cy.id] })).status).toBe(204);
    for (const { client } of [a, b, c]) {
      const created = await nextOf(client, 'CALL_CREATE', channel, 0);
      expect(created.d).toEqual({ channel_id: channel, ringing: [bob.id, cy.id], region: null, voice_states: [] });
    }
    expect((await api(bob, 'POST', `/channels/${channel}/call/stop-ringing`, { recipients: [bob.id] })).status).toBe(204);
    for (const { client } of [a, b, c]) expect((await nextOf(client, 'CALL_UPDATE', channel, 0)).d.ringing).toEqual([cy.id]);
    expect((await api(ada, 'POST', `/channels/${channel}/call/stop-ringing`)).status).toBe(204);
    for (const { client } of [a, b, c]) expect((await nextOf(client, 'CALL_DELETE', channel, 0)).d).toEqual({ channel_id: channel });
  });

  it('stops a ring nobody answers by itself after CALL_RING_TIMEOUT_MS', async () => {
    const [ada, bob] = await people(2);
    const channel = await channelOf(ada, bob);
    const b = await sessionOf(bob);
    const rungAt = Date.now();
    expect((await api(ada, 'POST', `/channels/${channel}/call/ring`)).status).toBe(204);
    expect((await nextOf(b.client, 'CALL_CREATE', channel, 0)).d.ringing).toEqual([bob.id]);
    await nextOf(b.client, 'CALL_DELETE', channel, 0, () => true);
    expect(Date.now() - rungAt).toBeGreaterThanOrEqual(RING_TIMEOUT_MS - 50);
    const events = (await server.runtime.store.readStream(`call-${channel}`)).map((e) => ({ type: e.type, data: e.data })) as CallEvent[];
    expect(events.map((e) => e.type)).toEqual(['CallRung', 'CallRingingStopped']);
    expect(events[1].data).toMatchObject({ userIds: [bob.id], stoppedBy: null });
  });
});

describe('voice in a call', () => {
  it('joins with op 4, answering the ringing; changes flags; leaves; the last one out ends the call', async () => {
    const [ada, bob, cy] = await people(3);
    const channel = await channelOf(ada, bob, cy);
    const [a, b, c] = await Promise.all([sessionOf(ada), sessionOf(bob), sessionOf(cy)]);

    a.client.send(voiceOp(channel, { self_video: true }));
    const own = await nextOf(a.client, 'VOICE_STATE_UPDATE', channel, 0);
    const adaState = {
      channel_id: channel,
      user_id: ada.id,
      session_id: a.id,
      self_mute: false,
      self_deaf: false,
      self_video: true,
      mute: false,
      deaf: false,
      suppress: false,
      request_to_speak_timestamp: null,
    };
    expect(own.d).toMatchObject(adaState);
    expect(own.d.guild_id).toBeUndefined();
    const server1 = await a.client.dispatch('VOICE_SERVER_UPDATE');
    expect(server1.d).toEqual({ token: expect.stringMatching(/^[0-9a-f]{32}$/), guild_id: null, channel_id: channel, endpoint: null });
    for (const { client } of [b, c]) {
      expect((await nextOf(client, 'CALL_CREATE', channel, 0)).d).toMatchObject({ ringing: [], voice_states: [adaState] });
      expect((await nextOf(client, 'VOICE_STATE_UPDATE', channel, 0)).d).toMatchObject(adaState);
    }
    expect((await api(bob, 'GET', `/channels/${channel}/call`)).body).toEqual({ ringable: true, silent: true });

    expect((await api(ada, 'POST', `/channels/${channel}/call/ring`)).status).toBe(204);
    await nextOf(b.client, 'CALL_UPDATE', channel, 0, (d) => d.ringing.length === 2);
    const mark = b.client.received.length;
    b.client.send(voiceOp(channel, { self_mute: true }));
    const answered = await nextOf(c.client, 'CALL_UPDATE', channel, 0, (d) => d.voice_states.length === 2);
    expect(answered.d.ringing).toEqual([cy.id]);
    expect(ids(answered.d.voice_states)).toEqual([ada.id, bob.id]);
    const bobServer = await nextOf(b.client, 'VOICE_SERVER_UPDATE', channel, mark);
    expect(bobServer.d.token).not.toBe(server1.d.token);

    b.client.send(voiceOp(channel, { self_mute: false, self_deaf: true }));
    expect((await nextOf(a.client, 'VOICE_STATE_UPDATE', channel, 0, (d) => d.user_id === bob.id && d.self_deaf)).d.self_mute).toBe(false);

    a.client.send(voiceOp(null));
    const left = await b.client.next((p) => p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === ada.id && p.d.channel_id === null);
    expect(left.d).toMatchObject({ user_id: ada.id, session_id: a.id });
    expect(
      ids((await nextOf(c.client, 'CALL_UPDATE', channel, 0, (d) => d.voice_states.length === 1 && d.voice_states[0].user_id === bob.id)).d.voice_states),
    ).toEqual([bob.id]);
    await api(cy, 'POST', `/channels/${channel}/call/stop-ringing`, { recipients: [cy.id] });
    b.client.send(voiceOp(null));
    for (const { client } of [a, b, c]) await nextOf(client, 'CALL_DELETE', channel, 0);
    // Only the joining sessions heard of a voice server, each once.
    expect([a, b, c].map(({ client }) => client.received.filter((p) => p.t === 'VOICE_SERVER_UPDATE').length)).toEqual([1, 1, 0]);
    expect(await callState(channel)).toMatchObject({ ringing: [], voice_states: [] });
  });

  it('ends a session’s voice state when the session is closed with 1000', async () => {
    const [ada, bob] = await people(2);
    const channel = await channelOf(ada, bob);
    const [a, b] = await Promise.all([sessionOf(ada), sessionOf(bob)]);
    a.client.send(voiceOp(channel));
    await nextOf(b.client, 'CALL_CREATE', channel, 0);
    a.client.close();
    const left = await b.client.next((p) => p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === ada.id && p.d.channel_id === null);
    expect(left.d.session_id).toBe(a.id);
    await nextOf(b.client, 'CALL_DELETE', channel, 0);
  });

  it('keeps a user in one call: joining another leaves the first', async () => {
    const [ada, bob, cy] = await people(3);
    const first = await channelOf(ada, bob);
    const second = await channelOf(ada, cy);
    const [a, b] = await Promise.all([sessionOf(ada), sessionOf(bob)]);
    a.client.send(voiceOp(first));
    await nextOf(b.client, 'CALL_CREATE', first, 0);
    a.client.send(voiceOp(second));
    await nextOf(a.client, 'CALL_CREATE', second, 0);
    await nextOf(b.client, 'CALL_DELETE', first, 0);
    expect(ids((await callState(second)).voice_states)).toEqual([ada.id]);
  });

  it('drops a user removed from the group DM from its call: out of its voice and no longer rung', async () => {
    const [ada, bob, cy, dee] = await people(4);
    const channel = await channelOf(ada, bob, cy, dee);
    const [a, b] = await Promise.all([sessionOf(ada), sessionOf(bob)]);
    a.client.send(voiceOp(channel));
    b.client.send(voiceOp(channel));
    await nextOf(a.client, 'CALL_UPDATE', channel, 0, (d) => d.voice_states.length === 2);
    expect((await api(ada, 'POST', `/channels/${channel}/call/ring`, { recipients: [cy.id, dee.id] })).status).toBe(204);
    await nextOf(a.client, 'CALL_UPDATE', channel, 0, (d) => d.ringing.length === 2);

    expect((await api(ada, 'DELETE', `/channels/${channel}/recipients/${bob.id}`)).status).toBe(204);
    expect((await api(ada, 'DELETE', `/channels/${channel}/recipients/${cy.id}`)).status).toBe(204);
    const dropped = await nextOf(a.client, 'CALL_UPDATE', channel, 0, (d) => d.voice_states.length === 1 && d.ringing.length === 1);
    expect(ids(dropped.d.voice_states)).toEqual([ada.id]);
    expect(dropped.d.ringing).toEqual([dee.id]);
    const call = await callState(channel);
    expect([ids(call.voice_states), ids(call.ringing)]).toEqual([[ada.id], [dee.id]]);
  });

  it('ignores op 4 for a channel the user is not in, a guild channel, and from a bot: no event, no answer', async () => {
    const [ada, bob, outsider] = await people(3);
    const channel = await channelOf(ada, bob);
    const bot = await createBot(server);
    const withBot = await server.api('POST', '/users/@me/channels', { token: bot.token, scheme: 'Bot', body: { recipient_id: ada.id } });
    const guild = await server.api('POST', '/guilds', { token: ada.token, body: { name: 'G' } });
    const o = await sessionOf(outsider);
    const botSession = await clients.connect();
    await botSession.identify(bot.token, DIRECT_MESSAGES);
    const a = await sessionOf(ada);
    const head = await server.runtime.store.headPosition();
    o.client.send(voiceOp(channel));
    botSession.send(voiceOp(withBot.body.id));
    a.client.send(voiceOp(guild.body.system_channel_id));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expectNothingAppendedSince(server, head);
    const heard = (client: GatewayClient) => client.received.filter((p) => /^(VOICE|CALL)_/.test(p.t ?? ''));
    expect([o.client, botSession, a.client].flatMap(heard)).toEqual([]);
    // The same session's join of its own DM works: the requests above were handled, and changed nothing.
    a.client.send(voiceOp(channel));
    expect((await nextOf(a.client, 'VOICE_STATE_UPDATE', channel, 0)).d.user_id).toBe(ada.id);
  });
});

describe('a restart', () => {
  it('ends the voice states and the ringing the previous run left, once their time has come', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-calls-'));
    let second: TestServer | null = null;
    try {
      const first = await startTestServer({ CALL_RING_TIMEOUT_MS: '100000' }, dir);
      const [ada, bob, cy] = await Promise.all([registerUser(first), registerUser(first), registerUser(first)]);
      const opened = await first.api('POST', '/users/@me/channels', { token: ada.token, body: { recipients: [bob.id, cy.id] } });
      const channel = opened.body.id as string;
      // Far enough ahead that the first run is closed before it comes: the second run's timer must stop it.
      const until = new Date(Date.now() + 4000).toISOString();
      const leftover = { user_id: ada.id, session_id: 'gone', node: 'an-earlier-run', self_mute: false, self_deaf: false, self_video: false };
      // What a run that stopped abruptly leaves: a voice state of a node that is gone, and someone still rung.
      const events: CallEvent[] = [
        { type: 'CallJoined', data: { channelId: channel, state: leftover, started: true, call: { region: null, ringing: [], voice_states: [leftover] } } },
        {
          type: 'CallRung',
          data: {
            channelId: channel,
            ringingBy: ada.id,
            userIds: [bob.id],
            until,
            started: false,
            call: { region: null, ringing: [{ user_id: bob.id, until }], voice_states: [leftover] },
          },
        },
      ];
      await first.runtime.store.appendToStream(
        `call-${channel}`,
        events.map((e) => ({ ...e, metadata: { actorId: ada.id, createdAt: new Date().toISOString() } })),
        { expectedRevision: 'any' },
      );
      await first.close();

      const restartedAt = new Date().toISOString();
      second = await startTestServer({}, dir);
      const restarted = second;
      const load = async () => (await restarted.runtime.commands.load(`call-${channel}`, callDecider)).state;
      await expect.poll(async () => (await load()).voice_states).toEqual([]);
      await expect.poll(async () => (await load()).ringing, { timeout: 10_000 }).toEqual([]);
      const recorded = await second.runtime.store.readStream(`call-${channel}`);
      expect(recorded.map((e) => e.type)).toEqual(['CallJoined', 'CallRung', 'CallLeft', 'CallRingingStopped']);
      expect(recorded[3].data).toMatchObject({ userIds: [bob.id], stoppedBy: null });
      expect(recorded.slice(2).every((e) => e.metadata.createdAt >= restartedAt)).toBe(true);
      expect(recorded[3].metadata.createdAt >= until).toBe(true);
    } finally {
      await second?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
