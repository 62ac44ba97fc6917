// Invoking an application's commands over the real HTTPS API (POST /interactions) with the member's session: the
// event appended on the interaction's stream, the bot's INTERACTION_CREATE on its own gateway sessions only (options,
// resolved users, roles and channels, member and permissions, the token), and every refusal without an event.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileGateway } from '../support/gateway.js';
import { createBot, registerUser, expectNothingAppendedSince } from '../support/server.js';
import { type InteractionWorld, interactionWorld, invoke, invoked } from './commandInteractionSupport.js';
import { expectRefusedWithoutEvents, grantRole } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

const COMMANDS = [
  {
    name: 'echo',
    description: 'Repeats what you say',
    options: [
      { type: 3, name: 'text', description: 'What to say', required: true, min_length: 2, max_length: 10 },
      { type: 4, name: 'times', description: 'How often', min_value: 1, max_value: 3 },
      { type: 5, name: 'loud', description: 'Shout it' },
      {
        type: 3,
        name: 'color',
        description: 'A colour',
        choices: [
          { name: 'Red', value: 'red' },
          { name: 'Blue', value: 'blue' },
        ],
      },
      { type: 10, name: 'ratio', description: 'A number', min_value: 0, max_value: 1 },
    ],
  },
  {
    name: 'pick',
    description: 'Names things',
    options: [
      { type: 6, name: 'who', description: 'A user' },
      { type: 7, name: 'where', description: 'A text channel', channel_types: [0] },
      { type: 8, name: 'role', description: 'A role' },
      { type: 9, name: 'any', description: 'A user or a role' },
    ],
  },
  {
    name: 'config',
    description: 'Settings',
    options: [
      {
        type: 2,
        name: 'set',
        description: 'Set one',
        options: [{ type: 1, name: 'name', description: 'The name', options: [{ type: 3, name: 'value', description: 'Value', required: true }] }],
      },
      { type: 1, name: 'show', description: 'Show them' },
    ],
  },
  { name: 'admin', description: 'Administrators only', default_member_permissions: '0' },
  { name: 'kick-check', description: 'Needs KICK_MEMBERS', default_member_permissions: String(Permission.KICK_MEMBERS) },
  { name: 'Inspect user', type: 2 },
];

const world = (): Promise<InteractionWorld> => interactionWorld(server, clients, COMMANDS);

describe('POST /interactions', () => {
  it("records the invocation and sends the bot's sessions, only them, INTERACTION_CREATE as discord.js reads it", async () => {
    const w = await world();
    const before = await server.runtime.store.headPosition();
    const options = [
      { type: 3, name: 'text', value: 'hello' },
      { type: 4, name: 'times', value: 2 },
      { type: 5, name: 'loud', value: true },
    ];
    const d = await invoked(server, w, 'echo', options);
    expect(d).toMatchObject({
      application_id: w.bot.applicationId,
      type: 2,
      version: 1,
      guild_id: w.guild.id,
      channel_id: w.guild.channelId,
      channel: { id: w.guild.channelId, type: 0, name: 'general', guild_id: w.guild.id },
      data: { id: w.commands.echo.id, name: 'echo', type: 1, guild_id: w.guild.id, options },
      member: { user: { id: w.member.id, username: w.member.username }, roles: [], permissions: expect.stringMatching(/^\d+$/) },
      app_permissions: expect.stringMatching(/^\d+$/),
      locale: 'en-US',
      guild_locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': w.guild.id },
      context: 0,
      attachment_size_limit: 25 * 1024 * 1024,
    });
    expect(d.token).toEqual(expect.any(String));
    expect(d.data.resolved).toBeUndefined();
    expect(BigInt(d.member.permissions) & Permission.USE_APPLICATION_COMMANDS).toBe(Permission.USE_APPLICATION_COMMANDS);

    const appended = (await server.runtime.store.readAll({ fromPosition: before ?? undefined })).filter((e) => e.streamId === `command-interaction-${d.id}`);
    expect(appended.map((e) => e.type)).toEqual(['InteractionCreated']);
    // The token is in the log only sealed and as its digest.
    expect(JSON.stringify(appended[0].data)).not.toContain(d.token);
    expect(appended[0].data).toMatchObject({
      interaction: { id: d.id, userId: w.member.id, botUserId: w.bot.id },
      tokenHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(appended[0].metadata.actorId).toBe(w.member.id);

    // Nobody else's session hears of it.
    await w.memberSession.next((p) => p.t === 'GUILD_CREATE');
    expect(w.memberSession.received.some((p) => p.t === 'INTERACTION_CREATE')).toBe(false);
    expect(w.otherSession.received.some((p) => p.t === 'INTERACTION_CREATE')).toBe(false);
  });

  it('carries the locale its invoker chose and the guild’s preferred_locale, for localised answers', async () => {
    const w = await world();
    expect((await server.api('PATCH', '/users/@me', { token: w.member.token, body: { locale: 'de' } })).status).toBe(200);
    expect((await server.api('PATCH', `/guilds/${w.guild.id}`, { token: w.guild.owner.token, body: { preferred_locale: 'fr' } })).status).toBe(200);
    const d = await invoked(server, w, 'echo', [{ type: 3, name: 'text', value: 'hallo' }]);
    expect(d).toMatchObject({ locale: 'de', guild_locale: 'fr', guild: { id: w.guild.id, locale: 'fr' } });
  });

  it('resolves the users, members, roles and channels the options name', async () => {
    const w = await world();
    const role = await grantRole(server, w.guild, w.other, 0n, 'helpers');
    const options = [
      { type: 6, name: 'who', value: w.other.id },
      { type: 7, name: 'where', value: w.guild.channelId },
      { type: 8, name: 'role', value: role },
      { type: 9, name: 'any', value: w.member.id },
    ];
    const d = await invoked(server, w, 'pick', options);
    expect(d.data.options).toEqual(options);
    expect(Object.keys(d.data.resolved.users).sort()).toEqual([w.member.id, w.other.id].sort());
    expect(d.data.resolved.users[w.other.id]).toMatchObject({ id: w.other.id, username: w.other.username });
    expect(d.data.resolved.members[w.other.id]).toMatchObject({ roles: [role], permissions: expect.stringMatching(/^\d+$/) });
    expect(d.data.resolved.members[w.other.id].user).toBeUndefined();
    expect(d.data.resolved.roles[role]).toMatchObject({ id: role, name: 'helpers' });
    expect(d.data.resolved.channels[w.guild.channelId]).toMatchObject({ id: w.guild.channelId, type: 0, name: 'general', permissions: expect.any(String) });
  });

  it('takes a subcommand in a group, and a subcommand without options', async () => {
    const w = await world();
    const group = [{ type: 2, name: 'set', options: [{ type: 1, name: 'name', options: [{ type: 3, name: 'value', value: 'x' }] }] }];
    expect((await invoked(server, w, 'config', group)).data.options).toEqual(group);
    expect((await invoked(server, w, 'config', [{ type: 1, name: 'show' }])).data.options).toEqual([{ type: 1, name: 'show', options: [] }]);
  });

  it('refuses options that do not fit the command, each at its path, appending nothing', async () => {
    const w = await world();
    const refused = async (name: string, options: unknown[], errors: { path: string }[]) => {
      const before = await server.runtime.store.headPosition();
      const response = await invoke(server, w, name, options);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 400, code: 'INVALID_FORM_BODY' });
      expect(response.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(errors.map((e) => e.path).sort());
      await expectNothingAppendedSince(server, before);
    };
    await refused('echo', [], [{ path: 'data.options.text' }]);
    await refused('echo', [{ type: 3, name: 'text', value: 'x' }], [{ path: 'data.options.0.value' }]);
    await refused('echo', [{ type: 3, name: 'text', value: 'far too long' }], [{ path: 'data.options.0.value' }]);
    await refused(
      'echo',
      [
        { type: 3, name: 'text', value: 'ok' },
        { type: 4, name: 'times', value: 4 },
      ],
      [{ path: 'data.options.1.value' }],
    );
    await refused(
      'echo',
      [
        { type: 3, name: 'text', value: 'ok' },
        { type: 4, name: 'times', value: 1.5 },
      ],
      [{ path: 'data.options.1.value' }],
    );
    await refused(
      'echo',
      [
        { type: 3, name: 'text', value: 'ok' },
        { type: 5, name: 'loud', value: 'yes' },
      ],
      [{ path: 'data.options.1.value' }],
    );
    await refused(
      'echo',
      [
        { type: 3, name: 'text', value: 'ok' },
        { type: 3, name: 'color', value: 'green' },
      ],
      [{ path: 'data.options.1.value' }],
    );
    await refused(
      'echo',
      [
        { type: 3, name: 'text', value: 'ok' },
        { type: 10, name: 'ratio', value: 2 },
      ],
      [{ path: 'data.options.1.value' }],
    );
    await refused(
      'echo',
      [
        { type: 3, name: 'text', value: 'ok' },
        { type: 3, name: 'nope', value: 'x' },
      ],
      [{ path: 'data.options.1.name' }],
    );
    await refused('echo', [{ type: 4, name: 'text', value: 5 }], [{ path: 'data.options.0.type' }]);
    await refused(
      'echo',
      [
        { type: 3, name: 'text', value: 'ok' },
        { type: 3, name: 'text', value: 'ok' },
      ],
      [{ path: 'data.options.1.name' }],
    );
    await refused(
      'pick',
      [
        { type: 6, name: 'who', value: '123456789012345678' },
        { type: 8, name: 'role', value: w.member.id },
      ],
      [{ path: 'data.options.0.value' }, { path: 'data.options.1.value' }],
    );
    await refused(
      'config',
      [
        { type: 1, name: 'show' },
        { type: 1, name: 'show' },
      ],
      [{ path: 'data.options' }],
    );
    await refused(
      'config',
      [{ type: 2, name: 'set', options: [{ type: 1, name: 'name', options: [] }] }],
      [{ path: 'data.options.0.options.0.options.value' }],
    );
    await refused('config', [{ type: 1, name: 'hide' }], [{ path: 'data.options.0.name' }]);
  });

  it('refuses a channel option outside the accepted types or unseen by the invoker', async () => {
    const w = await world();
    const category = await server.api('POST', `/guilds/${w.guild.id}/channels`, { token: w.guild.owner.token, body: { name: 'cat', type: 4 } });
    const secret = await server.api('POST', `/guilds/${w.guild.id}/channels`, {
      token: w.guild.owner.token,
      body: { name: 'secret', type: 0, permission_overwrites: [{ id: w.guild.id, type: 0, allow: '0', deny: String(Permission.VIEW_CHANNEL) }] },
    });
    for (const channel of [category.body.id, secret.body.id]) {
      await expectRefusedWithoutEvents(server, () => invoke(server, w, 'pick', [{ type: 7, name: 'where', value: channel }]), 400, 'INVALID_FORM_BODY');
    }
  });

  it('refuses bots, unknown commands, another guild’s commands, wrong names and applications, appending nothing', async () => {
    const w = await world();
    const elsewhere = await world();
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'echo', [], { token: w.bot.token, scheme: 'Bot' }), 403, 'BOTS_NOT_ALLOWED');
    await expectRefusedWithoutEvents(
      server,
      () => invoke(server, w, 'echo', undefined, { data: { id: '123456789012345678' } }),
      404,
      'UNKNOWN_APPLICATION_COMMAND',
    );
    await expectRefusedWithoutEvents(
      server,
      () => invoke(server, w, 'echo', undefined, { data: { id: elsewhere.commands.echo.id } }),
      404,
      'UNKNOWN_APPLICATION_COMMAND',
    );
    await expectRefusedWithoutEvents(
      server,
      () => invoke(server, w, 'echo', [{ type: 3, name: 'text', value: 'hi' }], { data: { name: 'other' } }),
      400,
      'INVALID_FORM_BODY',
    );
    const wrongApp = () =>
      server.api('POST', '/interactions', {
        token: w.member.token,
        body: { type: 2, application_id: elsewhere.bot.applicationId, channel_id: w.guild.channelId, data: { id: w.commands.echo.id, name: 'echo' } },
      });
    await expectRefusedWithoutEvents(server, wrongApp, 404, 'UNKNOWN_APPLICATION_COMMAND');
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'echo', [], { channelId: elsewhere.guild.channelId }), 404, 'UNKNOWN_CHANNEL');
    const noSession = () => server.api('POST', '/interactions', { body: { type: 2 } });
    await expectRefusedWithoutEvents(server, noSession, 401, 'UNAUTHORIZED');
    await expectRefusedWithoutEvents(server, () => server.api('POST', '/interactions', { token: w.member.token, body: { type: 3 } }), 400, 'INVALID_FORM_BODY');
  });

  it('refuses a context menu command without its target, and a slash command with one', async () => {
    const w = await world();
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'Inspect user'), 400, 'INVALID_FORM_BODY');
    const withTarget = () => invoke(server, w, 'echo', [{ type: 3, name: 'text', value: 'hi' }], { data: { target_id: w.member.id } });
    await expectRefusedWithoutEvents(server, withTarget, 400, 'INVALID_FORM_BODY');
  });

  it('refuses when the bot left the guild', async () => {
    const w = await world();
    expect((await server.api('DELETE', `/users/@me/guilds/${w.guild.id}`, { token: w.bot.token, scheme: 'Bot' })).status).toBe(204);
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'echo', [{ type: 3, name: 'text', value: 'hi' }]), 403, 'MISSING_ACCESS');
  });

  it('checks USE_APPLICATION_COMMANDS and default_member_permissions ("0": administrators); the owner always passes', async () => {
    const w = await world();
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'admin'), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'kick-check'), 403, 'MISSING_PERMISSIONS');
    await grantRole(server, w.guild, w.member, Permission.KICK_MEMBERS, 'kickers');
    expect((await invoke(server, w, 'kick-check')).status).toBe(204);
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'admin'), 403, 'MISSING_PERMISSIONS');
    expect((await invoke(server, w, 'admin', undefined, { token: w.guild.owner.token })).status).toBe(204);
    await grantRole(server, w.guild, w.member, Permission.ADMINISTRATOR, 'admins');
    expect((await invoke(server, w, 'admin')).status).toBe(204);

    // @everyone without USE_APPLICATION_COMMANDS in the channel: no command at all.
    const everyone = await server.api('PUT', `/channels/${w.guild.channelId}/permissions/${w.guild.id}`, {
      token: w.guild.owner.token,
      body: { type: 0, allow: '0', deny: String(Permission.USE_APPLICATION_COMMANDS) },
    });
    expect(everyone.status).toBe(204);
    await expectRefusedWithoutEvents(
      server,
      () => invoke(server, w, 'echo', [{ type: 3, name: 'text', value: 'hi' }], { token: w.other.token }),
      403,
      'MISSING_PERMISSIONS',
    );
  });

  it('takes global commands in a DM with the bot only when dm_permission allows', async () => {
    const member = await registerUser(server);
    const app = await createBot(server);
    const botSession = await clients.session(app.token, 1 << 12);
    const put = await server.api('PUT', `/applications/${app.applicationId}/commands`, {
      token: app.token,
      scheme: 'Bot',
      body: [
        { name: 'hello', description: 'In DMs too' },
        { name: 'guildonly', description: 'Not in DMs', dm_permission: false },
      ],
    });
    expect(put.status).toBe(200);
    const [hello, guildOnly] = put.body as { id: string; name: string }[];
    const dm = await server.api('POST', '/users/@me/channels', { token: member.token, body: { recipient_id: app.id } });
    expect(dm.status).toBe(200);
    const call = (command: { id: string; name: string }) =>
      server.api('POST', '/interactions', {
        token: member.token,
        body: { type: 2, application_id: app.applicationId, channel_id: dm.body.id, data: { id: command.id, name: command.name, type: 1 } },
      });
    expect((await call(hello)).status).toBe(204);
    const d = (await botSession.next((p) => p.t === 'INTERACTION_CREATE')).d;
    expect(d).toMatchObject({
      channel_id: dm.body.id,
      channel: { id: dm.body.id, type: 1 },
      user: { id: member.id },
      context: 1,
      authorizing_integration_owners: { '0': '0' },
    });
    expect(d.member).toBeUndefined();
    expect(d.guild_id).toBeUndefined();
    // The bot answers in the DM.
    expect((await server.api('POST', `/interactions/${d.id}/${d.token}/callback`, { body: { type: 4, data: { content: 'hi in DM' } } })).status).toBe(204);
    const dmHistory = await server.api('GET', `/channels/${dm.body.id}/messages`, { token: member.token });
    expect(dmHistory.body[0]).toMatchObject({
      content: 'hi in DM',
      author: { id: app.id },
      interaction_metadata: { id: d.id, authorizing_integration_owners: { '0': '0' } },
    });
    await expectRefusedWithoutEvents(server, () => call(guildOnly), 404, 'UNKNOWN_APPLICATION_COMMAND');

    // A DM between two people is no place for the bot's commands.
    const friend = await registerUser(server);
    const people = await server.api('POST', '/users/@me/channels', { token: member.token, body: { recipient_id: friend.id } });
    const elsewhere = () =>
      server.api('POST', '/interactions', {
        token: member.token,
        body: { type: 2, application_id: app.applicationId, channel_id: people.body.id, data: { id: hello.id, name: 'hello' } },
      });
    await expectRefusedWithoutEvents(server, elsewhere, 403, 'MISSING_ACCESS');
  });

  it('a global command works in every guild the bot is in', async () => {
    const w = await world();
    const put = await server.api('PUT', `/applications/${w.bot.applicationId}/commands`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: [{ name: 'global', description: 'Everywhere' }],
    });
    expect(put.status).toBe(200);
    w.commands.global = put.body[0];
    const d = await invoked(server, w, 'global');
    expect(d.data.guild_id).toBeUndefined();
    expect(d.data.id).toBe(put.body[0].id);
    // An application whose bot is not in the guild: its global commands cannot be used there.
    const outsider = await createBot(server);
    const global = await server.api('PUT', `/applications/${outsider.applicationId}/commands`, {
      token: outsider.token,
      scheme: 'Bot',
      body: [{ name: 'global', description: 'Everywhere' }],
    });
    const call = () =>
      server.api('POST', '/interactions', {
        token: w.member.token,
        body: { type: 2, application_id: outsider.applicationId, channel_id: w.guild.channelId, data: { id: global.body[0].id, name: 'global' } },
      });
    await expectRefusedWithoutEvents(server, call, 403, 'MISSING_ACCESS');
  });
});
