// A moderator's first day with the moderation tools, walked end to end through the real HTTPS API as a new guild's moderator would: a timeout the
// member cannot send through, a 10-second slowmode a second send hits, a prune of inactive members with one audit
// entry, a bulk ban of three accounts, and a keyword rule that blocks a send with its custom message, posts an alert
// and times the author out; then every step is read back from the audit log. Inactivity is made by moving the
// service's clock forward, as test/http/prune.test.ts does.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { type TestUser, fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();
afterAll(() => vi.restoreAllMocks());

const DAY_MS = 24 * 60 * 60 * 1000;
const MODERATOR = Permission.MODERATE_MEMBERS | Permission.MANAGE_CHANNELS | Permission.KICK_MEMBERS | Permission.BAN_MEMBERS | Permission.MANAGE_GUILD;

describe('a moderator’s day (issue #33, done when)', () => {
  it('times out, slows down, prunes, bulk-bans and auto-moderates, each step in the audit log', async () => {
    const guild = await createGuild(server);
    const mod = await newMember(server, guild);
    await grantRole(server, guild, mod, MODERATOR, 'moderators');
    const [timedOut, chatty, idle, lurker] = [
      await newMember(server, guild),
      await newMember(server, guild),
      await newMember(server, guild),
      await newMember(server, guild),
    ];
    const as = (user: TestUser) => ({ token: user.token, headers: { 'X-Audit-Log-Reason': 'moderation walk-through' } });
    const send = (user: TestUser, content: string) => server.api('POST', `/channels/${guild.channelId}/messages`, { token: user.token, body: { content } });

    // 1. A timeout: the member can no longer send.
    const until = new Date(Date.now() + 10 * 60_000).toISOString();
    const timeout = await server.api('PATCH', `/guilds/${guild.id}/members/${timedOut.id}`, {
      ...as(mod),
      body: { communication_disabled_until: until },
    });
    expect(timeout.status, timeout.text).toBe(200);
    expectError(await send(timedOut, 'let me talk'), 403, 'MISSING_ACCESS');

    // 2. A 10-second slowmode: a member's second send within it is held back.
    const slowed = await server.api('PATCH', `/channels/${guild.channelId}`, { ...as(mod), body: { rate_limit_per_user: 10 } });
    expect(slowed.body.rate_limit_per_user).toBe(10);
    expect((await send(chatty, 'first')).status).toBe(200);
    const second = await send(chatty, 'second');
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ code: 'SLOWMODE_RATE_LIMITED', retry_after: expect.any(Number) });

    // 3. A week and a day on, the members who spoke since stay; the two who never did are pruned, in one audit entry.
    vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + 8 * DAY_MS);
    const over = await send(timedOut, 'my timeout is over');
    expect(over.status, over.text).toBe(200);
    expect((await send(chatty, 'still here')).status).toBe(200);
    const pruned = await server.api('POST', `/guilds/${guild.id}/prune`, { ...as(mod), body: { days: 7 } });
    expect(pruned.body).toEqual({ pruned: 2 });
    const members = await server.api('GET', `/guilds/${guild.id}/members?limit=100`, { token: mod.token });
    const left = members.body.map((m: { user: { id: string } }) => m.user.id);
    expect(left.sort()).toEqual([guild.owner.id, mod.id, timedOut.id, chatty.id].sort());
    expect(left).not.toContain(idle.id);
    expect(left).not.toContain(lurker.id);

    // 4. Three spam accounts, banned at once.
    const spammers = [await newMember(server, guild), await newMember(server, guild), await registerUser(server)];
    const banned = await server.api('POST', `/guilds/${guild.id}/bulk-ban`, {
      ...as(mod),
      body: { user_ids: spammers.map((s) => s.id), delete_message_seconds: 0 },
    });
    expect(banned.status, banned.text).toBe(200);
    expect(banned.body).toEqual({ banned_users: spammers.map((s) => s.id), failed_users: [] });

    // 5. A keyword rule that blocks with a custom message, alerts the moderators' channel and times the author out.
    const alerts = await server.api('POST', `/guilds/${guild.id}/channels`, { token: mod.token, body: { name: 'mod-alerts' } });
    const rule = await server.api('POST', `/guilds/${guild.id}/auto-moderation/rules`, {
      ...as(mod),
      body: {
        name: 'No scams',
        event_type: 1,
        trigger_type: 1,
        trigger_metadata: { keyword_filter: ['free nitro'] },
        actions: [
          { type: 1, metadata: { custom_message: 'Scam links are not allowed here' } },
          { type: 2, metadata: { channel_id: alerts.body.id } },
          { type: 3, metadata: { duration_seconds: 300 } },
        ],
        enabled: true,
      },
    });
    expect(rule.status, rule.text).toBe(200);
    const newcomer = await newMember(server, guild);
    const blocked = await send(newcomer, 'FREE NITRO for everyone');
    expectError(blocked, 400, 'AUTOMOD_BLOCKED');
    expect(blocked.body.message).toBe('Message was blocked by automatic moderation: Scam links are not allowed here');
    const alert = (await server.api('GET', `/channels/${alerts.body.id}/messages`, { token: mod.token })).body[0];
    expect(alert).toMatchObject({ type: 24, author: { id: newcomer.id } });
    expect(alert.embeds[0]).toMatchObject({ type: 'auto_moderation_message', description: 'FREE NITRO for everyone' });
    const member = await server.api('GET', `/guilds/${guild.id}/members/${newcomer.id}`, { token: mod.token });
    expect(Date.parse(member.body.communication_disabled_until)).toBe(server.runtime.clock.now() + 300_000);
    expectError(await send(newcomer, 'hello?'), 403, 'MISSING_ACCESS');
    const channel = (await server.api('GET', `/channels/${guild.channelId}/messages?limit=50`, { token: mod.token })).body;
    expect(channel.some((m: { content: string }) => m.content.includes('NITRO'))).toBe(false);

    // Every step, in the audit log: who did what to whom.
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs?limit=100`, { token: guild.owner.token });
    const entries: { action_type: number; user_id: string | null; target_id: string | null; changes?: { key: string }[]; options?: object }[] =
      audit.body.audit_log_entries;
    const entry = (action: number, targetId: string | null) => entries.filter((e) => e.action_type === action && e.target_id === targetId);
    expect(entry(24, timedOut.id)).toEqual([
      expect.objectContaining({ user_id: mod.id, changes: [expect.objectContaining({ key: 'communication_disabled_until' })] }),
    ]);
    expect(entry(11, guild.channelId)).toEqual([
      expect.objectContaining({ user_id: mod.id, changes: [expect.objectContaining({ key: 'rate_limit_per_user', new_value: 10 })] }),
    ]);
    expect(entries.filter((e) => e.action_type === 21)).toEqual([
      expect.objectContaining({ user_id: mod.id, options: { delete_member_days: '7', members_removed: '2' } }),
    ]);
    for (const spammer of spammers) expect(entry(22, spammer.id)).toEqual([expect.objectContaining({ user_id: mod.id })]);
    expect(entry(140, rule.body.id)).toEqual([expect.objectContaining({ user_id: mod.id })]);
    for (const action of [143, 144, 145]) {
      expect(entry(action, newcomer.id)).toEqual([
        expect.objectContaining({ user_id: newcomer.id, options: expect.objectContaining({ auto_moderation_rule_name: 'No scams' }) }),
      ]);
    }
  });
});
