// A bot user's id is its application's, as in the widely used API, where bot code passes `client.user.id` for the
// application's (`Routes.applicationCommands(client.user.id)` in the templates' deployment scripts). A bot made before
// that keeps its own user id, and both of its ids name its application wherever a route takes one.
import { createRequire } from 'node:module';
import { REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import { afterAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { newToken, sha256 } from '../../ports/secrets.js';
import { callback } from '../http/commandInteractionSupport.js';
import { createGuild, join, newMember } from '../http/guildSupport.js';
import { gatewayClients } from '../support/gateway.js';
import { type TestBot, type TestServer, createBot, fileServer, registerUser, uniqueName } from '../support/server.js';

const server: TestServer = await fileServer();
const clients = gatewayClients(() => server);

// discord.js's REST brings its own undici, whose Agent must trust the server's self-signed certificate.
type RestDispatcher = Parameters<REST['setAgent']>[0];
const { Agent } = createRequire(createRequire(import.meta.url).resolve('@discordjs/rest'))('undici') as {
  Agent: new (options: { connect: { ca: string; servername: string } }) => RestDispatcher & { close(): Promise<void> };
};
const agent = new Agent({ connect: { ca: server.cert, servername: 'localhost' } });
afterAll(async () => {
  clients.closeAll();
  await agent.close();
});

/** discord.js's REST as a deployment script builds it: the base address changed, the version its default (10). */
const restOf = (token: string) => new REST({ api: `${server.origin}/api`, retries: 0 }).setToken(token).setAgent(agent);

const commands = [{ name: 'ping', description: 'Replies with pong' }];

/**
 * A bot as they were made before a bot user took its application's id: an application made through the API, and its
 * bot's events appended as that version appended them, with a user id of its own.
 */
async function legacyBot(): Promise<TestBot> {
  const owner = await registerUser(server);
  const username = uniqueName('legacy');
  const app = await server.api('POST', '/applications', { token: owner.token, body: { name: username } });
  expect(app.status).toBe(201);
  const applicationId: string = app.body.id;
  const id = server.runtime.ids.next();
  const token = newToken(id);
  const metadata = { actorId: owner.id, createdAt: new Date().toISOString() };
  await server.runtime.store.appendToStream(
    `application-${applicationId}`,
    [{ type: 'ApplicationBotCreated', data: { applicationId, botUserId: id }, metadata }],
    { expectedRevision: 'any' },
  );
  const registered = await server.runtime.store.appendToStream(
    `user-${id}`,
    [
      { type: 'UserRegistered', data: { userId: id, username, discriminator: '0001', email: null, passwordHash: null, bot: true, applicationId }, metadata },
      { type: 'BotTokenIssued', data: { userId: id, tokenHash: sha256(token), previousTokenHash: null }, metadata },
    ],
    { expectedRevision: 'no_stream' },
  );
  await server.runtime.settle(registered.position);
  return { id, token, username, applicationId, owner };
}

const asBot = (bot: TestBot) => ({ token: bot.token, scheme: 'Bot' as const });

describe('a bot created now', () => {
  it("has its application's id as its user id: in the answer, /users/@me, /applications/@me, READY and the log", async () => {
    const bot = await createBot(server);
    expect(bot.id).toBe(bot.applicationId);
    expect((await server.api('GET', '/users/@me', asBot(bot))).body).toMatchObject({ id: bot.applicationId, bot: true });
    expect((await server.api('GET', '/applications/@me', asBot(bot))).body).toMatchObject({ id: bot.applicationId, bot: { id: bot.applicationId } });
    const ready = await (await clients.connect()).identify(bot.token, Intent.GUILDS);
    expect(ready.d.user.id).toBe(ready.d.application.id);
    expect(ready.d.application.id).toBe(bot.applicationId);
    const events = await server.runtime.store.readStream(`application-${bot.applicationId}`);
    expect(events.find((e) => e.type === 'ApplicationBotCreated')?.data).toEqual({ applicationId: bot.applicationId, botUserId: bot.applicationId });
  });

  it("registers its commands with Routes.applicationCommands(client.user.id) through discord.js's REST pinned to version 10", async () => {
    const bot = await createBot(server);
    const rest = restOf(bot.token);
    const user = (await rest.get(Routes.user())) as { id: string };
    const put = (await rest.put(Routes.applicationCommands(user.id), { body: commands })) as { name: string; application_id: string }[];
    expect(put).toMatchObject([{ name: 'ping', application_id: bot.applicationId }]);
    expect(((await rest.get(Routes.applicationCommands(bot.applicationId))) as { name: string }[]).map((c) => c.name)).toEqual(['ping']);
  });
});

describe('a bot made before its user took its application’s id', () => {
  it("keeps its user id, and its application's routes take both ids", async () => {
    const bot = await legacyBot();
    expect(bot.id).not.toBe(bot.applicationId);
    expect((await server.api('GET', '/users/@me', asBot(bot))).body).toMatchObject({ id: bot.id, bot: true });
    expect((await server.api('GET', '/applications/@me', asBot(bot))).body).toMatchObject({ id: bot.applicationId, bot: { id: bot.id } });

    // The bot registers by its user id, as a template does; the commands are its application's.
    const rest = restOf(bot.token);
    expect(await rest.put(Routes.applicationCommands(bot.id), { body: commands })).toMatchObject([{ name: 'ping', application_id: bot.applicationId }]);
    for (const id of [bot.id, bot.applicationId]) {
      expect(((await rest.get(Routes.applicationCommands(id))) as { name: string }[]).map((c) => c.name)).toEqual(['ping']);
    }

    // The owner's routes.
    const owner = { token: bot.owner.token };
    expect((await server.api('GET', `/applications/${bot.id}`, owner)).body).toMatchObject({ id: bot.applicationId, bot: { id: bot.id } });
    const edited = await server.api('PATCH', `/applications/${bot.id}`, { ...owner, body: { description: 'old but gold' } });
    expect(edited.body).toMatchObject({ id: bot.applicationId, description: 'old but gold' });
    expect((await server.api('POST', `/applications/${bot.id}/bot`, owner)).body).toMatchObject({ code: 'APPLICATION_HAS_BOT' });

    // OAuth2: the bot's invite link, by either id; an id that names nothing is still refused.
    for (const id of [bot.id, bot.applicationId]) {
      const page = await server.call('GET', `/oauth2/authorize?client_id=${id}&scope=bot`);
      expect(page.status, page.text).toBe(200);
      expect(page.text).toContain(bot.username);
    }
    expect((await server.call('GET', `/oauth2/authorize?client_id=${server.runtime.ids.next()}&scope=bot`)).status).toBe(400);
  });

  it("answers its interactions' follow-ups under either id", async () => {
    const bot = await legacyBot();
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    await join(server, guild, bot, 'Bot');
    const registered = await server.api('PUT', `/applications/${bot.id}/guilds/${guild.id}/commands`, { ...asBot(bot), body: commands });
    expect(registered.status, registered.text).toBe(200);
    const botSession = await clients.session(bot.token, Intent.GUILDS);
    const command = registered.body[0];
    // The member's client invokes the command under the application_id the command carries.
    const body = {
      type: 2,
      application_id: command.application_id,
      guild_id: guild.id,
      channel_id: guild.channelId,
      data: { id: command.id, name: 'ping', type: 1 },
    };
    expect((await server.api('POST', '/interactions', { token: member.token, body })).status).toBe(204);
    const interaction = (await botSession.dispatch('INTERACTION_CREATE')).d;
    expect(interaction.application_id).toBe(bot.applicationId);
    expect((await callback(server, interaction, { type: 5 })).status).toBe(204);
    for (const id of [bot.id, bot.applicationId]) {
      const followUp = await server.api('POST', `/webhooks/${id}/${interaction.token}?wait=true`, { body: { content: `by ${id}` } });
      expect(followUp.status, followUp.text).toBe(200);
      expect(followUp.body).toMatchObject({ content: `by ${id}`, webhook_id: bot.applicationId });
    }
  });
});
