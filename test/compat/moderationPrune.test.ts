// Compatibility: discord.js 14, unchanged but for the base address, prunes inactive members (a dry run first, with and
// without included roles) and bans users in bulk as a moderator bot would, and reads the prune's audit entry back.
import type { Guild } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { type TestGuild, createGuild, grantRole, join, newMember } from '../http/guildSupport.js';
import { type RestClient, restClient } from '../support/discordjs.js';
import { type TestServer, type TestUser, createBot, registerUser, startTestServer } from '../support/server.js';

const DAY_MS = 24 * 60 * 60 * 1000;

let server: TestServer;
let rest: RestClient;
let testGuild: TestGuild;
let guild: Guild;

beforeAll(async () => {
  server = await startTestServer();
  testGuild = await createGuild(server, undefined, 'Moderated Guild');
  const bot = await join(server, testGuild, await createBot(server), 'Bot');
  await grantRole(server, testGuild, bot, Permission.KICK_MEMBERS | Permission.BAN_MEMBERS | Permission.MANAGE_GUILD | Permission.VIEW_AUDIT_LOG, 'moderators');
  rest = await restClient(server, bot.token);
  guild = await rest.client.guilds.fetch(testGuild.id);
});
afterAll(async () => {
  await rest.close();
  await server.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

// REST only: list() reads GET /guilds/:id/members where fetch() would ask the gateway.
const memberIds = async () => (await guild.members.list({ limit: 1000, cache: false })).map((member) => member.id).sort();

describe('discord.js against the prune and bulk ban routes', () => {
  it('counts with guild.members.prune({ dry: true }), then prunes with guild.members.prune()', async () => {
    const [idle, lurker, active] = await Promise.all([newMember(server, testGuild), newMember(server, testGuild), newMember(server, testGuild)]);
    const lurkerRole = await grantRole(server, testGuild, lurker, 0n, 'lurker');
    vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + 5 * DAY_MS);
    const said = await server.api('POST', `/channels/${testGuild.channelId}/messages`, { token: active.token, body: { content: 'hi' } });
    expect(said.status).toBe(200);
    vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + 10 * DAY_MS);

    expect(await guild.members.prune({ days: 7, dry: true })).toBe(1);
    expect(await guild.members.prune({ days: 7, dry: true, roles: [lurkerRole] })).toBe(2);
    expect(await guild.members.prune({ days: 3, dry: true })).toBe(2);
    const before = await memberIds();

    expect(await guild.members.prune({ days: 7, roles: [lurkerRole], reason: 'tidy up' })).toBe(2);
    expect(await memberIds()).toEqual(before.filter((id) => id !== idle.id && id !== lurker.id));
    const log = await guild.fetchAuditLogs({ type: 21 });
    expect(log.entries.map((entry) => ({ reason: entry.reason, extra: entry.extra }))).toEqual([{ reason: 'tidy up', extra: { removed: 2, days: 7 } }]);
    expect(await guild.members.prune({ days: 7, count: false })).toBeNull();
  });

  it('bans users with guild.bans.bulkCreate(), reporting those it could not ban', async () => {
    const [spammer, other]: TestUser[] = await Promise.all([newMember(server, testGuild), registerUser(server)]);
    const result = await guild.bans.bulkCreate([spammer.id, other.id, testGuild.owner.id], { deleteMessageSeconds: 60, reason: 'raid' });
    expect(result).toEqual({ bannedUsers: [spammer.id, other.id], failedUsers: [testGuild.owner.id] });
    const bans = await guild.bans.fetch({ cache: false });
    expect([...bans.keys()].sort()).toEqual([spammer.id, other.id].sort());
    expect(bans.get(spammer.id)?.reason).toBe('raid');
    const log = await guild.fetchAuditLogs({ type: 22 });
    expect(log.entries.map((entry) => entry.targetId).sort()).toEqual([spammer.id, other.id].sort());
    // All failed: the widely used API's error, which discord.js raises.
    await expect(guild.bans.bulkCreate([spammer.id])).rejects.toMatchObject({ status: 400, code: 'FAILED_TO_BAN_USERS' });
  });
});
