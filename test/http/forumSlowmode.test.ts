// A forum's own rate_limit_per_user spaces out the posts a member opens there, as a channel's spaces out sends: a post
// opened too soon is 429 SLOWMODE_RATE_LIMITED with retry_after, appending nothing; members who manage threads,
// messages or the channel are exempt, webhooks are not held to it, and the post's own slowmode is the thread's.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer } from '../support/server.js';
import { createGuild, expectSlowmodeRefused, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

describe('a forum’s slowmode', () => {
  it('holds back a member’s second post within the window, not moderators’ or a webhook’s', async () => {
    const guild = await createGuild(server);
    const owner = guild.owner.token;
    const body = { name: 'slow', type: 15, rate_limit_per_user: 60, default_thread_rate_limit_per_user: 5 };
    const forum = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: owner, body })).body;
    const post = (token: string, name = 'A post') =>
      server.api('POST', `/channels/${forum.id}/threads`, { token, body: { name, message: { content: 'First' } } });
    const member = await newMember(server, guild);

    const first = await post(member.token);
    expect(first.status).toBe(201);
    // The post takes the forum's default for its own messages, not the forum's rate_limit_per_user.
    expect(first.body.rate_limit_per_user).toBe(5);
    const before = await server.runtime.store.headPosition();
    await expectSlowmodeRefused(server, await post(member.token, 'Too soon'), 60, before);
    // A post refused for anything else does not count: another member's first post passes after a refused one.
    const other = await newMember(server, guild);
    expect((await server.api('POST', `/channels/${forum.id}/threads`, { token: other.token, body: { name: 'x', message: { content: '' } } })).status).toBe(400);
    expect((await post(other.token)).status).toBe(201);
    // The member still talks in their post: its slowmode is the post's own.
    expect((await server.api('POST', `/channels/${first.body.id}/messages`, { token: member.token, body: { content: 'More' } })).status).toBe(429);

    for (const permission of [Permission.MANAGE_THREADS, Permission.MANAGE_MESSAGES, Permission.MANAGE_CHANNELS]) {
      const moderator = await newMember(server, guild);
      await grantRole(server, guild, moderator, permission);
      expect([(await post(moderator.token)).status, (await post(moderator.token)).status]).toEqual([201, 201]);
    }
    const hook = (await server.api('POST', `/channels/${forum.id}/webhooks`, { token: owner, body: { name: 'Hook' } })).body;
    const execute = () => server.api('POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'x', thread_name: 'Hooked' } });
    expect([(await execute()).status, (await execute()).status]).toEqual([204, 204]);
  });
});
