// An unmodified discord.js 14 bot, run as its own process the way bot developers run theirs: only the REST base
// address points at Parley. It reports what it sees as JSON lines on stdout for the compatibility test. Given
// MEMBERS_GUILD_ID, once ready it also fetches that guild's members over the gateway (all; by MEMBERS_QUERY; by the
// comma-separated MEMBERS_USER_IDS; all again) and then sets its presence, reporting each result.
import { ActivityType, Client, Collection, GatewayIntentBits, type GuildMember, type Presence } from 'discord.js';
import { report, run } from './botSide.js';

const client = new Client({
  intents: [
    GatewayIntentBits.Guilds,
    GatewayIntentBits.GuildMessages,
    GatewayIntentBits.MessageContent,
    GatewayIntentBits.GuildMembers,
    GatewayIntentBits.GuildPresences,
  ],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '1' },
});

const presence = (p: Presence) => ({ userId: p.userId, status: p.status, activities: p.activities.map((a) => a.name) });

/** The ids fetched, or the error's name: the test expects one fetch to be refused. */
async function fetched(fetch: () => Promise<Collection<string, GuildMember> | GuildMember>) {
  try {
    const result = await fetch();
    return { ids: (result instanceof Collection ? [...result.keys()] : [result.id]).sort() };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

async function fetchMembers(guildId: string) {
  const members = client.guilds.cache.get(guildId)!.members;
  report('fetchAll', await fetched(() => members.fetch()));
  report('fetchQuery', await fetched(() => members.fetch({ query: process.env.MEMBERS_QUERY!, limit: 5 })));
  report('fetchUsers', await fetched(() => members.fetch({ user: process.env.MEMBERS_USER_IDS!.split(',') })));
  report('fetchAllAgain', await fetched(() => members.fetch()));
  report('presenceSet', presence(client.user!.setPresence({ status: 'idle', activities: [{ name: 'the tests', type: ActivityType.Watching }] })));
}

client.once('clientReady', (ready) => {
  report('ready', {
    userId: ready.user.id,
    guilds: ready.guilds.cache.map((g) => ({
      id: g.id,
      name: g.name,
      channels: g.channels.cache.map((c) => c.id),
      me: g.members.me?.id ?? null,
      presences: g.presences.cache.map(presence),
    })),
  });
  if (process.env.MEMBERS_GUILD_ID) void fetchMembers(process.env.MEMBERS_GUILD_ID);
});
client.on('messageCreate', (message) => {
  report('messageCreate', { id: message.id, content: message.content, authorId: message.author.id, channelId: message.channelId, guildId: message.guildId });
});
client.on('messageUpdate', (_, message) => report('messageUpdate', { id: message.id, content: message.content }));
client.on('messageDelete', (message) => report('messageDelete', { id: message.id }));
client.on('shardResume', () => report('resumed', {}));
client.on('presenceUpdate', (_, updated) => report('presenceUpdate', presence(updated)));
await run(client);
