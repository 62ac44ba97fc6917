// A guild set up by its owner, and a raid on it by a second account with ADMINISTRATOR, through the real API: what the
// guild history and rollback tests start from.
import { Permission } from '../../domain/permissions.js';
import { type TestServer, type TestUser } from '../support/server.js';
import { type TestGuild, createGuild, grantRole, join, newMember } from './guildSupport.js';

export interface Raided {
  guild: TestGuild;
  raider: TestUser;
  /** Members the raid banned (the first held the moderators' role), kicked (held it, and joined again) and left alone (holds it). */
  banned: TestUser[];
  kicked: TestUser;
  moderator: TestUser;
  modsRoleId: string;
  /** What the raid deleted and created. */
  deletedChannelIds: string[];
  spamChannelIds: string[];
  messageIds: string[];
  inviteCode: string;
  webhookId: string;
  /** A moment between the setup and the raid (ISO 8601). */
  beforeRaid: string;
}

async function ok<T = any>(response: Promise<{ status: number; body: T; text: string }>, what: string): Promise<T> {
  const answer = await response;
  if (answer.status >= 300) throw new Error(`${what}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** Waits for the clock to pass `time` (ms): what happens next is strictly later than it. */
export async function clockPast(time: number): Promise<void> {
  while (Date.now() <= time) await new Promise((resolve) => setImmediate(resolve));
}

/** A guild with a category, a topic, overwrites, a voice channel, a moderators' role and members; then the raid. */
export async function raidedGuild(server: TestServer, spamChannels = 20): Promise<Raided> {
  const guild = await createGuild(server, undefined, 'Raid target');
  const owner = { token: guild.owner.token };
  const raider = await newMember(server, guild);
  // Made first, so that the moderators' role made after it sits below it.
  await grantRole(server, guild, raider, Permission.ADMINISTRATOR, 'helper');
  const [moderator, kicked] = [await newMember(server, guild), await newMember(server, guild)];
  const banned = [
    await newMember(server, guild),
    await newMember(server, guild),
    await newMember(server, guild),
    await newMember(server, guild),
    await newMember(server, guild),
  ];
  const modsRoleId = await grantRole(server, guild, moderator, Permission.MANAGE_MESSAGES | Permission.KICK_MEMBERS, 'mods');
  for (const user of [kicked, banned[0]]) await ok(server.api('PUT', `/guilds/${guild.id}/members/${user.id}/roles/${modsRoleId}`, owner), 'grant');

  const category = await ok(server.api('POST', `/guilds/${guild.id}/channels`, { ...owner, body: { name: 'info', type: 4 } }), 'category');
  const rules = await ok(
    server.api('POST', `/guilds/${guild.id}/channels`, {
      ...owner,
      body: {
        name: 'rules',
        topic: 'Be kind',
        parent_id: category.id,
        permission_overwrites: [
          { id: guild.id, type: 0, deny: Permission.SEND_MESSAGES.toString() },
          { id: modsRoleId, type: 0, allow: Permission.SEND_MESSAGES.toString() },
        ],
      },
    }),
    'rules',
  );
  const chat = await ok(server.api('POST', `/guilds/${guild.id}/channels`, { ...owner, body: { name: 'chat', topic: 'Anything', nsfw: true } }), 'chat');
  const voice = await ok(server.api('POST', `/guilds/${guild.id}/channels`, { ...owner, body: { name: 'Lounge', type: 2, user_limit: 5 } }), 'voice');

  await clockPast(Date.now());
  const beforeRaid = new Date().toISOString();
  await clockPast(Date.parse(beforeRaid));

  const as = { token: raider.token };
  const deletedChannelIds = [rules.id, chat.id, voice.id];
  for (const id of deletedChannelIds) await ok(server.api('DELETE', `/channels/${id}`, as), 'raid: delete channel');
  const spamChannelIds: string[] = [];
  for (let i = 0; i < spamChannels; i++)
    spamChannelIds.push((await ok(server.api('POST', `/guilds/${guild.id}/channels`, { ...as, body: { name: `spam-${i}` } }), 'raid: spam channel')).id);
  for (const user of banned) await ok(server.api('PUT', `/guilds/${guild.id}/bans/${user.id}`, { ...as, body: {} }), 'raid: ban');
  await ok(server.api('DELETE', `/guilds/${guild.id}/members/${kicked.id}`, as), 'raid: kick');
  const everyone = Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.MENTION_EVERYONE | Permission.MANAGE_CHANNELS;
  await ok(server.api('PATCH', `/guilds/${guild.id}/roles/${guild.id}`, { ...as, body: { permissions: everyone.toString() } }), 'raid: @everyone');
  await ok(server.api('DELETE', `/guilds/${guild.id}/roles/${modsRoleId}`, as), 'raid: delete role');
  await ok(server.api('PATCH', `/guilds/${guild.id}`, { ...as, body: { name: 'pwned' } }), 'raid: rename');
  const messageIds: string[] = [];
  for (let i = 0; i < 10; i++)
    messageIds.push((await ok(server.api('POST', `/channels/${guild.channelId}/messages`, { ...as, body: { content: `spam ${i}` } }), 'raid: message')).id);
  const invite = await ok(server.api('POST', `/channels/${guild.channelId}/invites`, { ...as, body: { unique: true } }), 'raid: invite');
  const webhook = await ok(server.api('POST', `/channels/${guild.channelId}/webhooks`, { ...as, body: { name: 'spammer' } }), 'raid: webhook');
  // The kicked member comes back by themselves, without their role.
  await join(server, guild, kicked);
  return {
    guild,
    raider,
    banned,
    kicked,
    moderator,
    modsRoleId,
    deletedChannelIds,
    spamChannelIds,
    messageIds,
    inviteCode: invite.code,
    webhookId: webhook.id,
    beforeRaid,
  };
}

/** A guild's channels, roles and bans as the API answers them now. */
export async function structureNow(server: TestServer, guild: TestGuild) {
  const owner = { token: guild.owner.token };
  const [channels, roles, bans] = await Promise.all([
    ok(server.api('GET', `/guilds/${guild.id}/channels`, owner), 'channels'),
    ok(server.api('GET', `/guilds/${guild.id}/roles`, owner), 'roles'),
    ok(server.api('GET', `/guilds/${guild.id}/bans`, owner), 'bans'),
  ]);
  return { channels, roles, bans };
}

type Entity = { id: string; [key: string]: unknown };
type Overwrite = { id: string; type: number; allow: string; deny: string };

/**
 * Channels and roles compared modulo ids: each object with its ids (own, parent, overwrites') replaced by `idMap`'s
 * (old → new) and then dropped for a name, sorted; fields only some presentations carry are left out.
 */
export function moduloIds(channels: Entity[], roles: Entity[], idMap: Record<string, string> = {}) {
  const current = (id: string | null | undefined) => (id ? (idMap[id] ?? id) : null);
  const roleNames = new Map(roles.map((r) => [current(r.id), r.name as string]));
  const channelNames = new Map(channels.map((c) => [current(c.id), c.name as string]));
  const nameOfRole = (id: string) => roleNames.get(current(id)) ?? id;
  return {
    channels: channels
      .map(({ id: _id, last_message_id: _m, last_pin_timestamp: _p, guild_id: _g, parent_id, permission_overwrites, ...rest }) => ({
        ...rest,
        name: String(rest.name),
        parent: parent_id ? channelNames.get(current(parent_id as string)) : null,
        permission_overwrites: (permission_overwrites as Overwrite[])
          .map((o) => ({ ...o, id: o.type === 0 ? nameOfRole(o.id) : o.id }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    roles: roles.map(({ id, ...rest }) => ({ ...rest, id: nameOfRole(id) })).sort((a, b) => a.id.localeCompare(b.id)),
  };
}
