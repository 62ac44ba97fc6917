// A ban with delete_message_days removes the banned user's recent messages from every channel of the guild, and only
// theirs.
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { createGuild, newMember } from './guildSupport.js';

const server = await fileServer();

describe('ban with delete_message_days', () => {
  it("deletes the banned user's messages of that window, and keeps everyone else's", async () => {
    const guild = await createGuild(server);
    const [spammer, bystander] = await Promise.all([newMember(server, guild), newMember(server, guild)]);
    const send = (token: string, content: string) => server.api('POST', `/channels/${guild.channelId}/messages`, { token, body: { content } });
    const spam = [await send(spammer.token, 'spam 1'), await send(spammer.token, 'spam 2')];
    const kept = await send(bystander.token, 'hello');
    expect([...spam, kept].map((r) => r.status)).toEqual([200, 200, 200]);

    const ban = await server.api('PUT', `/guilds/${guild.id}/bans/${spammer.id}`, { token: guild.owner.token, body: { delete_message_days: 1 } });
    expect(ban.status).toBe(204);
    for (const message of spam) {
      const gone = await server.api('GET', `/channels/${guild.channelId}/messages/${message.body.id}`, { token: guild.owner.token });
      expect(gone.status).toBe(404);
    }
    const still = await server.api('GET', `/channels/${guild.channelId}/messages/${kept.body.id}`, { token: guild.owner.token });
    expect(still.status).toBe(200);
  });

  it('keeps the messages when delete_message_days is 0', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const message = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: 'stays' } });
    expect((await server.api('PUT', `/guilds/${guild.id}/bans/${member.id}`, { token: guild.owner.token, body: {} })).status).toBe(204);
    expect((await server.api('GET', `/channels/${guild.channelId}/messages/${message.body.id}`, { token: guild.owner.token })).status).toBe(200);
  });
});
