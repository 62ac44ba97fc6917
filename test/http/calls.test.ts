// Voice regions and DM calls over the real HTTPS API: which channels list regions (from RTC_REGIONS), the call status,
// the call's region, ringing and stopping it with the events each appends on the call's stream, and the refusals, in
// the spec's error format, which append nothing.
import { describe, expect, it } from 'vitest';
import { type ApiResponse, type TestUser, createBot, fileServer, registerUser, appendedBy, streamTypeData } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, join } from './guildSupport.js';

const REGIONS = [
  { id: 'lab', name: 'Lab', emoji: '🧪' },
  { id: 'attic', name: 'Attic', emoji: '🏠' },
];
const server = await fileServer({ RTC_REGIONS: JSON.stringify(REGIONS) });
const [ada, bob, cy, outsider] = await Promise.all([registerUser(server), registerUser(server), registerUser(server), registerUser(server)]);

const call = (user: TestUser, method: string, path: string, body?: unknown) => server.api(method, path, { token: user.token, body });
async function dm(a: TestUser, b: TestUser): Promise<string> {
  const opened = await call(a, 'POST', '/users/@me/channels', { recipient_id: b.id });
  expect(opened.status).toBe(200);
  return opened.body.id;
}
const groupDm = async (owner: TestUser, others: TestUser[]) =>
  (await call(owner, 'POST', '/users/@me/channels', { recipients: others.map((u) => u.id) })).body.id as string;

/** The answer, and the (stream, type, data) of each event the request appended. */
async function appendedByCall(request: () => Promise<ApiResponse>) {
  const { response, appended } = await appendedBy(server, request);
  return { response, appended: appended.map(streamTypeData) };
}

describe('GET /channels/:id/rtc-regions', () => {
  it('lists the configured regions for guild voice and stage channels, DMs and group DMs', async () => {
    const guild = await createGuild(server, ada);
    for (const type of [2, 13]) {
      const voice = await call(ada, 'POST', `/guilds/${guild.id}/channels`, { name: `voice-${type}`, type });
      expect(voice.status).toBe(201);
      const regions = await call(ada, 'GET', `/channels/${voice.body.id}/rtc-regions`);
      expect({ status: regions.status, body: regions.body }).toEqual({ status: 200, body: REGIONS });
    }
    expect((await call(bob, 'GET', `/channels/${await dm(ada, bob)}/rtc-regions`)).body).toEqual(REGIONS);
    expect((await call(cy, 'GET', `/channels/${await groupDm(ada, [bob, cy])}/rtc-regions`)).body).toEqual(REGIONS);
  });

  it('refuses a text channel (400), a channel the caller cannot see (404), and no token (401)', async () => {
    const guild = await createGuild(server, ada);
    const text = await call(ada, 'GET', `/channels/${guild.channelId}/rtc-regions`);
    expect({ status: text.status, body: text.body }).toEqual({
      status: 400,
      body: { code: 'CANNOT_EXECUTE_ON_CHANNEL_TYPE', message: 'Cannot execute action on this channel type' },
    });
    const voice = await call(ada, 'POST', `/guilds/${guild.id}/channels`, { name: 'voice', type: 2 });
    expectError(await call(outsider, 'GET', `/channels/${voice.body.id}/rtc-regions`), 404, 'UNKNOWN_CHANNEL');
    expectError(await call(outsider, 'GET', `/channels/${await dm(ada, bob)}/rtc-regions`), 404, 'UNKNOWN_CHANNEL');
    expectError(await call(ada, 'GET', '/channels/1234567890123456789/rtc-regions'), 404, 'UNKNOWN_CHANNEL');
    expectError(await server.api('GET', `/channels/${voice.body.id}/rtc-regions`), 401, 'UNAUTHORIZED');
  });
});

describe('GET /channels/:id/call', () => {
  it('is ringable when another participant is a person; not with only a bot; never silent without a call', async () => {
    expect((await call(ada, 'GET', `/channels/${await dm(ada, bob)}/call`)).body).toEqual({ ringable: true, silent: false });
    expect((await call(cy, 'GET', `/channels/${await groupDm(ada, [bob, cy])}/call`)).body).toEqual({ ringable: true, silent: false });
    const bot = await createBot(server);
    const withBot = await server.api('POST', '/users/@me/channels', { token: bot.token, scheme: 'Bot', body: { recipient_id: ada.id } });
    const status = await call(ada, 'GET', `/channels/${withBot.body.id}/call`);
    expect({ status: status.status, body: status.body }).toEqual({ status: 200, body: { ringable: false, silent: false } });
    // Calls are for people: the bot's own token is refused.
    expectError(await server.api('GET', `/channels/${withBot.body.id}/call`, { token: bot.token, scheme: 'Bot' }), 403, 'BOTS_NOT_ALLOWED');
  });

  it('refuses a non-participant (404), a guild channel (400) and no token (401)', async () => {
    const channel = await dm(ada, bob);
    expectError(await call(outsider, 'GET', `/channels/${channel}/call`), 404, 'UNKNOWN_CHANNEL');
    const guild = await createGuild(server, ada);
    expectError(await call(ada, 'GET', `/channels/${guild.channelId}/call`), 400, 'CANNOT_EXECUTE_ON_CHANNEL_TYPE');
    expectError(await server.api('GET', `/channels/${channel}/call`), 401, 'UNAUTHORIZED');
  });
});

describe('PATCH /channels/:id/call', () => {
  it('sets a configured region, or none, on the call’s stream', async () => {
    const channel = await dm(ada, bob);
    const { response, appended } = await appendedByCall(() => call(bob, 'PATCH', `/channels/${channel}/call`, { region: 'attic' }));
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(appended).toEqual([
      {
        stream: `call-${channel}`,
        type: 'CallRegionChanged',
        data: { channelId: channel, region: 'attic', changedBy: bob.id, call: { region: 'attic', ringing: [], voice_states: [] } },
      },
    ]);
    expect((await appendedByCall(() => call(ada, 'PATCH', `/channels/${channel}/call`, { region: 'attic' }))).appended).toEqual([]);
    const cleared = await appendedByCall(() => call(ada, 'PATCH', `/channels/${channel}/call`, { region: null }));
    expect(cleared.appended.map((e) => e.data)).toMatchObject([{ region: null, changedBy: ada.id }]);
  });

  it('refuses an unknown region at its path, a missing one, a non-participant and a bot, appending nothing', async () => {
    const channel = await dm(ada, bob);
    await expectRefusedWithoutEvents(server, () => call(ada, 'PATCH', `/channels/${channel}/call`, { region: 'brazil' }), 400, 'INVALID_FORM_BODY');
    const unknown = await call(ada, 'PATCH', `/channels/${channel}/call`, { region: 'brazil' });
    expect(unknown.body.errors).toEqual([{ path: 'region', message: expect.stringContaining('Unknown voice region') }]);
    await expectRefusedWithoutEvents(server, () => call(ada, 'PATCH', `/channels/${channel}/call`, {}), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, () => call(outsider, 'PATCH', `/channels/${channel}/call`, { region: 'lab' }), 404, 'UNKNOWN_CHANNEL');
    const bot = await createBot(server);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/channels/${channel}/call`, { token: bot.token, scheme: 'Bot', body: { region: 'lab' } }),
      403,
      'BOTS_NOT_ALLOWED',
    );
  });
});

describe('POST /channels/:id/call/ring and stop-ringing', () => {
  it('rings everyone else who can answer by default, until the ring timeout, then stops who is named', async () => {
    const bot = await createBot(server);
    const channel = await groupDm(ada, [bob, cy]);
    expect((await call(ada, 'PUT', `/channels/${channel}/recipients/${bot.id}`)).status).toBe(204);
    const { response, appended } = await appendedByCall(() => call(ada, 'POST', `/channels/${channel}/call/ring`));
    expect({ status: response.status, text: response.text }).toEqual({ status: 204, text: '' });
    expect(appended).toHaveLength(1);
    const { until, ...rung } = appended[0].data as { until: string };
    // The default CALL_RING_TIMEOUT_MS: 60 s from now.
    expect(Date.parse(until) - Date.now()).toBeGreaterThan(55_000);
    expect(Date.parse(until) - Date.now()).toBeLessThanOrEqual(60_000);
    const ringing = [bob.id, cy.id].map((user_id) => ({ user_id, until }));
    expect({ stream: appended[0].stream, type: appended[0].type, data: rung }).toEqual({
      stream: `call-${channel}`,
      type: 'CallRung',
      data: { channelId: channel, ringingBy: ada.id, userIds: [bob.id, cy.id], started: true, call: { region: null, ringing, voice_states: [] } },
    });

    const declined = await appendedByCall(() => call(bob, 'POST', `/channels/${channel}/call/stop-ringing`, { recipients: [bob.id] }));
    expect(declined.response.status).toBe(204);
    expect(declined.appended).toEqual([
      {
        stream: `call-${channel}`,
        type: 'CallRingingStopped',
        data: { channelId: channel, userIds: [bob.id], stoppedBy: bob.id, call: { region: null, ringing: [ringing[1]], voice_states: [] } },
      },
    ]);
    const rest = await appendedByCall(() => call(ada, 'POST', `/channels/${channel}/call/stop-ringing`, {}));
    expect(rest.appended.map((e) => e.data)).toMatchObject([{ userIds: [cy.id], stoppedBy: ada.id, call: { ringing: [] } }]);
    expect((await appendedByCall(() => call(ada, 'POST', `/channels/${channel}/call/stop-ringing`))).appended).toEqual([]);
  });

  it('rings only other people among the recipients, each refusal at its index, appending nothing', async () => {
    // Its own ringer: refused rings count against the per-user limit too.
    const [owner, bot] = await Promise.all([registerUser(server), createBot(server)]);
    const channel = await groupDm(owner, [bob]);
    expect((await call(owner, 'PUT', `/channels/${channel}/recipients/${bot.id}`)).status).toBe(204);
    const ring = (recipients: unknown) => () => call(owner, 'POST', `/channels/${channel}/call/ring`, { recipients });
    await expectRefusedWithoutEvents(server, ring([bob.id, outsider.id, owner.id, bot.id]), 400, 'INVALID_FORM_BODY');
    expect((await ring([bob.id, outsider.id, owner.id, bot.id])()).body).toEqual({
      code: 'INVALID_FORM_BODY',
      message: 'Invalid Form Body',
      errors: [
        { path: 'recipients.1', message: 'Not a recipient of this channel' },
        { path: 'recipients.2', message: 'You cannot ring yourself' },
        { path: 'recipients.3', message: 'Bots cannot be rung' },
      ],
    });
    await expectRefusedWithoutEvents(server, ring([]), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, ring(['not an id']), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(
      server,
      () => call(owner, 'POST', `/channels/${channel}/call/stop-ringing`, { recipients: [outsider.id] }),
      400,
      'INVALID_FORM_BODY',
    );
    expect((await call(owner, 'POST', `/channels/${channel}/call/stop-ringing`, { recipients: [outsider.id] })).body.errors).toEqual([
      { path: 'recipients.0', message: 'Not a recipient of this channel' },
    ]);
    // A DM with only a bot on the other side has nobody to ring.
    const withBot = await server.api('POST', '/users/@me/channels', { token: bot.token, scheme: 'Bot', body: { recipient_id: cy.id } });
    await expectRefusedWithoutEvents(server, () => call(cy, 'POST', `/channels/${withBot.body.id}/call/ring`), 400, 'INVALID_FORM_BODY');
  });

  it('lets only participants ring or stop: others cannot see the channel; guild channels have no call', async () => {
    const channel = await dm(ada, bob);
    await expectRefusedWithoutEvents(server, () => call(outsider, 'POST', `/channels/${channel}/call/ring`, { recipients: [bob.id] }), 404, 'UNKNOWN_CHANNEL');
    await expectRefusedWithoutEvents(server, () => call(outsider, 'POST', `/channels/${channel}/call/stop-ringing`), 404, 'UNKNOWN_CHANNEL');
    const guild = await createGuild(server, ada);
    await join(server, guild, bob);
    await expectRefusedWithoutEvents(
      server,
      () => call(bob, 'POST', `/channels/${guild.channelId}/call/ring`, { recipients: [ada.id] }),
      400,
      'CANNOT_EXECUTE_ON_CHANNEL_TYPE',
    );
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/channels/${channel}/call/ring`), 401, 'UNAUTHORIZED');
  });

  it('limits ringing per user (429 with the bucket’s headers)', async () => {
    const ringer = await registerUser(server);
    const channel = await dm(ringer, bob);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await call(ringer, 'POST', `/channels/${channel}/call/ring`));
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204, 204, 429]);
    expect(answers[0].headers['x-ratelimit-limit']).toBe('5');
    expectError(answers[5], 429, 'RATE_LIMITED');
  });
});
