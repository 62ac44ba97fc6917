// Threads with an unmodified discord.js 14 bot (its own process, only its base address pointed at Parley):
// channel.threads.create, message.startThread, thread.send, thread.members.add/remove, setLocked and setArchived,
// guild.channels.fetchActiveThreads and channel.threads.fetchArchived, and
// the threadCreate, threadUpdate and threadMembersUpdate events it receives; each checked again over HTTPS.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, grantRole, join as joinGuild, newMember } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';

const server = await fileServer();
const bots = killedAfterAll();

describe('threads with discord.js', () => {
  it('opens threads with and without a message, posts, adds and removes a member, locks and archives, and hears of it', async () => {
    const guild = await createGuild(server, undefined, 'Threads');
    const member = await newMember(server, guild);
    const app = await joinGuild(server, guild, await createBot(server), 'Bot');
    // Locking takes MANAGE_THREADS.
    await grantRole(server, guild, app, Permission.MANAGE_THREADS);
    const bot = bots.start(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'threadsBot.ts')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      CHANNEL_ID: guild.channelId,
      MEMBER_ID: member.id,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    });

    const created = (await bot.next('created', undefined, 30_000)).data;
    expect(created).toMatchObject({ type: 11, name: 'js thread', parentId: guild.channelId, ownerId: app.id });
    const started = (await bot.next('started')).data;
    expect(started).toEqual({ id: started.messageId, messageId: started.messageId, type: 11 });
    expect((await bot.next('sent')).data).toEqual({ channelId: created.id, content: 'hello from discord.js' });
    expect((await bot.next('members')).data.ids).toEqual([app.id, member.id].sort());
    expect((await bot.next('archived')).data).toEqual({ archived: true, locked: true });
    expect((await bot.next('lists')).data).toEqual({ active: [started.id], archived: [created.id], hasMore: false });

    expect((await bot.next('threadCreate', (d) => d.id === created.id)).data.name).toBe('js thread');
    const membersUpdates = [
      (await bot.next('threadMembersUpdate', (d) => d.added.includes(member.id))).data,
      (await bot.next('threadMembersUpdate', (d) => d.removed.includes(member.id))).data,
    ];
    expect(membersUpdates).toEqual([
      { id: created.id, added: [member.id], removed: [], memberCount: 2 },
      { id: created.id, added: [], removed: [member.id], memberCount: 1 },
    ]);
    expect((await bot.next('threadUpdate', (d) => d.id === created.id && d.archived)).data).toMatchObject({ archived: true, locked: true });

    // What the bot did, as the API shows it to a person.
    const thread = await server.api('GET', `/channels/${created.id}`, { token: guild.owner.token });
    expect(thread.body).toMatchObject({ message_count: 1, member_count: 1, thread_metadata: { archived: true, locked: true } });
    const history = await server.api('GET', `/channels/${created.id}/messages`, { token: member.token });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['hello from discord.js']);
    const report = await bot.next('error', undefined, 200).catch(() => null);
    expect(report).toBeNull();
  });
});
