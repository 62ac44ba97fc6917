// Channel flags of forums and their posts, as the widely used API has them: REQUIRE_TAG (16) on a forum or media
// channel (MANAGE_CHANNELS) refuses a post without a tag (40067); PINNED (2) on a post (MANAGE_THREADS), one per forum
// (30047). Over HTTPS and the gateway; refusals append nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { gatewayClients } from '../support/gateway.js';
import { expectNothingAppendedSince, fileServer } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, newMember } from './guildSupport.js';

const server = await fileServer();
const clients = gatewayClients(() => server);
afterAll(() => clients.closeAll());

const REQUIRE_TAG = 1 << 4;
const PINNED = 1 << 1;

async function createForum(guild: TestGuild, type = 15) {
  const body = { name: 'help', type, available_tags: [{ name: 'question' }] };
  return (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body })).body;
}

const post = (token: string, forumId: string, body: object = {}, prefix = '/api/v1') =>
  server.call('POST', `${prefix}/channels/${forumId}/threads`, { token, body: { name: 'A post', message: { content: 'First' }, ...body } });

/** Refused on /api/v10 with the widely used API's number and words, appending nothing. */
async function refusedOnV10(request: () => Promise<{ status: number; body: { code: unknown; message: string } }>) {
  const before = await server.runtime.store.headPosition();
  const response = await request();
  await expectNothingAppendedSince(server, before);
  return { status: response.status, code: response.body.code, message: response.body.message };
}

describe('forum channel flags', () => {
  it('REQUIRE_TAG, set by MANAGE_CHANNELS holders, refuses posts without a tag, from members and webhooks alike', async () => {
    const guild = await createGuild(server);
    const owner = guild.owner.token;
    const alice = await newMember(server, guild);
    const forum = await createForum(guild);
    expect(forum.flags).toBe(0);
    const [question] = forum.available_tags;
    const session = await clients.session(owner, Intent.GUILDS);

    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/channels/${forum.id}`, { token: alice.token, body: { flags: REQUIRE_TAG } }),
      403,
      'MISSING_PERMISSIONS',
    );
    const set = await server.api('PATCH', `/channels/${forum.id}`, { token: owner, body: { flags: REQUIRE_TAG } });
    expect(set.body.flags).toBe(REQUIRE_TAG);
    expect((await session.dispatch('CHANNEL_UPDATE')).d).toMatchObject({ id: forum.id, flags: REQUIRE_TAG });
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=11`, { token: owner });
    expect(audit.body.entries[0].changes).toEqual([{ key: 'flags', new_value: REQUIRE_TAG }]);

    await expectRefusedWithoutEvents(server, () => post(alice.token, forum.id), 400, 'TAG_REQUIRED');
    await expectRefusedWithoutEvents(server, () => post(alice.token, forum.id, { applied_tags: [] }), 400, 'TAG_REQUIRED');
    expect(await refusedOnV10(() => post(alice.token, forum.id, {}, '/api/v10'))).toEqual({
      status: 400,
      code: 40067,
      message: 'A tag is required to create a forum post in this channel',
    });
    expect((await post(alice.token, forum.id, { applied_tags: [question.id] })).status).toBe(201);
    const hook = (await server.api('POST', `/channels/${forum.id}/webhooks`, { token: owner, body: { name: 'Hook' } })).body;
    const execute = (body: object) => () =>
      server.api('POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, { body: { content: 'x', thread_name: 'T', ...body } });
    await expectRefusedWithoutEvents(server, execute({}), 400, 'TAG_REQUIRED');
    expect((await execute({ applied_tags: [question.id] })()).status).toBe(200);

    // Each type carries its own flags: PINNED is a post's, REQUIRE_TAG a forum's, media download options a media channel's.
    const media = await createForum(guild, 16);
    const mediaFlags = REQUIRE_TAG | (1 << 15);
    expect((await server.api('PATCH', `/channels/${media.id}`, { token: owner, body: { flags: mediaFlags } })).body.flags).toBe(mediaFlags);
    for (const [channelId, flags] of [
      [forum.id, PINNED],
      [forum.id, 1 << 15],
      [guild.channelId, REQUIRE_TAG],
    ] as const) {
      const refused = () => server.api('PATCH', `/channels/${channelId}`, { token: owner, body: { flags } });
      await expectRefusedWithoutEvents(server, refused, 400, 'INVALID_FORM_BODY');
      expect((await refused()).body.errors).toEqual([{ path: 'flags', message: expect.stringContaining('Not flags') }]);
    }
    expect((await server.api('PATCH', `/channels/${guild.channelId}`, { token: owner, body: { flags: 0 } })).status).toBe(200);
    // Unsetting it lets posts without tags in again.
    await server.api('PATCH', `/channels/${forum.id}`, { token: owner, body: { flags: 0 } });
    expect((await post(alice.token, forum.id)).status).toBe(201);
  });

  it('PINNED pins one post per forum, by MANAGE_THREADS holders, shown in the post’s flags', async () => {
    const guild = await createGuild(server);
    const owner = guild.owner.token;
    const alice = await newMember(server, guild);
    const forum = await createForum(guild);
    const [first, second, third] = await Promise.all([1, 2, 3].map(async () => (await post(alice.token, forum.id)).body.id as string));
    const session = await clients.session(owner, Intent.GUILDS);
    const pin = (threadId: string, flags = PINNED, token = owner) => server.api('PATCH', `/channels/${threadId}`, { token, body: { flags } });

    // The post's own author may not pin it.
    await expectRefusedWithoutEvents(server, () => pin(first, PINNED, alice.token), 403, 'MISSING_PERMISSIONS');
    const pinned = await pin(first);
    expect(pinned.body).toMatchObject({ id: first, flags: PINNED });
    expect((await session.dispatch('THREAD_UPDATE')).d).toMatchObject({ id: first, flags: PINNED });
    expect((await server.api('GET', `/channels/${first}`, { token: alice.token })).body.flags).toBe(PINNED);
    expect((await pin(first)).status).toBe(200);

    await expectRefusedWithoutEvents(server, () => pin(second), 400, 'MAX_PINNED_THREADS');
    expect(await refusedOnV10(() => server.call('PATCH', `/api/v10/channels/${second}`, { token: owner, body: { flags: PINNED } }))).toEqual({
      status: 400,
      code: 30047,
      message: 'Maximum number of pinned threads in a forum has been reached (1)',
    });
    expect((await pin(first, 0)).body.flags).toBe(0);
    // Two pinnings at once: one passes, the other finds the forum's post pinned.
    const raced = await Promise.all([pin(second), pin(third)]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 400]);
    expectError(
      raced.find((r) => r.status === 400)!,
      400,
      'MAX_PINNED_THREADS',
    );

    // Only posts are pinned, and PINNED is a thread's only flag.
    const plain = (await server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner, body: { name: 'plain', type: 11 } })).body;
    await expectRefusedWithoutEvents(server, () => pin(plain.id), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, () => pin(first, REQUIRE_TAG), 400, 'INVALID_FORM_BODY');
  });
});
