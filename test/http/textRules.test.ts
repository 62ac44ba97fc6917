// Names as the widely used API takes them (domain/text.ts through the cleanName schema keyword): stored NFC-normalized
// and trimmed; refused, with the field's path and nothing appended, when they hold NUL, control characters or lone
// surrogates or show nothing. Ids and nonces past 2^53 sent as JSON numbers are kept exactly.
import { describe, expect, it } from 'vitest';
import { fileServer, registerUser, uniqueName } from '../support/server.js';
import { createGuild, expectRefusedWithoutEvents, newMember } from './guildSupport.js';

const server = await fileServer();
const guild = await createGuild(server);

/** 400 INVALID_FORM_BODY naming `path`, with nothing appended. */
async function refusedAt(path: string, call: () => Promise<import('../support/server.js').ApiResponse>) {
  let response!: import('../support/server.js').ApiResponse;
  await expectRefusedWithoutEvents(server, async () => (response = await call()), 400, 'INVALID_FORM_BODY');
  expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
}

describe('usernames', () => {
  it('are stored NFC-normalized and trimmed', async () => {
    const base = uniqueName('cafe');
    const response = await server.api('POST', '/auth/register', { body: { username: `  ${base}e\u0301 `, password: 'correct horse battery' } });
    expect(response.status).toBe(201);
    const me = await server.api('GET', '/users/@me', { token: response.body.token });
    expect(me.body.username).toBe(`${base}é`);
  });

  it('with NUL, control characters, lone surrogates or nothing visible are refused', async () => {
    for (const username of ['nul\u0000name', 'line\nbreak', 'half\uD83D', '\u200B\u200B\u200B', ' \u3164 ']) {
      await refusedAt('username', () => server.api('POST', '/auth/register', { body: { username, password: 'correct horse battery' } }));
    }
    const user = await registerUser(server);
    await refusedAt('username', () => server.api('PATCH', '/users/@me', { token: user.token, body: { username: '\u200B\u200D' } }));
  });
});

describe('guild, channel and role names and nicknames', () => {
  it('are cleaned the same way', async () => {
    const created = await server.api('POST', '/guilds', { token: guild.owner.token, body: { name: ' Re\u0301sume\u0301 Club ' } });
    expect([created.status, created.body.name]).toEqual([201, 'Résumé Club']);
    await refusedAt('name', () => server.api('POST', '/guilds', { token: guild.owner.token, body: { name: '\u200B \u200B' } }));
    await refusedAt('name', () => server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { name: 'a\u0000b' } }));
    await refusedAt('name', () => server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: '\uFEFF' } }));
    await refusedAt('name', () => server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name: ' \u200B ' } }));
    const role = await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name: ' mods ' } });
    expect(role.body.name).toBe('mods');

    const member = await newMember(server, guild);
    await refusedAt('nick', () => server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token, body: { nick: '\u200B' } }));
    const nick = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token, body: { nick: ' Zoe\u0308 ' } });
    expect([nick.status, nick.body.nick]).toEqual([200, 'Zoë']);
    // An empty nick still resets it, as in the widely used API.
    const reset = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token, body: { nick: '' } });
    expect(reset.status).toBe(200);
    expect(reset.body.nick ?? null).toBeNull();
  });
});

describe('message content', () => {
  it('made only of whitespace and zero-width characters is an empty message', async () => {
    for (const content of ['   ', '\u200B\u200B', ' \n\t\uFEFF ']) {
      await expectRefusedWithoutEvents(
        server,
        () => server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content } }),
        400,
        'CANNOT_SEND_EMPTY_MESSAGE',
      );
    }
    const kept = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: '  spaced  ' } });
    expect([kept.status, kept.body.content]).toEqual([200, '  spaced  ']);
  });
});

describe('numbers past 2^53', () => {
  it('a numeric nonce is kept digit for digit', async () => {
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: guild.owner.token,
      rawBody: '{"content":"big nonce","nonce":12345678901234567890}',
      headers: { 'content-type': 'application/json' },
    });
    expect(sent.status).toBe(200);
    expect(String(sent.body.nonce)).toBe('12345678901234567890');
  });

  it('ids are taken as JSON numbers as well as strings', async () => {
    const member = await newMember(server, guild);
    const role = await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name: 'numeric' } });
    const patched = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, {
      token: guild.owner.token,
      rawBody: `{"roles":[${role.body.id}]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.roles).toEqual([role.body.id]);
  });
});
