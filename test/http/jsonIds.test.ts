// Ids sent as JSON numbers, as discord.py sends them (a reply's message_reference, member roles): every id is past
// 2^53, where a plain JSON.parse rounds it to a neighbouring id, so the body parser keeps such integers exact unless
// they are spelled as a rounded double prints.
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { createGuild, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

describe('ids as JSON numbers', () => {
  it('replies to and gives roles by the exact ids written as integers', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const send = (rawBody: string) =>
      server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, rawBody, headers: { 'content-type': 'application/json' } });
    // An id that a double prints as itself (one ending in zeros where the double's digits end) is rare but cannot show
    // rounding: send until the first message has an id a double would print differently.
    let first = (await send('{"content": "first"}')).body;
    for (let tries = 0; String(Number(first.id)) === first.id && tries < 5; tries++) first = (await send('{"content": "first"}')).body;
    expect(Number(first.id)).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
    const reply = await send(
      `{"content": "reply", "message_reference": {"message_id": ${first.id}, "channel_id": ${guild.channelId}, "guild_id": ${guild.id}}}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.message_reference).toMatchObject({ message_id: first.id, channel_id: guild.channelId, guild_id: guild.id });
    // Spelled as a double prints, an integer may have been rounded by its sender: refused, never read as another id.
    const rounded = String(Number(first.id));
    expect(rounded).not.toBe(first.id);
    await expectRefusedWithoutEvents(server, () => send(`{"content": "reply", "message_reference": {"message_id": ${rounded}}}`), 400, 'INVALID_FORM_BODY');

    const roleId = await grantRole(server, guild, guild.owner, 0n, 'spare');
    const patched = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, {
      token: guild.owner.token,
      rawBody: `{"roles": [${roleId}]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.roles).toEqual([roleId]);
  });

  it('leaves strings, safe integers and fractions as they are', async () => {
    const guild = await createGuild(server);
    const content = 'ids 1574257975504142336 and "quoted 1574257975504142336"';
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: guild.owner.token,
      rawBody: JSON.stringify({ content, nonce: 12345 }),
      headers: { 'content-type': 'application/json' },
    });
    expect(sent.body).toMatchObject({ content, nonce: 12345 });
  });
});
