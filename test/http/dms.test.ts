// HTTP tests of DMs and group DMs: opening and reusing, listing, messages in them, closing and leaving, recipients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, type TestUser, createBot, registerUser, startTestServer } from '../support/server.js';
import { expectError, expectRefusedWithoutEvents } from './guildSupport.js';

let server: TestServer;
let ada: TestUser;
let bob: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  [ada, bob] = await Promise.all([registerUser(server), registerUser(server)]);
});
afterAll(async () => {
  await server.close();
});

const call = (user: TestUser, method: string, path: string, body?: unknown, scheme: 'Bot' | 'Bearer' = 'Bearer') =>
  server.api(method, path, { token: user.token, body, scheme });
const open = (user: TestUser, body: unknown) => call(user, 'POST', '/users/@me/channels', body);
const listed = async (user: TestUser) => (await call(user, 'GET', '/users/@me/channels')).body.map((c: { id: string }) => c.id);

async function dm(a: TestUser, b: TestUser): Promise<string> {
  const response = await open(a, { recipient_id: b.id });
  expect(response.status).toBe(200);
  return response.body.id;
}

describe('DMs', () => {
  it('opens one DM per pair, reused by either side, with the other participant as recipient', async () => {
    const opened = await open(ada, { recipient_id: bob.id });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ type: 1, last_message_id: null, recipients: [{ id: bob.id, username: bob.username }] });
    expect(await dm(bob, ada)).toBe(opened.body.id);
    expect(await dm(ada, bob)).toBe(opened.body.id);
    expect(await listed(ada)).toContain(opened.body.id);
    expect(await listed(bob)).toContain(opened.body.id);
    const fetched = await call(bob, 'GET', `/channels/${opened.body.id}`);
    expect(fetched.body).toMatchObject({ id: opened.body.id, type: 1, recipients: [{ id: ada.id }] });
  });

  it('refuses a DM with oneself or an unknown user, appending nothing', async () => {
    await expectRefusedWithoutEvents(server, () => open(ada, { recipient_id: ada.id }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, () => open(ada, { recipient_id: '1234567890123456789' }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, () => open(ada, {}), 400, 'INVALID_FORM_BODY');
  });

  it('carries messages between its participants only; no guild, no @everyone, no bulk delete', async () => {
    const channel = await dm(ada, bob);
    const message = await call(ada, 'POST', `/channels/${channel}/messages`, { content: 'hi bob @everyone' });
    expect(message.status).toBe(200);
    expect(message.body.guild_id).toBeUndefined();
    expect(message.body.mention_everyone).toBe(false);
    expect((await call(bob, 'GET', `/channels/${channel}/messages`)).body[0].id).toBe(message.body.id);
    expect((await call(ada, 'GET', '/users/@me/channels')).body.find((c: { id: string }) => c.id === channel).last_message_id).toBe(message.body.id);
    expect((await call(bob, 'PUT', `/channels/${channel}/messages/${message.body.id}/reactions/${encodeURIComponent('🙂')}/@me`)).status).toBe(204);
    expect((await call(bob, 'PUT', `/channels/${channel}/pins/${message.body.id}`)).status).toBe(204);
    const hints: unknown[] = [];
    const unsubscribe = server.runtime.hints.subscribe((hint) => hints.push(hint));
    expect((await call(bob, 'POST', `/channels/${channel}/typing`)).status).toBe(204);
    unsubscribe();
    expect(hints).toMatchObject([{ channelId: channel, guildId: null, userId: bob.id, recipientIds: [ada.id, bob.id] }]);
    expectError(await call(bob, 'DELETE', `/channels/${channel}/messages/${message.body.id}`), 403, 'MISSING_PERMISSIONS');
    expectError(
      await call(ada, 'POST', `/channels/${channel}/messages/bulk-delete`, { messages: [message.body.id, message.body.id] }),
      400,
      'CANNOT_BULK_DELETE_IN_DM',
    );
    const outsider = await registerUser(server);
    expectError(await call(outsider, 'POST', `/channels/${channel}/messages`, { content: 'x' }), 404, 'UNKNOWN_CHANNEL');
    expectError(await call(outsider, 'GET', `/channels/${channel}/messages`), 404, 'UNKNOWN_CHANNEL');
    expectError(await call(outsider, 'GET', `/channels/${channel}`), 404, 'UNKNOWN_CHANNEL');
  });

  it('lets a bot open a DM and send in it', async () => {
    const bot = await createBot(server);
    const opened = await call(bot, 'POST', '/users/@me/channels', { recipient_id: ada.id }, 'Bot');
    expect(opened.body).toMatchObject({ type: 1, recipients: [{ id: ada.id }] });
    expect((await call(bot, 'POST', `/channels/${opened.body.id}/messages`, { content: 'beep' }, 'Bot')).status).toBe(200);
  });

  it('closes for the closer only; a new message or opening again brings it back with its history', async () => {
    const carol = await registerUser(server);
    const channel = await dm(ada, carol);
    await call(carol, 'POST', `/channels/${channel}/messages`, { content: 'before' });
    const closed = await call(ada, 'DELETE', `/channels/${channel}`);
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ id: channel, type: 1 });
    expect(await listed(ada)).not.toContain(channel);
    expect(await listed(carol)).toContain(channel);
    await call(carol, 'POST', `/channels/${channel}/messages`, { content: 'ping' });
    expect(await listed(ada)).toContain(channel);
    expect((await call(ada, 'DELETE', `/channels/${channel}`)).status).toBe(200);
    expect(await dm(ada, carol)).toBe(channel);
    expect(await listed(ada)).toContain(channel);
    expect((await call(ada, 'GET', `/channels/${channel}/messages`)).body.map((m: { content: string }) => m.content)).toEqual(['ping', 'before']);
  });
});

describe('group DMs', () => {
  it('creates with the creator as owner; participants add recipients; owner removes; anyone leaves', async () => {
    const [carol, dave] = await Promise.all([registerUser(server), registerUser(server)]);
    const created = await open(ada, { recipients: [bob.id, carol.id] });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ type: 3, owner_id: ada.id, name: null });
    expect(created.body.recipients.map((u: { id: string }) => u.id)).toEqual([bob.id, carol.id]);
    const channel = created.body.id;
    expect(await listed(carol)).toContain(channel);

    const renamed = await call(carol, 'PATCH', `/channels/${channel}`, { name: 'crew' });
    expect(renamed.body).toMatchObject({ id: channel, type: 3, name: 'crew' });
    expect((await call(bob, 'PUT', `/channels/${channel}/recipients/${dave.id}`)).status).toBe(204);
    expect(await listed(dave)).toContain(channel);
    expect((await call(dave, 'POST', `/channels/${channel}/messages`, { content: 'hello all' })).status).toBe(200);
    await expectRefusedWithoutEvents(server, () => call(bob, 'DELETE', `/channels/${channel}/recipients/${carol.id}`), 403, 'MISSING_PERMISSIONS');
    expect((await call(ada, 'DELETE', `/channels/${channel}/recipients/${carol.id}`)).status).toBe(204);
    expectError(await call(carol, 'GET', `/channels/${channel}/messages`), 404, 'UNKNOWN_CHANNEL');
    expect(await listed(carol)).not.toContain(channel);

    expect((await call(ada, 'DELETE', `/channels/${channel}`)).status).toBe(200);
    const remaining = await call(bob, 'GET', `/channels/${channel}`);
    expect(remaining.body.owner_id).toBe(bob.id);
    expect(remaining.body.recipients.map((u: { id: string }) => u.id)).toEqual([dave.id]);
    expectError(await call(ada, 'POST', `/channels/${channel}/messages`, { content: 'x' }), 404, 'UNKNOWN_CHANNEL');
  });

  it('holds at most 10 participants; outsiders and DMs cannot take recipients', async () => {
    const users = await Promise.all(Array.from({ length: 9 }, () => registerUser(server)));
    const full = await open(ada, { recipients: users.map((u) => u.id) });
    expect(full.status).toBe(200);
    const extra = await registerUser(server);
    await expectRefusedWithoutEvents(server, () => call(ada, 'PUT', `/channels/${full.body.id}/recipients/${extra.id}`), 400, 'MAX_RECIPIENTS');
    await expectRefusedWithoutEvents(server, () => call(extra, 'PUT', `/channels/${full.body.id}/recipients/${extra.id}`), 404, 'UNKNOWN_CHANNEL');
    const pair = await dm(ada, bob);
    await expectRefusedWithoutEvents(server, () => call(ada, 'PUT', `/channels/${pair}/recipients/${extra.id}`), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, () => call(ada, 'PATCH', `/channels/${pair}`, { name: 'no' }), 400, 'INVALID_FORM_BODY');
    expectError(await open(ada, { recipients: [...users.map((u) => u.id), extra.id] }), 400, 'INVALID_FORM_BODY');
  });
});
