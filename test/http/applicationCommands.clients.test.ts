// Application commands as clients of the widely used API drive them: the spec's per-application limits with the
// headers @discordjs/rest reads, @discordjs/rest waiting out a 429 on its own, and discord.js's command managers
// (builders in, ApplicationCommand objects out) on the global and guild routes.
import { createRequire } from 'node:module';
import { REST, RESTEvents } from '@discordjs/rest';
import {
  ApplicationCommand,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  Client,
  ClientApplication,
  ContextMenuCommandBuilder,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
} from 'discord.js';
import { afterAll, describe, expect, it } from 'vitest';
import { type TestBot, createBot, fileServer, registerUser, expectNothingAppendedSince } from '../support/server.js';
import { createGuild, expectError, join } from './guildSupport.js';

const server = await fileServer();

// The clients' REST layer brings its own undici; its requests need an Agent of that undici trusting the test server.
const require = createRequire(createRequire(import.meta.url).resolve('discord.js'));
const { Agent } = createRequire(require.resolve('@discordjs/rest'))('undici') as typeof import('undici');
const agent = new Agent({ connect: { ca: server.cert, servername: 'localhost' } });
afterAll(() => agent.close());

const asBot = (bot: TestBot) => ({ token: bot.token, scheme: 'Bot' as const });
const commandsPath = (bot: TestBot) => `/applications/${bot.applicationId}/commands`;
const ping = { name: 'ping', description: 'Pong' };

describe('rate limits per application', () => {
  it('lists 5 times per 5 seconds with the limit headers, then answers 429 RATE_LIMITED with Retry-After', async () => {
    const bot = await createBot(server);
    const stranger = await registerUser(server);
    // Refused callers do not spend the application's budget: the limit is counted after the access check.
    for (let i = 0; i < 6; i++) expectError(await server.api('GET', commandsPath(bot), { token: stranger.token }), 403, 'MISSING_ACCESS');

    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await server.api('GET', commandsPath(bot), asBot(bot)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0', '0']);
    expect(answers[0].headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-bucket': expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(Number(answers[0].headers['x-ratelimit-reset-after'])).toBeLessThanOrEqual(5);
    const limited = answers[5];
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', retry_after: expect.any(Number) });
    expect(limited.body.retry_after).toBeLessThanOrEqual(5);
    expect(Number(limited.headers['retry-after'])).toBe(Math.ceil(limited.body.retry_after));

    // The owner's session shares the application's bucket; another application has its own.
    expect((await server.api('GET', commandsPath(bot), { token: bot.owner.token })).status).toBe(429);
    const other = await createBot(server, bot.owner);
    expect((await server.api('GET', commandsPath(other), asBot(other))).status).toBe(200);
  });

  it('takes 5 creates, changes and deletes per 10 seconds together, and 2 bulk overwrites per 30 seconds', async () => {
    const bot = await createBot(server);
    const created = await server.api('POST', commandsPath(bot), { ...asBot(bot), body: ping });
    const one = `${commandsPath(bot)}/${created.body.id}`;
    const writes = [
      await server.api('PATCH', one, { ...asBot(bot), body: { description: 'a' } }),
      await server.api('PATCH', one, { ...asBot(bot), body: { description: 'b' } }),
      await server.api('POST', commandsPath(bot), { ...asBot(bot), body: { name: 'echo', description: 'x' } }),
      await server.api('DELETE', one, asBot(bot)),
    ];
    expect([created, ...writes].map((r) => r.status)).toEqual([201, 200, 200, 201, 204]);
    const before = await server.runtime.store.headPosition();
    expectError(await server.api('POST', commandsPath(bot), { ...asBot(bot), body: { name: 'late', description: 'x' } }), 429, 'RATE_LIMITED');
    await expectNothingAppendedSince(server, before);

    // Bulk overwrites have their own bucket.
    const puts = [];
    for (let i = 0; i < 3; i++) puts.push(await server.api('PUT', commandsPath(bot), { ...asBot(bot), body: [ping] }));
    expect(puts.map((p) => p.status)).toEqual([200, 200, 429]);
    expect(puts[2].body.retry_after).toBeGreaterThan(25);
    expect(puts[2].body.retry_after).toBeLessThanOrEqual(30);
  });

  it('@discordjs/rest waits out a 429 by itself and then succeeds', async () => {
    const bot = await createBot(server);
    const rest = new REST({ api: `${server.origin}/api`, version: '1', retries: 0 }).setToken(bot.token);
    rest.setAgent(agent as never);
    const responses: { status: number; retryAfter: number | null }[] = [];
    rest.on(RESTEvents.Response, (_request, response) => {
      responses.push({ status: response.status, retryAfter: response.status === 429 ? Number(response.headers.get('retry-after')) : null });
    });
    const route = `/applications/${bot.applicationId}/commands` as const;
    for (let i = 0; i < 4; i++) await rest.post(route, { body: { name: `c${i}`, description: 'd' } });
    // Another client of the application spends the bucket's last request behind the client's back, so the client's
    // next request, which the headers it saw allowed, meets a 429.
    expect((await server.api('POST', commandsPath(bot), { ...asBot(bot), body: { name: 'other', description: 'd' } })).status).toBe(201);
    const started = Date.now();
    const last = (await rest.post(route, { body: { name: 'c4', description: 'd' } })) as { name: string };
    const waited = Date.now() - started;

    expect(last).toMatchObject({ name: 'c4', version: '1' });
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 429, 201]);
    expect(waited).toBeGreaterThanOrEqual(responses[4].retryAfter! * 1000 - 1000);
    const names = ((await rest.get(route)) as { name: string }[]).map((c) => c.name);
    expect(names.sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'other']);
  });
});

describe('discord.js command managers', () => {
  it('sets, fetches, creates, edits and deletes global and guild commands, reading back what it defined', async () => {
    const bot = await createBot(server);
    const guild = await createGuild(server, bot.owner);
    await join(server, guild, bot, 'Bot');
    const client = new Client({ intents: [], rest: { api: `${server.origin}/api`, version: '1', retries: 0 } });
    client.rest.setAgent(agent as never);
    client.token = bot.token;
    client.rest.setToken(bot.token);
    // REST only: READY would give the application; its id is all the command managers use.
    client.application = new (ClientApplication as unknown as new (client: Client, data: unknown) => ClientApplication)(client, { id: bot.applicationId });
    try {
      const echo = new SlashCommandBuilder()
        .setName('echo')
        .setDescription('Echoes your text')
        .setDefaultMemberPermissions(PermissionFlagsBits.ManageMessages)
        .setContexts(InteractionContextType.Guild)
        .addStringOption((o) => o.setName('text').setDescription('What to echo').setRequired(true).setMaxLength(50))
        .addIntegerOption((o) =>
          o.setName('times').setDescription('How often').setMinValue(1).setMaxValue(3).addChoices({ name: 'once', value: 1 }, { name: 'twice', value: 2 }),
        );
      const report = new ContextMenuCommandBuilder().setName('Report User').setType(ApplicationCommandType.User);

      const set = await client.application.commands.set([echo, report]);
      expect([...set.values()].map((c) => [c.name, c.type, c.guildId])).toEqual([
        ['echo', ApplicationCommandType.ChatInput, null],
        ['Report User', ApplicationCommandType.User, null],
      ]);
      const fetched = await client.application.commands.fetch();
      const echoed = fetched.find((c) => c.name === 'echo')!;
      expect(echoed).toBeInstanceOf(ApplicationCommand);
      // discord.js's own comparison of a command with the definition it sent (as JSON: the builder's undefined fields
      // never reach the wire) finds them equal: what was stored reads back as what was sent.
      expect(echoed.equals(JSON.parse(JSON.stringify(echo.toJSON())), true)).toBe(true);
      expect(echoed.defaultMemberPermissions?.has(PermissionFlagsBits.ManageMessages)).toBe(true);
      expect(echoed.options[0]).toMatchObject({ type: ApplicationCommandOptionType.String, name: 'text', required: true, maxLength: 50 });
      expect(echoed.options[1]).toMatchObject({
        type: ApplicationCommandOptionType.Integer,
        required: false,
        minValue: 1,
        maxValue: 3,
        choices: [
          { name: 'once', value: 1 },
          { name: 'twice', value: 2 },
        ],
      });
      expect(echoed.version).toBe('1');

      const edited = await echoed.edit({ description: 'Echoes, edited' });
      expect([edited.id, edited.description, edited.version]).toEqual([echoed.id, 'Echoes, edited', '2']);
      const made = await client.application.commands.create({ name: 'Quote', type: ApplicationCommandType.Message });
      expect(made.type).toBe(ApplicationCommandType.Message);
      await client.application.commands.delete(made.id);
      expect((await client.application.commands.fetch()).map((c) => c.name).sort()).toEqual(['Report User', 'echo']);

      const discordGuild = await client.guilds.fetch(guild.id);
      const inGuild = await discordGuild.commands.set([{ name: 'local', description: 'Only here' }]);
      expect([...inGuild.values()].map((c) => [c.name, c.guildId])).toEqual([['local', guild.id]]);
      expect((await discordGuild.commands.fetch()).map((c) => c.name)).toEqual(['local']);
      expect((await client.application.commands.fetch()).map((c) => c.name)).not.toContain('local');
    } finally {
      await client.destroy();
    }
  });
});
