// What erasure once missed: the command side's cache of folded states kept a deleted message's last version (and an erased
// account's names and email) in memory until it happened to be evicted. Through the real server: once a deletion is
// answered, the states the command side folds for what it erased show the erased values, as the log now reads.
import { describe, expect, it } from 'vitest';
import { messageStream, userStream } from '../../commands/streams.js';
import { messageDecider } from '../../domain/message.js';
import { userDecider } from '../../domain/user.js';
import { fileServer, uniqueName } from '../support/server.js';
import { createGuild } from './guildSupport.js';

const server = await fileServer();

async function send(token: string, channelId: string, content: string): Promise<string> {
  const sent = await server.api('POST', `/channels/${channelId}/messages`, { token, body: { content } });
  expect(sent.status).toBe(200);
  return sent.body.id;
}

const contentOf = async (messageId: string) => (await server.runtime.commands.load(messageStream(messageId), messageDecider)).state.message?.content;

describe('the command side’s folded states after an erasure', () => {
  it('a deleted message’s: its text is not kept', async () => {
    const guild = await createGuild(server);
    const id = await send(guild.owner.token, guild.channelId, 'cached secret one');
    expect(await contentOf(id)).toBe('cached secret one');
    expect((await server.api('DELETE', `/channels/${guild.channelId}/messages/${id}`, { token: guild.owner.token })).status).toBe(204);
    expect(await contentOf(id)).toBe('');
  });

  it('a deleted channel’s messages’: their text is not kept, another channel’s is', async () => {
    const guild = await createGuild(server);
    const doomed = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'doomed' } })).body.id;
    const id = await send(guild.owner.token, doomed, 'cached secret two');
    const beside = await send(guild.owner.token, guild.channelId, 'still here');
    expect(await contentOf(id)).toBe('cached secret two');
    expect((await server.api('DELETE', `/channels/${doomed}`, { token: guild.owner.token })).status).toBe(200);
    expect(await contentOf(id)).toBe('');
    expect(await contentOf(beside)).toBe('still here');
  });

  it('an erased account’s: its names and email are not kept', async () => {
    const username = uniqueName('cached');
    const registered = await server.api('POST', '/auth/register', { body: { username, password: 'correct horse battery', email: `${username}@example.com` } });
    expect(registered.status).toBe(201);
    const userId = registered.body.user_id as string;
    const before = (await server.runtime.commands.load(userStream(userId), userDecider)).state;
    expect({ username: before.username, email: before.email }).toEqual({ username, email: `${username}@example.com` });
    const deleted = await server.api('POST', '/users/@me/delete', { token: registered.body.token, body: { password: 'correct horse battery' } });
    expect(deleted.status).toBe(204);
    const after = (await server.runtime.commands.load(userStream(userId), userDecider)).state;
    expect({ username: after.username, email: after.email, erased: after.erased }).toEqual({ username: 'Deleted User', email: null, erased: true });
  });
});
