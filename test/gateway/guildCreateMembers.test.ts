// GUILD_CREATE's members, at IDENTIFY and on joining a guild while connected, as the widely used API sends them:
// without GUILD_PRESENCES only the session's own member and those in voice channels (the member list is what the
// privileged intents guard), with it every member; member_count is the guild's either way, and op 8 gives a
// GUILD_MEMBERS session the rest.
import { describe, expect, it } from 'vitest';
import { type TestGuild, createGuild, join, newMember } from '../http/guildSupport.js';
import { PageVisitor, addBotUser, grantedTokens, registerClient } from '../http/oauth2Support.js';
import { type GatewayClient, fileGateway } from '../support/gateway.js';
import { type TestUser, createBot, registerUser } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_VOICE_STATES = 1 << 7;
const GUILD_PRESENCES = 1 << 8;

const { server, gateway } = await fileGateway();

/** A guild of three: its owner, a member and a bot. */
async function guildOfThree() {
  const guild = await createGuild(server);
  const member = await newMember(server, guild);
  const bot = await join(server, guild, await createBot(server), 'Bot');
  return { guild, member, bot };
}

/** Puts the user in a new voice channel of the guild, through a session of theirs. */
async function inVoice(guild: TestGuild, user: TestUser) {
  const lounge = await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'Lounge', type: 2 } });
  expect(lounge.status).toBe(201);
  const speaker = await gateway.session(user.token, GUILDS);
  speaker.send({ op: 4, d: { guild_id: guild.id, channel_id: lounge.body.id, self_mute: false, self_deaf: false } });
  await speaker.next((p) => p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === user.id && p.d.channel_id === lounge.body.id);
  return lounge.body.id as string;
}

async function guildCreate(client: GatewayClient, guildId: string) {
  const payload = await client.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guildId);
  return { ...payload.d, memberIds: (payload.d.members as { user: { id: string } }[]).map((m) => m.user.id).sort() };
}

describe("GUILD_CREATE's members at IDENTIFY", () => {
  it('lists only the session’s own member without GUILD_PRESENCES, even with GUILD_MEMBERS, and every member with it', async () => {
    const { guild, member, bot } = await guildOfThree();
    for (const intents of [GUILDS, GUILDS | GUILD_MEMBERS]) {
      const own = await guildCreate(await gateway.session(bot.token, intents), guild.id);
      expect(own.memberIds, `intents ${intents}`).toEqual([bot.id]);
      expect(own.member_count).toBe(3);
      expect(own.presences).toEqual([]);
    }
    const every = await guildCreate(await gateway.session(bot.token, GUILDS | GUILD_PRESENCES), guild.id);
    expect(every.memberIds).toEqual([guild.owner.id, member.id, bot.id].sort());
    expect(every.member_count).toBe(3);
  });

  it('lists the members in voice channels beside the session’s own without GUILD_PRESENCES', async () => {
    const { guild, member, bot } = await guildOfThree();
    const lounge = await inVoice(guild, member);

    const create = await guildCreate(await gateway.session(bot.token, GUILDS | GUILD_VOICE_STATES), guild.id);
    expect(create.memberIds).toEqual([member.id, bot.id].sort());
    expect(create.voice_states).toEqual([expect.objectContaining({ user_id: member.id, channel_id: lounge })]);
    expect(create.member_count).toBe(3);
  });

  it('leaves the whole list to op 8 for a GUILD_MEMBERS session without GUILD_PRESENCES', async () => {
    const { guild, member, bot } = await guildOfThree();
    const client = await gateway.session(bot.token, GUILDS | GUILD_MEMBERS);
    await guildCreate(client, guild.id);
    client.send({ op: 8, d: { guild_id: guild.id, query: '', limit: 0, nonce: 'all' } });
    const chunk = await client.next((p) => p.t === 'GUILD_MEMBERS_CHUNK' && p.d.nonce === 'all');
    expect((chunk.d.members as { user: { id: string } }[]).map((m) => m.user.id).sort()).toEqual([guild.owner.id, member.id, bot.id].sort());
  });
});

describe("GUILD_CREATE's members on joining a guild while connected", () => {
  it('lists every member only to the sessions with GUILD_PRESENCES, each session of the user by its own intents', async () => {
    const guild = await createGuild(server);
    const [member, bot] = await Promise.all([newMember(server, guild), createBot(server)]);
    const [plain, withPresences] = await Promise.all([gateway.session(bot.token, GUILDS), gateway.session(bot.token, GUILDS | GUILD_PRESENCES)]);
    await join(server, guild, bot, 'Bot');

    const [own, every] = await Promise.all([guildCreate(plain, guild.id), guildCreate(withPresences, guild.id)]);
    expect(own.memberIds).toEqual([bot.id]);
    expect(own.presences).toEqual([]);
    expect(own.member_count).toBe(3);
    expect(every.memberIds).toEqual([guild.owner.id, member.id, bot.id].sort());
    expect(every.member_count).toBe(3);
  });

  it('lists the members in voice channels beside the session’s own without GUILD_PRESENCES', async () => {
    const guild = await createGuild(server);
    const [member, bot] = await Promise.all([newMember(server, guild), createBot(server)]);
    const lounge = await inVoice(guild, member);
    const client = await gateway.session(bot.token, GUILDS | GUILD_VOICE_STATES);
    await join(server, guild, bot, 'Bot');

    const create = await guildCreate(client, guild.id);
    expect(create.memberIds).toEqual([member.id, bot.id].sort());
    expect(create.voice_states).toEqual([expect.objectContaining({ user_id: member.id, channel_id: lounge })]);
  });

  it('comes once to a user who creates a guild, listing them, with no GUILD_MEMBER_ADD of their own', async () => {
    const owner = await registerUser(server);
    const client = await gateway.session(owner.token, GUILDS | GUILD_MEMBERS);
    const guild = await createGuild(server, owner);
    expect((await guildCreate(client, guild.id)).memberIds).toEqual([owner.id]);
    // A later dispatch of the guild's: what the creation sent has come before it.
    const later = await server.api('POST', `/guilds/${guild.id}/channels`, { token: owner.token, body: { name: 'later' } });
    await client.next((p) => p.t === 'CHANNEL_CREATE' && p.d.id === later.body.id);
    expect(client.received.filter((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id)).toHaveLength(1);
    expect(client.received.filter((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.guild_id === guild.id)).toEqual([]);
  });

  it('comes to a bot its guild’s manager adds through the bot flow, whose GUILD_MEMBER_ADD the guild hears', async () => {
    const guild = await createGuild(server);
    const client = await registerClient(server);
    const bot = await addBotUser(server, client);
    const [plain, withPresences, watcher] = await Promise.all([
      gateway.session(bot.token, GUILDS),
      gateway.session(bot.token, GUILDS | GUILD_PRESENCES),
      gateway.session(guild.owner.token, GUILDS | GUILD_MEMBERS),
    ]);
    const query = new URLSearchParams({ client_id: client.id, scope: 'bot', permissions: '0', guild_id: guild.id }).toString();
    const visitor = new PageVisitor(server);
    await visitor.signIn(query, guild.owner);
    expect((await visitor.post(query, { action: 'authorize' })).status).toBe(200);

    const [own, every] = await Promise.all([guildCreate(plain, guild.id), guildCreate(withPresences, guild.id)]);
    expect(own.memberIds).toEqual([bot.id]);
    expect(every.memberIds).toEqual([guild.owner.id, bot.id].sort());
    await watcher.next((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.guild_id === guild.id && p.d.user.id === bot.id);
  });

  it('comes to a person a bot adds with guilds.join, whose GUILD_MEMBER_ADD the guild hears', async () => {
    const guild = await createGuild(server);
    const client = await registerClient(server);
    const bot = await join(server, guild, await addBotUser(server, client), 'Bot');
    const person = await registerUser(server);
    const [plain, withPresences, watcher] = await Promise.all([
      gateway.session(person.token, GUILDS),
      gateway.session(person.token, GUILDS | GUILD_PRESENCES),
      gateway.session(guild.owner.token, GUILDS | GUILD_MEMBERS),
    ]);
    const tokens = await grantedTokens(server, client, person, 'guilds.join');
    const added = await server.api('PUT', `/guilds/${guild.id}/members/${person.id}`, {
      token: bot.token,
      scheme: 'Bot',
      body: { access_token: tokens.access_token },
    });
    expect(added.status).toBe(201);

    const [own, every] = await Promise.all([guildCreate(plain, guild.id), guildCreate(withPresences, guild.id)]);
    expect(own.memberIds).toEqual([person.id]);
    expect(every.memberIds).toEqual([guild.owner.id, bot.id, person.id].sort());
    await watcher.next((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.guild_id === guild.id && p.d.user.id === person.id);
  });
});
