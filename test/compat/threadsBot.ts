// An unmodified discord.js 14 bot working with threads, run as its own process: only the REST base address points at
// Parley. Once ready it opens a thread in CHANNEL_ID with channel.threads.create() and one from a message with
// message.startThread(), posts in it, adds and removes MEMBER_ID, locks and archives it, lists the active and archived
// threads, and reports each result and
// each threadCreate, threadUpdate and threadMembersUpdate it receives as JSON lines on stdout for threads.test.ts.
import { ChannelType, Client, GatewayIntentBits, type TextChannel } from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildMessages],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' },
});

client.on('threadCreate', (thread, newlyCreated) => report('threadCreate', { id: thread.id, name: thread.name, newlyCreated }));
client.on('threadUpdate', (before, after) =>
  report('threadUpdate', { id: after.id, archived: after.archived, locked: after.locked, wasArchived: before.archived ?? null }),
);
client.on('threadMembersUpdate', (added, removed, thread) =>
  report('threadMembersUpdate', { id: thread.id, added: [...added.keys()], removed: [...removed.keys()], memberCount: thread.memberCount }),
);

client.once(
  'clientReady',
  listener(async () => {
    const channel = (await client.channels.fetch(process.env.CHANNEL_ID!)) as TextChannel;
    const thread = await channel.threads.create({ name: 'js thread', type: ChannelType.PublicThread });
    report('created', { id: thread.id, type: thread.type, name: thread.name, parentId: thread.parentId, ownerId: thread.ownerId });
    const starter = await channel.send('start a thread here');
    const fromMessage = await starter.startThread({ name: 'from a message' });
    report('started', { id: fromMessage.id, messageId: starter.id, type: fromMessage.type });
    const sent = await thread.send('hello from discord.js');
    report('sent', { channelId: sent.channelId, content: sent.content });
    await thread.members.add(process.env.MEMBER_ID!);
    const members = await thread.members.fetch();
    report('members', { ids: [...members.keys()].sort() });
    await thread.members.remove(process.env.MEMBER_ID!);
    const locked = await thread.setLocked(true);
    const archived = await locked.setArchived(true);
    report('archived', { archived: archived.archived, locked: archived.locked });
    const active = await channel.guild.channels.fetchActiveThreads();
    const archivedList = await channel.threads.fetchArchived();
    report('lists', { active: [...active.threads.keys()], archived: [...archivedList.threads.keys()], hasMore: archivedList.hasMore });
  }),
);

void run(client);
