// POST /users/@me/delete over HTTPS with live gateway sessions: an account that joined a guild, wrote in it and in a DM,
// sat in a group DM and authorized an OAuth2 client is deleted; every trace of it that other people see turns into
// Deleted User, everything it held is revoked or released, and refusals append nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { LOGINS, USERS } from '../../projections/collections.js';
import { fileGateway } from '../support/gateway.js';
import { type TestUser, createBot, registerUser, uniqueName } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, join } from './guildSupport.js';
import { PASSWORD, REDIRECT_URI, type TestClient, authorizedCode, grantedTokens, registerClient, tokenRequest } from './oauth2Support.js';

const { server, gateway } = await fileGateway();

const remove = (user: TestUser, body: unknown = { password: PASSWORD }, scheme: 'Bot' | 'Bearer' = 'Bearer') =>
  server.api('POST', '/users/@me/delete', { token: user.token, scheme, body });
const DELETED = { username: 'Deleted User', discriminator: '0000', global_name: null, avatar: null };

describe('POST /users/@me/delete', () => {
  const username = uniqueName('leaving');
  const email = `${username}@example.com`;
  let ada: TestUser;
  let bob: TestUser;
  let guild: TestGuild;
  let client: TestClient;
  let guildMessageId: string;
  let dmId: string;
  let groupDmId: string;

  beforeAll(async () => {
    const registered = await server.api('POST', '/auth/register', { body: { username, password: PASSWORD, email } });
    expect(registered.status).toBe(201);
    ada = { id: registered.body.user_id, token: registered.body.token, username };
    bob = await registerUser(server);
    guild = await createGuild(server);
    await join(server, guild, ada);
    await join(server, guild, bob);
    client = await registerClient(server);

    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: ada.token, body: { content: 'hello guild' } });
    expect(sent.status).toBe(200);
    guildMessageId = sent.body.id;
    const dm = await server.api('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bob.id } });
    dmId = dm.body.id;
    expect((await server.api('POST', `/channels/${dmId}/messages`, { token: ada.token, body: { content: 'hello bob' } })).status).toBe(200);
    const group = await server.api('POST', '/users/@me/channels', { token: ada.token, body: { recipients: [bob.id, guild.owner.id] } });
    expect(group.status).toBe(200);
    groupDmId = group.body.id;
  });

  it('refuses a wrong or missing password, appending nothing', async () => {
    await expectRefusedWithoutEvents(server, () => remove(ada, { password: 'not the password' }), 400, 'INVALID_FORM_BODY');
    const wrong = await remove(ada, { password: 'not the password' });
    expect(wrong.body.errors).toEqual([{ path: 'password', message: 'Password does not match.' }]);
    await expectRefusedWithoutEvents(server, () => remove(ada, {}), 400, 'INVALID_FORM_BODY');
  });

  it('refuses the owner of a guild or of an application until they hand it over, appending nothing', async () => {
    await expectRefusedWithoutEvents(server, () => remove(guild.owner), 400, 'GUILD_OWNERSHIP');
    await expectRefusedWithoutEvents(server, () => remove(client.owner), 400, 'APPLICATION_OWNERSHIP');
  });

  it('refuses bot tokens and OAuth2 access tokens with 403: neither is the person', async () => {
    const bot = await createBot(server);
    await expectRefusedWithoutEvents(server, () => remove(bot, { password: PASSWORD }, 'Bot'), 403, 'BOTS_NOT_ALLOWED');
    const { access_token } = await grantedTokens(server, client, bob);
    await expectRefusedWithoutEvents(server, () => remove({ ...bob, token: access_token }), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
  });

  it('deletes the account: sessions close 4004, tokens answer 401, and others see Deleted User everywhere', async () => {
    const session = await gateway.session(ada.token, Intent.GUILDS);
    const ownerSession = await gateway.session(guild.owner.token, Intent.GUILDS | Intent.GUILD_MEMBERS);
    const oauth2 = await grantedTokens(server, client, ada);
    const pendingCode = await authorizedCode(server, client, ada);

    expect((await remove(ada)).status).toBe(204);

    expect((await session.closed).code).toBe(4004);
    const removed = await ownerSession.next((p) => p.t === 'GUILD_MEMBER_REMOVE' && p.d.user.id === ada.id);
    expect(removed.d.guild_id).toBe(guild.id);
    const again = await gateway.connect();
    await again.next((p) => p.op === 10);
    again.send({ op: 2, d: { token: ada.token, intents: 1, properties: { os: 'linux', browser: 'test', device: 'test' } } });
    expect((await again.closed).code).toBe(4004);
    const ready = await session.dispatch('READY');
    const resumed = await gateway.connect();
    await resumed.next((p) => p.op === 10);
    resumed.send({ op: 6, d: { token: ada.token, session_id: ready.d.session_id, seq: session.lastSeq() } });
    expect((await resumed.closed).code).toBe(4004);

    expectError(await server.api('GET', '/users/@me', { token: ada.token }), 401, 'UNAUTHORIZED');
    expectError(await server.api('GET', '/users/@me', { token: oauth2.access_token }), 401, 'UNAUTHORIZED');
    const clientAuth = { client_id: client.id, client_secret: client.secret };
    const refreshed = await tokenRequest(server, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: oauth2.refresh_token, ...clientAuth });
    expect({ status: refreshed.status, error: refreshed.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    const exchanged = await tokenRequest(server, '/oauth2/token', {
      grant_type: 'authorization_code',
      code: pendingCode,
      redirect_uri: REDIRECT_URI,
      ...clientAuth,
    });
    expect({ status: exchanged.status, error: exchanged.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    const login = await server.api('POST', '/auth/login', { body: { login: email, password: PASSWORD } });
    expect(login.status).toBe(400);

    expect((await server.api('GET', `/users/${ada.id}`)).body).toMatchObject({ id: ada.id, ...DELETED });
    const message = await server.api('GET', `/channels/${guild.channelId}/messages/${guildMessageId}`, { token: bob.token });
    expect(message.body).toMatchObject({ id: guildMessageId, content: 'hello guild', author: { id: ada.id, ...DELETED } });
    const members = await server.api('GET', `/guilds/${guild.id}/members?limit=100`, { token: guild.owner.token });
    expect(members.body.map((m: { user: { id: string } }) => m.user.id)).not.toContain(ada.id);

    const dms = await server.api('GET', '/users/@me/channels', { token: bob.token });
    const dm = dms.body.find((c: { id: string }) => c.id === dmId);
    expect(dm.recipients).toEqual([expect.objectContaining({ id: ada.id, ...DELETED })]);
    const dmMessages = await server.api('GET', `/channels/${dmId}/messages`, { token: bob.token });
    expect(dmMessages.body[0]).toMatchObject({ content: 'hello bob', author: { id: ada.id, ...DELETED } });
    const group = dms.body.find((c: { id: string }) => c.id === groupDmId);
    expect(group.recipients.map((u: { id: string }) => u.id)).toEqual([guild.owner.id]);

    // The email is gone from every read model: the user document has none, and no login names it.
    expect((await server.runtime.readStore.findOne(USERS, { _id: ada.id }))?.email).toBeNull();
    expect(await server.runtime.readStore.find(LOGINS, { email_lower: email })).toEqual([]);
  });

  it('takes nothing more into its DM, nor a new DM with it: 50007 as the widely used API answers, appending nothing', async () => {
    const send = (prefix: string) => server.call('POST', `${prefix}/channels/${dmId}/messages`, { token: bob.token, body: { content: 'still there?' } });
    await expectRefusedWithoutEvents(server, () => send('/api/v1'), 403, 'CANNOT_SEND_MESSAGES_TO_USER');
    const open = () => server.api('POST', '/users/@me/channels', { token: bob.token, body: { recipient_id: ada.id } });
    await expectRefusedWithoutEvents(server, open, 403, 'CANNOT_SEND_MESSAGES_TO_USER');
    const widelyUsed = await send('/api/v10');
    expect({ status: widelyUsed.status, body: widelyUsed.body }).toEqual({ status: 403, body: { code: 50007, message: 'Cannot send messages to this user' } });
  });

  it('frees the username and the email: they register again, as a new account', async () => {
    const registered = await server.api('POST', '/auth/register', { body: { username, password: PASSWORD, email } });
    expect(registered.status).toBe(201);
    expect(registered.body.user_id).not.toBe(ada.id);
    const me = await server.api('GET', '/users/@me', { token: registered.body.token });
    expect(me.body).toMatchObject({ id: registered.body.user_id, username, email });
    const login = await server.api('POST', '/auth/login', { body: { login: email, password: PASSWORD } });
    expect({ status: login.status, user: login.body.user_id }).toEqual({ status: 200, user: registered.body.user_id });
  });
});
