// What erasure once missed: the command side's cache of folded states kept a deleted message's last version (and an erased
// account's names and email) in memory until it happened to be evicted. Through the real server: once a deletion is
// answered, the states the command side folds for what it erased show the erased values, as the log now reads.
import { describe, expect, it } from 'vitest';
import { groupDmStream, messageStream, threadStream, userStream } from '../../commands/streams.js';
import { groupDmDecider } from '../../domain/groupDm.js';
import { messageDecider } from '../../domain/message.js';
import { threadDecider } from '../../domain/thread.js';
import { userDecider } from '../../domain/user.js';
import { fileServer, registerUser, uniqueName } from '../support/server.js';
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

  it('a deleted guild’s threads’: their names are not kept, nor the name of a group DM everyone left', async () => {
    const guild = await createGuild(server);
    const created = await server.api('POST', `/channels/${guild.channelId}/threads`, {
      token: guild.owner.token,
      body: { name: 'cached thread name', type: 11 },
    });
    expect(created.status).toBe(201);
    const threadName = async () => (await server.runtime.commands.load(threadStream(created.body.id), threadDecider)).state.thread?.name;
    expect(await threadName()).toBe('cached thread name');
    expect((await server.api('DELETE', `/guilds/${guild.id}`, { token: guild.owner.token })).status).toBe(204);
    expect(await threadName()).toBeNull();

    const owner = await registerUser(server, uniqueName('owner'));
    const other = await registerUser(server, uniqueName('grouped'));
    const group = await server.api('POST', '/users/@me/channels', { token: owner.token, body: { recipients: [other.id] } });
    expect(group.status).toBe(200);
    const channelId = group.body.id as string;
    expect((await server.api('PATCH', `/channels/${channelId}`, { token: other.token, body: { name: 'cached group name' } })).status).toBe(200);
    const groupName = async () => (await server.runtime.commands.load(groupDmStream(channelId), groupDmDecider)).state.name;
    expect(await groupName()).toBe('cached group name');
    for (const user of [owner, other]) expect((await server.api('DELETE', `/channels/${channelId}`, { token: user.token })).status).toBe(200);
    expect(await groupName()).toBeNull();
  });
});
