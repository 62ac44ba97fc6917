// Application command routes through the real HTTPS API: CRUD of global and guild commands with the events each
// appends, the upsert of POST and the bulk overwrite, who may manage them, validation with the spec's error paths
// (a refusal appends nothing), and the per-application limits on command counts.
import { describe, expect, it } from 'vitest';
import {
  type ApiResponse,
  type TestBot,
  createBot,
  fileServer,
  registerUser,
  expectNothingAppendedSince,
  appendedBy,
  streamTypeData,
} from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, join } from './guildSupport.js';

const server = await fileServer();
const owner = await registerUser(server);

/** A new application of `owner` with its bot: each test its own, so the per-application rate limits never meet. */
const newApp = () => createBot(server, owner);
const asBot = (bot: TestBot) => ({ token: bot.token, scheme: 'Bot' as const });
const globalPath = (bot: TestBot) => `/applications/${bot.applicationId}/commands`;
const guildPath = (bot: TestBot, guildId: string) => `/applications/${bot.applicationId}/guilds/${guildId}/commands`;

/** The response, and the events the request appended (stream, type, data). */
async function withAppended(request: () => Promise<ApiResponse>) {
  const { response, appended } = await appendedBy(server, request);
  return { response, appended: appended.map(streamTypeData) };
}

const ping = { name: 'ping', description: 'Replies with pong' };

describe('global commands', () => {
  it('creates a command with the widely used API’s fields and appends ApplicationCommandCreated on the scope’s stream', async () => {
    const bot = await newApp();
    const { response, appended } = await withAppended(() =>
      server.api('POST', globalPath(bot), {
        ...asBot(bot),
        body: { ...ping, options: [{ type: 3, name: 'text', description: 'What to echo', required: true, max_length: 50 }] },
      }),
    );
    expect(response.status).toBe(201);
    const command = {
      id: expect.stringMatching(/^\d+$/),
      application_id: bot.applicationId,
      guild_id: null,
      name: 'ping',
      name_localizations: null,
      description: 'Replies with pong',
      description_localizations: null,
      type: 1,
      options: [{ type: 3, name: 'text', description: 'What to echo', required: true, max_length: 50 }],
      default_member_permissions: null,
      dm_permission: true,
      nsfw: false,
      contexts: null,
      integration_types: null,
      version: '1',
    };
    expect(response.body).toEqual(command);
    const { id, ...stored } = response.body;
    expect(appended).toEqual([
      { stream: `application-commands-${bot.applicationId}-global`, type: 'ApplicationCommandCreated', data: { command: { id, ...stored } } },
    ]);

    expect((await server.api('GET', globalPath(bot), asBot(bot))).body).toEqual([response.body]);
    expect((await server.api('GET', `${globalPath(bot)}/${id}`, asBot(bot))).body).toEqual(response.body);
  });

  it('changes only the fields a PATCH sends, counting the version up only when something changed', async () => {
    const bot = await newApp();
    const created = (await server.api('POST', globalPath(bot), { ...asBot(bot), body: { ...ping, default_member_permissions: '8', dm_permission: false } }))
      .body;
    const patched = await server.api('PATCH', `${globalPath(bot)}/${created.id}`, { ...asBot(bot), body: { description: 'New words' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created, description: 'New words', version: '2' });

    const { response: again, appended } = await withAppended(() =>
      server.api('PATCH', `${globalPath(bot)}/${created.id}`, { ...asBot(bot), body: { description: 'New words' } }),
    );
    expect(again.body.version).toBe('2');
    expect(appended).toEqual([]);
    expect((await server.api('GET', `${globalPath(bot)}/${created.id}`, asBot(bot))).body).toEqual(patched.body);
  });

  it('deletes with 204 and no body; the command is then unknown', async () => {
    const bot = await newApp();
    const created = (await server.api('POST', globalPath(bot), { ...asBot(bot), body: ping })).body;
    const { response, appended } = await withAppended(() => server.api('DELETE', `${globalPath(bot)}/${created.id}`, asBot(bot)));
    expect({ status: response.status, text: response.text, type: response.headers['content-type'] }).toEqual({ status: 204, text: '', type: undefined });
    expect(appended).toMatchObject([{ type: 'ApplicationCommandDeleted', data: { command: { id: created.id } } }]);
    expectError(await server.api('GET', `${globalPath(bot)}/${created.id}`, asBot(bot)), 404, 'UNKNOWN_APPLICATION_COMMAND');
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', `${globalPath(bot)}/${created.id}`, asBot(bot)), 404, 'UNKNOWN_APPLICATION_COMMAND');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `${globalPath(bot)}/${created.id}`, { ...asBot(bot), body: { description: 'x' } }),
      404,
      'UNKNOWN_APPLICATION_COMMAND',
    );
    expect((await server.api('GET', globalPath(bot), asBot(bot))).body).toEqual([]);
  });

  it('overwrites the command of the same name and type on POST (200, same id), and creates one of another type (201)', async () => {
    const bot = await newApp();
    const first = (await server.api('POST', globalPath(bot), { ...asBot(bot), body: { ...ping, nsfw: true } })).body;
    const upsert = await server.api('POST', globalPath(bot), { ...asBot(bot), body: { name: 'ping', description: 'Other words' } });
    expect(upsert.status).toBe(200);
    // Everything not sent takes its default again: POST defines the whole command.
    expect(upsert.body).toEqual({ ...first, description: 'Other words', nsfw: false, version: '2' });
    const user = await server.api('POST', globalPath(bot), { ...asBot(bot), body: { name: 'ping', type: 2 } });
    expect(user.status).toBe(201);
    expect(user.body).toMatchObject({ name: 'ping', type: 2, description: '', options: [] });
    expect((await server.api('GET', globalPath(bot), asBot(bot))).body.map((c: { id: string }) => c.id)).toEqual([first.id, user.body.id]);
  });

  it('bulk overwrites: a command of the same name and type keeps its id, the others are deleted, new ones created', async () => {
    const bot = await newApp();
    const [keep, drop] = (await server.api('PUT', globalPath(bot), { ...asBot(bot), body: [ping, { name: 'Report user', type: 2 }] })).body as {
      id: string;
      version: string;
    }[];
    const { response, appended } = await withAppended(() =>
      server.api('PUT', globalPath(bot), {
        ...asBot(bot),
        body: [
          { name: 'echo', description: 'Echoes' },
          { ...ping, description: 'Pong, changed' },
        ],
      }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject([
      { name: 'echo', version: '1' },
      { id: keep.id, name: 'ping', description: 'Pong, changed', version: '2' },
    ]);
    expect(appended.map((e) => [e.type, (e.data as { command: { name: string } }).command.name])).toEqual([
      ['ApplicationCommandDeleted', 'Report user'],
      ['ApplicationCommandCreated', 'echo'],
      ['ApplicationCommandUpdated', 'ping'],
    ]);
    const list = (await server.api('GET', globalPath(bot), asBot(bot))).body as { id: string }[];
    expect(list.map((c) => c.id).sort()).toEqual(response.body.map((c: { id: string }) => c.id).sort());
    expect(list.map((c) => c.id)).not.toContain(drop.id);
  });

  it('renames a command through a bulk entry that names it by id', async () => {
    const bot = await newApp();
    const [ping1] = (await server.api('PUT', globalPath(bot), { ...asBot(bot), body: [ping] })).body as { id: string }[];
    const renamed = await server.api('PUT', globalPath(bot), { ...asBot(bot), body: [{ ...ping, id: ping1.id, name: 'pong' }] });
    expect(renamed.body).toMatchObject([{ id: ping1.id, name: 'pong', version: '2' }]);
    expect((await server.api('GET', globalPath(bot), asBot(bot))).body).toMatchObject([{ id: ping1.id, name: 'pong' }]);
  });
});

describe('guild commands', () => {
  it('live in their guild only: the global list never shows them, and another scope’s path does not find them', async () => {
    const bot = await newApp();
    const guild = await createGuild(server, owner);
    await join(server, guild, bot, 'Bot');
    const { response, appended } = await withAppended(() => server.api('POST', guildPath(bot, guild.id), { ...asBot(bot), body: ping }));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ guild_id: guild.id, application_id: bot.applicationId, name: 'ping', version: '1' });
    expect(appended).toMatchObject([{ stream: `application-commands-${bot.applicationId}-${guild.id}`, type: 'ApplicationCommandCreated' }]);
    // The same name globally is another command: each scope has its own names.
    const global = await server.api('POST', globalPath(bot), { ...asBot(bot), body: ping });
    expect(global.status).toBe(201);

    expect((await server.api('GET', globalPath(bot), asBot(bot))).body).toEqual([global.body]);
    expect((await server.api('GET', guildPath(bot, guild.id), asBot(bot))).body).toEqual([response.body]);
    expectError(await server.api('GET', `${globalPath(bot)}/${response.body.id}`, asBot(bot)), 404, 'UNKNOWN_APPLICATION_COMMAND');
    expectError(await server.api('GET', `${guildPath(bot, guild.id)}/${global.body.id}`, asBot(bot)), 404, 'UNKNOWN_APPLICATION_COMMAND');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `${globalPath(bot)}/${response.body.id}`, asBot(bot)),
      404,
      'UNKNOWN_APPLICATION_COMMAND',
    );

    const patched = await server.api('PATCH', `${guildPath(bot, guild.id)}/${response.body.id}`, { ...asBot(bot), body: { name: 'pong' } });
    expect(patched.body).toEqual({ ...response.body, name: 'pong', version: '2' });
    const overwritten = await server.api('PUT', guildPath(bot, guild.id), { ...asBot(bot), body: [] });
    expect(overwritten.body).toEqual([]);
    expect((await server.api('GET', guildPath(bot, guild.id), asBot(bot))).body).toEqual([]);
    expect((await server.api('GET', globalPath(bot), asBot(bot))).body).toEqual([global.body]);
  });

  it('needs an existing guild (UNKNOWN_GUILD) with the application’s bot in it (MISSING_ACCESS), appending nothing', async () => {
    const bot = await newApp();
    const guild = await createGuild(server, owner);
    const unknownGuild = '1000000000000000000';
    for (const token of [asBot(bot), { token: owner.token }]) {
      await expectRefusedWithoutEvents(server, () => server.api('POST', guildPath(bot, guild.id), { ...token, body: ping }), 403, 'MISSING_ACCESS');
      await expectRefusedWithoutEvents(server, () => server.api('POST', guildPath(bot, unknownGuild), { ...token, body: ping }), 404, 'UNKNOWN_GUILD');
      expectError(await server.api('GET', guildPath(bot, guild.id), token), 403, 'MISSING_ACCESS');
    }
    await join(server, guild, bot, 'Bot');
    expect((await server.api('POST', guildPath(bot, guild.id), { ...asBot(bot), body: ping })).status).toBe(201);
  });

  it('leave with their guild', async () => {
    const bot = await newApp();
    const guild = await createGuild(server, owner);
    await join(server, guild, bot, 'Bot');
    const command = (await server.api('POST', guildPath(bot, guild.id), { ...asBot(bot), body: ping })).body;
    expect((await server.api('DELETE', `/guilds/${guild.id}`, { token: owner.token })).status).toBe(204);
    expectError(await server.api('GET', `${guildPath(bot, guild.id)}/${command.id}`, asBot(bot)), 404, 'UNKNOWN_GUILD');
  });
});

describe('who manages commands', () => {
  it('is the application’s bot and its owner; anyone else is refused without an event', async () => {
    const bot = await newApp();
    const created = await server.api('POST', globalPath(bot), { token: owner.token, body: ping });
    expect(created.status).toBe(201);
    expect((await server.api('GET', globalPath(bot), asBot(bot))).body).toEqual([created.body]);

    const stranger = await registerUser(server);
    const otherBot = await createBot(server, stranger);
    const one = `${globalPath(bot)}/${created.body.id}`;
    const calls: [string, string, unknown?][] = [
      ['GET', globalPath(bot)],
      ['POST', globalPath(bot), ping],
      ['PUT', globalPath(bot), []],
      ['GET', one],
      ['PATCH', one, { description: 'mine now' }],
      ['DELETE', one],
    ];
    for (const [method, path, body] of calls) {
      for (const caller of [{ token: stranger.token }, asBot(otherBot)]) {
        await expectRefusedWithoutEvents(server, () => server.api(method, path, { ...caller, body }), 403, 'MISSING_ACCESS');
      }
      await expectRefusedWithoutEvents(server, () => server.api(method, path, { body }), 401, 'UNAUTHORIZED');
    }
    const unknownApp = `/applications/${created.body.id}/commands`;
    await expectRefusedWithoutEvents(server, () => server.api('POST', unknownApp, { token: owner.token, body: ping }), 404, 'UNKNOWN_APPLICATION');
    expect((await server.api('GET', one, asBot(bot))).body).toEqual(created.body);
  });
});

describe('validation', () => {
  /** The request is refused with INVALID_FORM_BODY, exactly these error paths, and nothing appended. */
  async function refusedAt(method: string, path: (bot: TestBot) => string, body: unknown, paths: string[]) {
    const bot = await newApp();
    const before = await server.runtime.store.headPosition();
    const response = await server.api(method, path(bot), { ...asBot(bot), body });
    expect({ status: response.status, code: response.body.code, paths: response.body.errors?.map((e: { path: string }) => e.path) }).toEqual({
      status: 400,
      code: 'INVALID_FORM_BODY',
      paths,
    });
    await expectNothingAppendedSince(server, before);
  }
  const create = (body: unknown, paths: string[]) => refusedAt('POST', globalPath, body, paths);
  const option = (over: object) => ({ ...ping, options: [{ type: 3, name: 'text', description: 'Text', ...over }] });

  it('checks names: slash commands lowercase without spaces, context-menu commands free but without description', async () => {
    await create({ name: 'Ping', description: 'd' }, ['name']);
    await create({ name: 'two words', description: 'd' }, ['name']);
    await create({ name: 'x'.repeat(33), description: 'd' }, ['name']);
    await create({ name: 'ping' }, ['description']);
    await create({ name: 'ping', description: 'x'.repeat(101) }, ['description']);
    await create({ name: 'Report User', type: 3, description: 'no' }, ['description']);
    await create({ name: 'Report User', type: 2, options: [{ type: 3, name: 'a', description: 'b' }] }, ['options']);
    const bot = await newApp();
    for (const body of [
      { name: 'Report User', type: 2 },
      { name: 'Quote This', type: 3, description: '' },
      { name: 'écho-δ_1', description: 'Unicode letters' },
    ]) {
      expect((await server.api('POST', globalPath(bot), { ...asBot(bot), body })).status).toBe(201);
    }
  });

  it('checks options: counts, kinds, nesting, order, choices and bounds, each at its own path', async () => {
    await create({ ...ping, options: Array.from({ length: 26 }, (_, i) => ({ type: 5, name: `o${i}`, description: 'd' })) }, ['options']);
    await create(option({ choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `${i}` })) }), ['options.0.choices']);
    await create(option({ type: 4, min_length: 1 }), ['options.0.min_length']);
    await create(option({ min_length: 6001 }), ['options.0.min_length']);
    await create(option({ max_length: 0 }), ['options.0.max_length']);
    await create(option({ type: 5, choices: [{ name: 'a', value: 'a' }] }), ['options.0.choices']);
    await create(
      option({
        type: 4,
        choices: [
          { name: 'a', value: 'a' },
          { name: 'b', value: 1.5 },
        ],
      }),
      ['options.0.choices.0.value', 'options.0.choices.1.value'],
    );
    await create(option({ min_value: 1 }), ['options.0.min_value']);
    await create(option({ name: 'Text' }), ['options.0.name']);
    await create(option({ type: 11 }), ['options.0.type']);
    await create(option({ options: [{ type: 3, name: 'inner', description: 'd' }] }), ['options.0.options']);
    await create(
      {
        ...ping,
        options: [
          { type: 3, name: 'a', description: 'd' },
          { type: 3, name: 'b', description: 'd', required: true },
        ],
      },
      ['options.1.required'],
    );
    await create(
      {
        ...ping,
        options: [
          { type: 3, name: 'a', description: 'd' },
          { type: 4, name: 'a', description: 'd' },
        ],
      },
      ['options.1.name'],
    );
    await create({ ...ping, options: [{ type: 2, name: 'g', description: 'd', options: [{ type: 2, name: 'h', description: 'd' }] }] }, [
      'options.0.options.0.type',
    ]);
    await create(
      {
        ...ping,
        options: [
          { type: 1, name: 's', description: 'd' },
          { type: 3, name: 't', description: 'd' },
        ],
      },
      ['options.1.type'],
    );
  });

  it('accepts a command with a subcommand group, subcommands and every option kind', async () => {
    const bot = await newApp();
    const options = [
      {
        type: 2,
        name: 'config',
        description: 'Settings',
        options: [
          {
            type: 1,
            name: 'set',
            description: 'Set one',
            options: [
              { type: 3, name: 'key', description: 'Which', required: true, choices: [{ name: 'Colour', value: 'colour' }] },
              { type: 4, name: 'count', description: 'How many', min_value: 1, max_value: 10 },
              { type: 10, name: 'ratio', description: 'How much', autocomplete: true },
              { type: 7, name: 'where', description: 'Channel', channel_types: [0, 5] },
              { type: 3, name: 'note', description: 'Note', min_length: 0, max_length: 6000 },
            ],
          },
        ],
      },
      { type: 1, name: 'show', description: 'Show all', options: [{ type: 6, name: 'who', description: 'User' }] },
    ];
    const response = await server.api('POST', globalPath(bot), { ...asBot(bot), body: { name: 'settings', description: 'Settings', options } });
    expect(response.status).toBe(201);
    expect(response.body.options).toEqual(options);
  });

  it('refuses a bulk overwrite whose names repeat, at the entry’s path, and keeps the commands there were', async () => {
    await refusedAt('PUT', globalPath, [ping, { name: 'echo', description: 'x' }, ping], ['2.name']);
    await refusedAt('PUT', globalPath, [ping, { name: 'Echo', description: 'x' }], ['1.name']);
    await refusedAt('PUT', globalPath, { name: 'not an array' }, ['_root']);
  });

  it('refuses a PATCH that would give a command the name of another of its type', async () => {
    const bot = await newApp();
    const [, echo] = (await server.api('PUT', globalPath(bot), { ...asBot(bot), body: [ping, { name: 'echo', description: 'x' }] })).body;
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `${globalPath(bot)}/${echo.id}`, { ...asBot(bot), body: { name: 'ping' } }),
      400,
      'INVALID_FORM_BODY',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `${globalPath(bot)}/${echo.id}`, { ...asBot(bot), body: { type: 2 } }),
      400,
      'INVALID_FORM_BODY',
    );
  });

  it('holds at most 5 USER and 5 MESSAGE commands per scope (and 100 slash commands)', async () => {
    const bot = await newApp();
    const users = Array.from({ length: 5 }, (_, i) => ({ name: `User ${i}`, type: 2 }));
    expect((await server.api('PUT', globalPath(bot), { ...asBot(bot), body: users })).status).toBe(200);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', globalPath(bot), { ...asBot(bot), body: { name: 'User 5', type: 2 } }),
      400,
      'MAX_APPLICATION_COMMANDS',
    );
    // Overwriting one of the five is not a sixth.
    expect((await server.api('POST', globalPath(bot), { ...asBot(bot), body: { name: 'User 4', type: 2, nsfw: true } })).status).toBe(200);
    const messages = Array.from({ length: 6 }, (_, i) => ({ name: `Message ${i}`, type: 3 }));
    await expectRefusedWithoutEvents(server, () => server.api('PUT', globalPath(bot), { ...asBot(bot), body: messages }), 400, 'MAX_APPLICATION_COMMANDS');
    const slash = Array.from({ length: 101 }, (_, i) => ({ name: `c${i}`, description: 'd' }));
    const other = await newApp();
    await expectRefusedWithoutEvents(server, () => server.api('PUT', globalPath(other), { ...asBot(other), body: slash }), 400, 'MAX_APPLICATION_COMMANDS');
  });
});
