// A real discord.js Client logs in with a bot token, gets ready with its guild cached, and receives messageCreate for
// a message another account posts over HTTP; it fetches members over the gateway and sees and sets presences; it
// resumes after a drop and takes a replay without the text erased meanwhile.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuild, join as joinGuild } from '../http/guildSupport.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestServer, createBot, registerUser, startTestServer, uniqueName } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';

let server: TestServer;
const bots: BotProcess[] = [];
const clients: GatewayClient[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const bot of bots) bot.child.kill('SIGKILL');
  for (const client of clients) client.close();
  await server.close();
});

function startBot(token: string, env: Record<string, string> = {}) {
  const bot = startBotProcess(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'discordBot.ts')], {
    PARLEY_ORIGIN: server.origin,
    BOT_TOKEN: token,
    NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    ...env,
  });
  bots.push(bot);
  return bot;
}

/** A raw gateway session, identified with a presence. */
async function online(token: string, intents: number, presence: object) {
  const client = await connectGateway(server);
  clients.push(client);
  await client.next((p) => p.op === 10);
  client.send({ op: 2, d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' }, presence } });
  await client.dispatch('READY');
  return client;
}

describe('discord.js compatibility', () => {
  it('logs in, is ready with its guild cached, and receives messageCreate for a message posted over HTTP', async () => {
    const app = await createBot(server);
    const owner = app.owner;
    const guild = await server.api('POST', '/guilds', { token: owner.token, body: { name: 'Compat' } });
    expect(guild.status).toBe(201);
    const channels = await server.api('GET', `/guilds/${guild.body.id}/channels`, { token: owner.token });
    const text = channels.body.find((c: { type: number }) => c.type === 0);
    const invite = await server.api('POST', `/channels/${text.id}/invites`, { token: owner.token, body: {} });
    expect(invite.status).toBe(200);
    const joined = await server.api('POST', `/invites/${invite.body.code}`, { token: app.token, scheme: 'Bot' });
    expect(joined.status).toBe(200);

    const bot = startBot(app.token);
    const ready = await bot.next('ready');
    expect(ready.data.userId).toBe(app.id);
    expect(ready.data.guilds).toEqual([expect.objectContaining({ id: guild.body.id, name: 'Compat', me: app.id })]);
    expect(ready.data.guilds[0].channels).toContain(text.id);

    const sent = await server.api('POST', `/channels/${text.id}/messages`, { token: owner.token, body: { content: 'hello bot' } });
    expect(sent.status).toBe(200);
    const received = await bot.next('messageCreate');
    expect(received.data).toEqual({ id: sent.body.id, content: 'hello bot', authorId: owner.id, channelId: text.id, guildId: guild.body.id });
  });

  it('fetches members over the gateway (all, by query, by ids), sees presences in GUILD_CREATE and updates, and sets its own', async () => {
    const app = await createBot(server);
    const guild = await createGuild(server);
    const ab1 = await joinGuild(server, guild, await registerUser(server, uniqueName('abq')));
    const ab2 = await joinGuild(server, guild, await registerUser(server, uniqueName('abr')));
    const cd = await joinGuild(server, guild, await registerUser(server, uniqueName('cd')));
    await joinGuild(server, guild, app, 'Bot');
    const member = await online(ab1.token, 0, { since: null, activities: [{ name: 'chess', type: 0 }], status: 'dnd', afk: false });
    const watcher = await online(guild.owner.token, 1 | (1 << 8), { since: null, activities: [], status: 'online', afk: false });

    const bot = startBot(app.token, { MEMBERS_GUILD_ID: guild.id, MEMBERS_QUERY: 'ab', MEMBERS_USER_IDS: `${ab2.id},${cd.id}` });
    const ready = await bot.next('ready');
    expect(ready.data.guilds[0].presences).toContainEqual({ userId: ab1.id, status: 'dnd', activities: ['chess'] });

    expect((await bot.next('fetchAll')).data).toEqual({ ids: [guild.owner.id, ab1.id, ab2.id, cd.id, app.id].sort() });
    expect((await bot.next('fetchQuery')).data).toEqual({ ids: [ab1.id, ab2.id].sort() });
    expect((await bot.next('fetchUsers')).data).toEqual({ ids: [ab2.id, cd.id].sort() });
    // The whole list once per 30 s, as the widely used API allows: discord.js rejects the second with the server's RATE_LIMITED.
    expect((await bot.next('fetchAllAgain')).data).toEqual({ error: 'GatewayRateLimitError' });

    expect((await bot.next('presenceSet')).data).toMatchObject({ status: 'idle', activities: ['the tests'] });
    const seen = await watcher.next((p) => p.t === 'PRESENCE_UPDATE' && p.d.user.id === app.id && p.d.status === 'idle');
    expect(seen.d).toMatchObject({ guild_id: guild.id, activities: [{ name: 'the tests', type: 3 }], client_status: { web: 'idle' } });

    member.send({ op: 3, d: { since: null, activities: [], status: 'online', afk: false } });
    const update = await bot.next('presenceUpdate', (data) => data.userId === ab1.id);
    expect(update.data).toEqual({ userId: ab1.id, status: 'online', activities: [] });
  });

  it('resumes after a drop and takes the replay, in which what was deleted or edited away meanwhile reads blank', async () => {
    const app = await createBot(server);
    const guild = await createGuild(server);
    await joinGuild(server, guild, app, 'Bot');
    const bot = startBot(app.token);
    await bot.next('ready');
    const sentinel = await online(guild.owner.token, 1 | (1 << 9) | (1 << 15), { since: null, activities: [], status: 'online', afk: false });
    // The bot's RESUME waits until the test is done changing things, so that all of it comes in the replay.
    const gateway = server.gateway as unknown as { resume: (...args: unknown[]) => Promise<unknown> };
    const resume = gateway.resume;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    gateway.resume = async (...args) => (await held, resume.apply(gateway, args));
    try {
      const session = [...server.gateway!.registry.all()].find((s) => s.userId === app.id)!;
      session.connection!.close(4000, 'Dropped by the test');
      for (let i = 0; session.connection && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(session.connection).toBeNull();

      const [kept, gone, old, now] = ['kept', 'gone', 'old', 'now'].map((label) => `SECRET-${randomBytes(6).toString('hex')}-${label}`);
      const post = async (content: string) =>
        (await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content } })).body.id as string;
      const keptId = await post(kept);
      const goneId = await post(gone);
      const editedId = await post(old);
      expect(
        (await server.api('PATCH', `/channels/${guild.channelId}/messages/${editedId}`, { token: guild.owner.token, body: { content: now } })).status,
      ).toBe(200);
      expect((await server.api('DELETE', `/channels/${guild.channelId}/messages/${goneId}`, { token: guild.owner.token })).status).toBe(204);
      await sentinel.next((p) => p.t === 'MESSAGE_DELETE' && p.d.id === goneId);
      release();

      await bot.next('resumed');
      await bot.next('messageDelete', (d) => d.id === goneId);
      expect(bot.reports.filter((r) => r.event === 'ready')).toHaveLength(1);
      const created = bot.reports.filter((r) => r.event === 'messageCreate').map((r) => [r.data.id, r.data.content]);
      expect(created).toEqual([
        [keptId, kept],
        [goneId, ''],
        [editedId, ''],
      ]);
      expect(bot.reports.filter((r) => r.event === 'messageUpdate').map((r) => [r.data.id, r.data.content])).toEqual([[editedId, now]]);
      const reported = JSON.stringify(bot.reports);
      expect(reported).not.toContain(gone);
      expect(reported).not.toContain(old);
    } finally {
      Reflect.deleteProperty(gateway, 'resume');
      release();
    }
  });
});
