// `npm run cluster` for real: every role a process of its own on PostgreSQL and Kafka, two api nodes and two gateway
// nodes behind the launcher's balancers, driven through the real surface only — HTTPS to a chosen node or the
// balancer, WebSocket sessions, unmodified discord.js bots and the HTTP-interactions example bot. One cluster for the
// file (eight processes are expensive on 2 cores), on a database of its own.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { type BotProcess, startBotProcess } from '../compat/botProcess.js';
import { withEngines } from '../contracts/engines.js';
import { createGuild, join as joinGuild, newMember } from '../http/guildSupport.js';
import { type Cluster, startCluster } from '../support/cluster.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { createBot, registerUser } from '../support/server.js';

const root = join(import.meta.dirname, '..', '..');

await withEngines(['postgres', 'kafka'], 'a cluster of every role on PostgreSQL and Kafka', () => {
  let cluster: Cluster;
  const bots: BotProcess[] = [];
  const sessions: GatewayClient[] = [];
  beforeAll(async () => {
    // The HTTP-interactions bot listens on loopback, which the delivery worker refuses unless told otherwise.
    cluster = await startCluster({ INTERACTIONS_ALLOW_PRIVATE: '1' });
  });
  afterAll(async () => {
    for (const bot of bots) bot.child.kill('SIGKILL');
    for (const session of sessions) session.close();
    await cluster?.stop();
  });

  async function session(origin: string, token: string) {
    const client = await connectGateway({ origin, cert: cluster.cert });
    sessions.push(client);
    await client.identify(token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
    return client;
  }

  describe('the launcher', () => {
    it('starts every role as a process of its own, and GET /gateway/bot and READY name addresses that answer', async () => {
      const names = ['projector', 'relay', 'relay-standby', 'delivery', 'api-1', 'api-2', 'gateway-1', 'gateway-2'];
      const pids = names.map((name) => cluster.node(name).pid);
      expect(new Set(pids).size).toBe(names.length);
      for (const name of names) expect((await cluster.node(name).call('GET', '/readyz')).status).toBe(200);

      const bot = await createBot(cluster.api);
      const gateway = await cluster.node('api-2').call('GET', '/api/v10/gateway/bot', { token: bot.token, scheme: 'Bot' });
      expect(gateway.body.url).toBe(cluster.gatewayUrl);
      // The advertised address is the gateway balancer; READY sends the session back to the node that holds it.
      const first = await session(cluster.gatewayUrl.replace('wss:', 'https:').replace(/\/gateway$/, ''), bot.token);
      const second = await session(cluster.gatewayUrl.replace('wss:', 'https:').replace(/\/gateway$/, ''), bot.token);
      const nodeUrls = ['gateway-1', 'gateway-2'].map((name) => `${cluster.node(name).origin.replace('https:', 'wss:')}/gateway`);
      const resumeUrls = [first, second].map((client) => client.received.find((p) => p.t === 'READY')!.d.resume_gateway_url);
      expect(resumeUrls.sort()).toEqual(nodeUrls.sort());
    });
  });

  describe('read your writes across api nodes', () => {
    it('a user registered on api-1 logs in on api-2, and a message sent through api-1 is read back through api-2 at once', async () => {
      const [api1, api2] = [cluster.node('api-1'), cluster.node('api-2')];
      const user = await registerUser(api1);
      const login = await api2.api('POST', '/auth/login', { body: { login: user.username, password: 'correct horse battery' } });
      expect(login.status).toBe(200);
      expect(login.body.user_id).toBe(user.id);

      const guild = await createGuild(api1, user);
      for (let i = 0; i < 5; i++) {
        const sent = await api1.api('POST', `/channels/${guild.channelId}/messages`, { token: login.body.token, body: { content: `hello ${i}` } });
        expect(sent.status).toBe(200);
        const read = await api2.api('GET', `/channels/${guild.channelId}/messages?limit=1`, { token: user.token });
        expect(read.body.map((m: { id: string; content: string }) => [m.id, m.content])).toEqual([[sent.body.id, `hello ${i}`]]);
      }
    });
  });

  describe('discord.js on either gateway node', () => {
    it('a bot on gateway-2 sees a send through api-1; a slash command invoked through api-2 reaches a bot on gateway-1, whose reply reaches the user', async () => {
      const api1 = cluster.node('api-1');
      const api2 = cluster.node('api-2');
      const owner = await registerUser(api1);
      const guild = await createGuild(api1, owner);
      const apps = [await createBot(api1, owner), await createBot(api1, owner)];
      for (const app of apps) await joinGuild(api1, guild, app, 'Bot');
      const member = await newMember(api2, guild);
      const memberSession = await session(cluster.node('gateway-2').origin, member.token);

      const bot = startBotProcess(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'clusterBots.ts')], {
        PARLEY_ORIGIN: cluster.publicBaseUrl,
        BOT_TOKENS: apps.map((app) => app.token).join(','),
        NODE_EXTRA_CA_CERTS: join(cluster.dir, 'tls', 'self-signed.crt'),
      });
      bots.push(bot);
      const ready = await Promise.all([0, 1].map((i) => bot.next('ready', (d) => d.bot === i, 60_000)));
      const commands = await Promise.all([0, 1].map((i) => bot.next('commands', (d) => d.bot === i, 60_000)));
      // The balancer handed the two connections to the two nodes in turn.
      const nodeOf = (i: number) =>
        ['gateway-1', 'gateway-2'].find((name) => ready[i].data.resumeGatewayUrl.startsWith(cluster.node(name).origin.replace('https:', 'wss:')));
      expect([nodeOf(0), nodeOf(1)].sort()).toEqual(['gateway-1', 'gateway-2']);
      const onGateway2 = nodeOf(0) === 'gateway-2' ? 0 : 1;
      const onGateway1 = 1 - onGateway2;

      const sent = await api1.api('POST', `/channels/${guild.channelId}/messages`, { token: owner.token, body: { content: 'seen on gateway-2' } });
      expect(sent.status).toBe(200);
      const seen = await bot.next('messageCreate', (d) => d.bot === onGateway2 && d.id === sent.body.id, 30_000);
      expect(seen.data).toMatchObject({ content: 'seen on gateway-2', channelId: guild.channelId });

      const invoked = await api2.api('POST', '/interactions', {
        token: member.token,
        body: {
          type: 2,
          application_id: apps[onGateway1].applicationId,
          guild_id: guild.id,
          channel_id: guild.channelId,
          data: { id: commands[onGateway1].data.ping, name: 'ping', type: 1 },
        },
      });
      expect(invoked.status).toBe(204);
      const interaction = await bot.next('interaction', (d) => d.name === 'ping', 30_000);
      expect(interaction.data).toMatchObject({ bot: onGateway1, userId: member.id });
      const reply = await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === `pong from bot ${onGateway1}`, 30_000);
      expect(reply.d.author.id).toBe(apps[onGateway1].id);
      // Invoked once, answered once: the other bot saw nothing of it.
      expect(bot.reports.filter((r) => r.event === 'interaction')).toHaveLength(1);
    });
  });

  describe('the delivery worker', () => {
    it('delivers an HTTP-interactions bot its command and its modal submit once each, signed', async () => {
      const api1 = cluster.node('api-1');
      const api2 = cluster.node('api-2');
      const app = await createBot(api1);
      const guild = await createGuild(api1, app.owner);
      await joinGuild(api1, guild, app, 'Bot');
      const member = await newMember(api1, guild);
      const memberSession = await session(cluster.node('gateway-1').origin, member.token);
      // examples/httpBot.mjs checks every request's signature (discord-interactions' verifyKeyMiddleware) and answers 401 otherwise.
      const bot = startBotProcess(process.execPath, [join(root, 'examples', 'httpBot.mjs')], {
        PARLEY_ORIGIN: cluster.publicBaseUrl,
        BOT_TOKEN: app.token,
        NODE_EXTRA_CA_CERTS: join(cluster.dir, 'tls', 'self-signed.crt'),
      });
      bots.push(bot);
      await new Promise<void>((resolve, reject) => {
        const check = () => (bot.output().includes('verified') ? resolve() : bot.child.exitCode !== null ? reject(new Error(bot.output())) : undefined);
        bot.child.stdout!.on('data', check);
        bot.child.once('exit', check);
        check();
      });
      const commands = (await api2.api('GET', `/applications/${app.applicationId}/commands`, { token: app.owner.token })).body as {
        id: string;
        name: string;
      }[];
      const idOf = (name: string) => commands.find((c) => c.name === name)!.id;
      const place = { application_id: app.applicationId, guild_id: guild.id, channel_id: guild.channelId };

      const hello = await api2.api('POST', '/interactions', {
        token: member.token,
        body: { ...place, type: 2, data: { id: idOf('hello'), name: 'hello', type: 1 } },
      });
      expect(hello.status).toBe(204);
      await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === `Hello, <@${member.id}>!`, 30_000);

      const feedback = await api1.api('POST', '/interactions', {
        token: member.token,
        body: { ...place, type: 2, data: { id: idOf('feedback'), name: 'feedback', type: 1 }, nonce: 'n-1' },
      });
      expect(feedback.status).toBe(204);
      const modal = await memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE', 30_000);
      const rows = [{ type: 1, components: [{ type: 4, custom_id: 'text', value: 'One cluster' }] }];
      const submit = await api2.api('POST', '/interactions', {
        token: member.token,
        body: { ...place, type: 5, data: { id: modal.d.id, custom_id: 'feedback', components: rows } },
      });
      expect(submit.status).toBe(204);
      await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === `Thanks, <@${member.id}>: “One cluster”`, 30_000);

      // Once each: the bot logged each command it was sent, and the channel holds each answer once.
      expect(bot.output().match(/\/hello from /g)).toHaveLength(1);
      expect(bot.output().match(/\/feedback from /g)).toHaveLength(1);
      const history = (await api2.api('GET', `/channels/${guild.channelId}/messages?limit=10`, { token: member.token })).body as { content: string }[];
      expect(history.filter((m) => m.content === `Hello, <@${member.id}>!`)).toHaveLength(1);
      expect(history.filter((m) => m.content.startsWith('Thanks,'))).toHaveLength(1);
    });
  });

  describe('what the api nodes share', () => {
    it('a route’s rate-limit bucket is spent across both api nodes, not per node', async () => {
      const bot = await createBot(cluster.node('api-1'));
      const list = (node: string) => cluster.node(node).api('GET', `/applications/${bot.applicationId}/commands`, { token: bot.token, scheme: 'Bot' });
      // application-commands:list allows 5 in 5 s per application: 3 on each node make 6.
      const statuses = [];
      for (const node of ['api-1', 'api-2', 'api-1', 'api-2', 'api-1', 'api-2']) statuses.push((await list(node)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    });

    it('ids minted on every node under load are unique, each carrying its node’s process id', async () => {
      const owner = await registerUser(cluster.api);
      const guild = await createGuild(cluster.api, owner);
      const nodes = ['api-1', 'api-2', 'gateway-1', 'gateway-2'];
      const sends = nodes.flatMap((name) =>
        Array.from({ length: 15 }, (_, i) =>
          cluster
            .node(name)
            .api('POST', `/channels/${guild.channelId}/messages`, { token: owner.token, body: { content: `${name} ${i}` } })
            .then((response) => ({ name, status: response.status, id: response.body.id as string })),
        ),
      );
      const sent = await Promise.all(sends);
      expect(sent.filter((s) => s.status !== 200)).toEqual([]);
      // Under that load the cluster stayed within the share of the server's connections the launcher gave it.
      const budget = Number((await cluster.line(/^cluster: PostgreSQL: at most (\d+) connections/))[1]);
      const admin = new pg.Client({ connectionString: cluster.postgresUrl });
      await admin.connect();
      const { rows } = await admin.query<{ count: string }>(
        'SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      await admin.end();
      expect(Number(rows[0].count)).toBeLessThanOrEqual(budget);
      expect(new Set(sent.map((s) => s.id)).size).toBe(sent.length);
      for (const { name, id } of sent) expect(Number((BigInt(id) >> 12n) & 31n)).toBe(cluster.node(name).processId);
      const history = (await cluster.node('api-2').api('GET', `/channels/${guild.channelId}/messages?limit=100`, { token: owner.token })).body as {
        id: string;
      }[];
      const ids = history.map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(sent.map((s) => s.id)));
    });
  });

  describe('stopping', () => {
    // Last: it stops the file's cluster.
    it('SIGTERM to the launcher stops every process gracefully, and the launcher exits once they have', async () => {
      const names = ['projector', 'relay', 'relay-standby', 'delivery', 'api-1', 'api-2', 'gateway-1', 'gateway-2'];
      const pids = names.map((name) => cluster.node(name).pid);
      const exited = once(cluster.launcher, 'exit');
      cluster.launcher.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      expect(cluster.output()).toMatch(/^cluster: stopped$/m);
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
      for (const name of names) {
        const log = await readFile(join(cluster.dir, 'logs', `${name}.log`), 'utf8');
        expect(log, name).toMatch(/"signal":"SIGTERM","msg":"stopped"/);
      }
    });
  });
});
