// Op 8 REQUEST_GUILD_MEMBERS: the request's parsing and the chunking as pure functions, then the answers over the
// wire with a raw client — by query, by ids, the whole list — gated by intents and membership, and rate limited.
import { describe, expect, it } from 'vitest';
import { parseJsonKeepingIds } from '../../domain/snowflake.js';
import { CHUNK_SIZE, FULL_LIST_INTERVAL_MS, MemberListLimiter, memberChunks, parseMemberRequest } from '../../gateway/memberChunks.js';
import { presenceObject } from '../../gateway/presence.js';
import { memberObject } from '../../presenters/members.js';
import type { UserDoc } from '../../projections/users.js';
import { createGuild, join } from '../http/guildSupport.js';
import { type GatewayClient, fileGateway } from '../support/gateway.js';
import { createBot, registerUser, uniqueName } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_PRESENCES = 1 << 8;

const member = (id: string) =>
  memberObject({ user_id: id, nick: null, roles: [], joined_at: '2026-01-01T00:00:00.000Z', deaf: false, mute: false, temporary: false }, {
    _id: id,
    username: `user${id}`,
    discriminator: '0',
    avatar: null,
    bot: false,
    system: false,
    public_flags: 0,
  } as UserDoc);
const members = (count: number) => Array.from({ length: count }, (_, i) => member(String(1000 + i)));

describe('chunking an answer', () => {
  it('given 2500 members, when chunked, then three chunks of 1000, 1000 and 500, each numbered and with the nonce', () => {
    const chunks = memberChunks('7', members(2500), { nonce: 'n1' });
    expect(CHUNK_SIZE).toBe(1000);
    expect(chunks.map((c) => c.members.length)).toEqual([1000, 1000, 500]);
    expect(chunks.map((c) => [c.chunk_index, c.chunk_count, c.guild_id, c.nonce])).toEqual([
      [0, 3, '7', 'n1'],
      [1, 3, '7', 'n1'],
      [2, 3, '7', 'n1'],
    ]);
    expect(chunks.flatMap((c) => c.members.map((m) => m.user.id))).toEqual(members(2500).map((m) => m.user.id));
  });

  it('given exactly 1000 members, when chunked, then one chunk', () => {
    expect(memberChunks('7', members(1000)).map((c) => [c.members.length, c.chunk_count])).toEqual([[1000, 1]]);
  });

  it('given no members, when chunked, then still one (empty) chunk, so the client knows the answer is complete', () => {
    expect(memberChunks('7', [], { notFound: ['9'] })).toEqual([{ guild_id: '7', members: [], chunk_index: 0, chunk_count: 1, not_found: ['9'] }]);
  });

  it('given presences asked for, when chunked, then each chunk carries the presences of its own members only', () => {
    const asked: string[][] = [];
    const chunks = memberChunks('7', members(3), {
      size: 2,
      presences: (ids) => (asked.push(ids), ids.map((id) => presenceObject(id, { status: 'online', activities: [] }))),
    });
    expect(asked).toEqual([['1000', '1001'], ['1002']]);
    expect(chunks.map((c) => c.presences?.map((p) => p.user.id))).toEqual([['1000', '1001'], ['1002']]);
  });

  it('given no nonce, presences or ids asked for, when chunked, then the chunk has no such fields', () => {
    expect(Object.keys(memberChunks('7', members(1))[0]).sort()).toEqual(['chunk_count', 'chunk_index', 'guild_id', 'members']);
  });
});

describe('reading op 8', () => {
  it('reads what discord.js sends: string ids, query and limit, nonce', () => {
    expect(parseMemberRequest({ guild_id: '41771983444115456', query: 'ab', limit: 5, nonce: 'x' })).toEqual({
      guildId: '41771983444115456',
      userIds: null,
      query: 'ab',
      limit: 5,
      presences: false,
      nonce: 'x',
    });
    expect(parseMemberRequest({ guild_id: '1', user_ids: ['2', '3', '2'], limit: 0 })).toMatchObject({ userIds: ['2', '3'] });
    expect(parseMemberRequest({ guild_id: '1', user_ids: '2' })).toMatchObject({ userIds: ['2'] });
  });

  it('reads what discord.py sends: integer ids, which must not lose their digits', () => {
    const frame = '{"op": 8, "d": {"guild_id": 1420070400000000123, "presences": false, "limit": 0, "user_ids": [1420070400000000124, 7]}}';
    const payload = parseJsonKeepingIds(frame) as { d: unknown };
    expect(parseMemberRequest(payload.d)).toMatchObject({ guildId: '1420070400000000123', userIds: ['1420070400000000124', '7'] });
  });

  it('keeps digits inside strings, and small numbers as numbers', () => {
    expect(parseJsonKeepingIds('{"query": "1234567890123456789", "a": [12, -3.5e2], "s": "\\"12345678901234567"}')).toEqual({
      query: '1234567890123456789',
      a: [12, -350],
      s: '"12345678901234567',
    });
  });

  it('ignores a nonce longer than 32 bytes, as the widely used API does', () => {
    expect(parseMemberRequest({ guild_id: '1', query: '', limit: 0, nonce: 'é'.repeat(17) })).not.toHaveProperty('nonce');
    expect(parseMemberRequest({ guild_id: '1', query: '', limit: 0, nonce: 'n'.repeat(32) })).toHaveProperty('nonce', 'n'.repeat(32));
  });

  it('refuses what is not a request: no guild, several guilds, neither query nor ids, over 100 ids, bad types', () => {
    for (const d of [
      null,
      {},
      { guild_id: ['1', '2'], query: '', limit: 0 },
      { guild_id: '1', limit: 0 },
      { guild_id: '1', user_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) },
      { guild_id: '1', user_ids: ['x'] },
      { guild_id: 'abc', query: '', limit: 0 },
      { guild_id: '1', query: 3, limit: 0 },
      { guild_id: '1', query: '', limit: -1 },
      { guild_id: '1', query: '', limit: 0, presences: 'yes' },
    ]) {
      expect(parseMemberRequest(d), JSON.stringify(d)).toBeNull();
    }
  });

  it('lets a user ask for the whole member list of a guild once per 30 s', () => {
    const limiter = new MemberListLimiter();
    expect(limiter.wait('u', 'g', 0)).toBe(0);
    expect(limiter.wait('u', 'g', 10_000)).toBe(FULL_LIST_INTERVAL_MS - 10_000);
    expect(limiter.wait('u', 'other', 10_000)).toBe(0);
    expect(limiter.wait('v', 'g', 10_000)).toBe(0);
    expect(limiter.wait('u', 'g', FULL_LIST_INTERVAL_MS)).toBe(0);
  });
});

const { server, gateway } = await fileGateway();
const session = gateway.session;
const guild = await createGuild(server);
const ab1 = await join(server, guild, await registerUser(server, uniqueName('abx')));
const ab2 = await join(server, guild, await registerUser(server, uniqueName('ABy')));
const cd = await join(server, guild, await registerUser(server, uniqueName('cd')));
const bot = await createBot(server);
await join(server, guild, bot, 'Bot');

const chunk = (client: GatewayClient, nonce: string) => client.next((p) => p.t === 'GUILD_MEMBERS_CHUNK' && p.d.nonce === nonce);
const ids = (payload: { d: { members: { user: { id: string } }[] } }) => payload.d.members.map((m) => m.user.id).sort();

describe('REQUEST_GUILD_MEMBERS over the wire', () => {
  it('answers a request for every member with one chunk of all of them, with the nonce', async () => {
    const client = await session(bot.token, GUILDS | GUILD_MEMBERS);
    client.send({ op: 8, d: { guild_id: guild.id, query: '', limit: 0, nonce: 'all' } });
    const answer = await chunk(client, 'all');
    expect(ids(answer)).toEqual([guild.owner.id, ab1.id, ab2.id, cd.id, bot.id].sort());
    expect(answer.d).toMatchObject({ guild_id: guild.id, chunk_index: 0, chunk_count: 1 });
    expect(answer.d.members[0]).toMatchObject({ user: { id: expect.any(String), username: expect.any(String) }, roles: [], joined_at: expect.any(String) });
    expect(answer.d).not.toHaveProperty('presences');
  });

  it('answers a query with the members whose username starts with it, in any case, up to the limit', async () => {
    const client = await session(bot.token, GUILDS);
    client.send({ op: 8, d: { guild_id: guild.id, query: 'aB', limit: 5, nonce: 'ab' } });
    expect(ids(await chunk(client, 'ab'))).toEqual([ab1.id, ab2.id].sort());
    client.send({ op: 8, d: { guild_id: guild.id, query: 'ab', limit: 1, nonce: 'ab1' } });
    expect((await chunk(client, 'ab1')).d.members).toHaveLength(1);
  });

  it('matches nicknames too', async () => {
    const nick = await server.api('PATCH', `/guilds/${guild.id}/members/${cd.id}`, { token: guild.owner.token, body: { nick: 'Zed' } });
    expect(nick.status).toBe(200);
    const client = await session(bot.token, GUILDS);
    client.send({ op: 8, d: { guild_id: guild.id, query: 'ze', limit: 0, nonce: 'nick' } });
    expect(ids(await chunk(client, 'nick'))).toEqual([cd.id]);
  });

  it('answers a request by ids, without GUILD_MEMBERS, with the members and the ids that are not members', async () => {
    const stranger = await registerUser(server);
    const client = await session(bot.token, GUILDS);
    client.send({ op: 8, d: { guild_id: guild.id, user_ids: [ab1.id, stranger.id], nonce: 'ids' } });
    const answer = await chunk(client, 'ids');
    expect(ids(answer)).toEqual([ab1.id]);
    expect(answer.d.not_found).toEqual([stranger.id]);
  });

  it('reads snowflakes sent as JSON integers, as discord.py sends them', async () => {
    const client = await session(bot.token, GUILDS);
    client.sendRaw(`{"op": 8, "d": {"guild_id": ${guild.id}, "presences": false, "limit": 0, "user_ids": [${cd.id}], "nonce": "py"}}`);
    expect(ids(await chunk(client, 'py'))).toEqual([cd.id]);
  });

  it('does not answer for the whole list without GUILD_MEMBERS, nor for a guild the user is not in', async () => {
    const other = await createGuild(server);
    const client = await session(bot.token, GUILDS);
    client.send({ op: 8, d: { guild_id: guild.id, query: '', limit: 0, nonce: 'no-intent' } });
    client.send({ op: 8, d: { guild_id: other.id, user_ids: [other.owner.id], nonce: 'not-in' } });
    // Requests are answered in order: once a later one is, the earlier ones had their chance.
    client.send({ op: 8, d: { guild_id: guild.id, user_ids: [cd.id], nonce: 'after' } });
    await chunk(client, 'after');
    expect(client.received.filter((p) => p.t === 'GUILD_MEMBERS_CHUNK').map((p) => p.d.nonce)).toEqual(['after']);
  });

  it('answers a second request for every member within 30 s with RATE_LIMITED', async () => {
    const rateGuild = await createGuild(server);
    await join(server, rateGuild, bot, 'Bot');
    const client = await session(bot.token, GUILDS | GUILD_MEMBERS);
    client.send({ op: 8, d: { guild_id: rateGuild.id, query: '', limit: 0, nonce: 'first' } });
    await chunk(client, 'first');
    client.send({ op: 8, d: { guild_id: rateGuild.id, query: '', limit: 0, nonce: 'second' } });
    const limited = await client.dispatch('RATE_LIMITED');
    expect(limited.d).toEqual({ opcode: 8, retry_after: expect.any(Number), meta: { guild_id: rateGuild.id, nonce: 'second' } });
    expect(limited.d.retry_after).toBeGreaterThan(0);
    expect(limited.d.retry_after).toBeLessThanOrEqual(30);
    // Queries are not the whole list: they are still answered.
    client.send({ op: 8, d: { guild_id: rateGuild.id, query: 'x', limit: 1, nonce: 'query' } });
    await chunk(client, 'query');
  });

  it('gives presences only when asked and with GUILD_PRESENCES', async () => {
    const watcher = await session(bot.token, GUILDS | GUILD_PRESENCES);
    const online = await session(ab1.token, 0);
    online.send({ op: 3, d: { since: null, activities: [{ name: 'chess', type: 0 }], status: 'dnd', afk: false } });
    await watcher.next((p) => p.t === 'PRESENCE_UPDATE' && p.d.user.id === ab1.id && p.d.status === 'dnd');
    watcher.send({ op: 8, d: { guild_id: guild.id, user_ids: [ab1.id, cd.id], presences: true, nonce: 'p' } });
    const answer = await chunk(watcher, 'p');
    expect(answer.d.presences).toEqual([
      { user: { id: ab1.id }, status: 'dnd', activities: [{ name: 'chess', type: 0, created_at: expect.any(Number) }], client_status: { web: 'dnd' } },
    ]);

    const without = await session(bot.token, GUILDS);
    without.send({ op: 8, d: { guild_id: guild.id, user_ids: [ab1.id], presences: true, nonce: 'np' } });
    expect(await chunk(without, 'np')).not.toHaveProperty('d.presences');
  });

  it('closes with 4001 on an invalid request, as the widely used API does for an invalid payload', async () => {
    const client = await session(bot.token, GUILDS);
    client.send({ op: 8, d: { guild_id: guild.id, limit: 'all' } });
    expect((await client.closed).code).toBe(4001);
  });
});
