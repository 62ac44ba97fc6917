// Numeric edge values through the real HTTPS API: bitfields, limits, snowflakes beyond 64 bits, huge integers and
// timestamps JavaScript cannot hold each answer 400 INVALID_FORM_BODY naming the field, append nothing, and leave the
// channel working; well-formed values at the edges are still taken.
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, Permission } from '../../domain/permissions.js';
import { type JSONSchema, parseBody, snowflakeSchema, timestampSchema } from '../../http/validation.js';
import { type CallOptions, type TestUser, fileServer, expectNothingAppendedSince } from '../support/server.js';
import { type TestGuild, createGuild, newMember } from './guildSupport.js';

const server = await fileServer();

const MAX_U64 = '18446744073709551615';
/** One past 2^64 - 1, a 20-digit value the old pattern took, and one of 30 digits. */
const BEYOND_U64 = ['18446744073709551616', '99999999999999999999', '123456789012345678901234567890'];
const BAD_BITFIELDS: unknown[] = ['1e21', 1e21, -1, '-1', 'abc', '7'.repeat(70), '18446744073709551616', 1.5, 2 ** 60];
const BAD_LIMITS = ['1e309', '-1', 'abc', '1e21', '0'];
const LEAP_SECOND = '2016-12-31T23:59:60Z';
const S30 = BEYOND_U64[2];

interface Fixture {
  guild: TestGuild;
  owner: TestUser;
  member: TestUser;
  channelId: string;
  messageId: string;
  roleId: string;
  webhookId: string;
  webhookToken: string;
}
let f: Fixture;

beforeAll(async () => {
  const guild = await createGuild(server);
  const owner = guild.owner;
  const member = await newMember(server, guild);
  const message = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: owner.token, body: { content: 'hello' } });
  const role = await server.api('POST', `/guilds/${guild.id}/roles`, { token: owner.token, body: { name: 'crew' } });
  const webhook = await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: owner.token, body: { name: 'hook' } });
  expect([message.status, role.status, webhook.status]).toEqual([200, 200, 200]);
  f = {
    guild,
    owner,
    member,
    channelId: guild.channelId,
    messageId: message.body.id,
    roleId: role.body.id,
    webhookId: webhook.body.id,
    webhookToken: webhook.body.token,
  };
});

type Call = [method: string, path: string, options?: CallOptions];
interface Case {
  name: string;
  call: () => Call;
  /** The path INVALID_FORM_BODY must name. */
  field: string;
}

const query = (values: Record<string, string>) => `?${new URLSearchParams(values)}`;
const owner = (method: string, path: string, body?: unknown): Call => [method, path, { token: f.owner.token, body }];

const bitfieldCases: Case[] = BAD_BITFIELDS.flatMap((value) => [
  {
    name: `role create permissions ${value}`,
    call: () => owner('POST', `/guilds/${f.guild.id}/roles`, { name: 'r', permissions: value }),
    field: 'permissions',
  },
  {
    name: `role update permissions ${value}`,
    call: () => owner('PATCH', `/guilds/${f.guild.id}/roles/${f.roleId}`, { permissions: value }),
    field: 'permissions',
  },
  { name: `overwrite allow ${value}`, call: () => owner('PUT', `/channels/${f.channelId}/permissions/${f.roleId}`, { type: 0, allow: value }), field: 'allow' },
  { name: `overwrite deny ${value}`, call: () => owner('PUT', `/channels/${f.channelId}/permissions/${f.roleId}`, { type: 0, deny: value }), field: 'deny' },
  {
    name: `channel create overwrites ${value}`,
    call: () => owner('POST', `/guilds/${f.guild.id}/channels`, { name: 'c', permission_overwrites: [{ id: f.roleId, type: 0, allow: value }] }),
    field: 'permission_overwrites.0.allow',
  },
  {
    name: `channel update overwrites ${value}`,
    call: () => owner('PATCH', `/channels/${f.channelId}`, { permission_overwrites: [{ id: f.roleId, type: 0, deny: value }] }),
    field: 'permission_overwrites.0.deny',
  },
]);

/** Every list that takes `limit`. */
const lists: { name: string; path: () => string }[] = [
  { name: 'messages', path: () => `/channels/${f.channelId}/messages` },
  { name: 'members', path: () => `/guilds/${f.guild.id}/members` },
  { name: 'bans', path: () => `/guilds/${f.guild.id}/bans` },
  { name: 'pins', path: () => `/channels/${f.channelId}/messages/pins` },
  { name: 'reactions', path: () => `/channels/${f.channelId}/messages/${f.messageId}/reactions/${encodeURIComponent('👍')}` },
  { name: 'audit log', path: () => `/guilds/${f.guild.id}/audit-logs` },
  { name: 'own guilds', path: () => '/users/@me/guilds' },
  { name: 'webhook interactions', path: () => `/webhooks/${f.webhookId}/interactions` },
];
const limitCases: Case[] = lists.flatMap((list) =>
  BAD_LIMITS.map((limit) => ({ name: `${list.name} limit=${limit}`, call: () => owner('GET', `${list.path()}${query({ limit })}`), field: 'limit' })),
);

const pathCases: Case[] = [
  { name: 'channel', call: () => owner('GET', `/channels/${S30}`), field: 'channelId' },
  { name: 'channel messages', call: () => owner('GET', `/channels/${S30}/messages`), field: 'channelId' },
  { name: 'guild', call: () => owner('GET', `/guilds/${S30}`), field: 'guildId' },
  { name: 'user', call: () => owner('GET', `/users/${S30}`), field: 'userId' },
  { name: 'member', call: () => owner('GET', `/guilds/${f.guild.id}/members/${S30}`), field: 'userId' },
  { name: 'member update', call: () => owner('PATCH', `/guilds/${f.guild.id}/members/${S30}`, { nick: 'x' }), field: 'userId' },
  { name: 'member role', call: () => owner('PUT', `/guilds/${f.guild.id}/members/${f.member.id}/roles/${S30}`), field: 'roleId' },
  { name: 'ban', call: () => owner('PUT', `/guilds/${f.guild.id}/bans/${S30}`, {}), field: 'userId' },
  { name: 'message', call: () => owner('GET', `/channels/${f.channelId}/messages/${S30}`), field: 'messageId' },
  { name: 'role', call: () => owner('PATCH', `/guilds/${f.guild.id}/roles/${S30}`, { name: 'x' }), field: 'roleId' },
  { name: 'overwrite', call: () => owner('PUT', `/channels/${f.channelId}/permissions/${S30}`, { type: 0 }), field: 'overwriteId' },
  { name: 'webhook', call: () => owner('GET', `/webhooks/${S30}`), field: 'webhookId' },
  { name: 'webhook token', call: () => ['POST', `/webhooks/${S30}/${f.webhookToken}`, { body: { content: 'x' } }], field: 'webhookId' },
  { name: 'application', call: () => owner('GET', `/applications/${S30}`), field: 'id' },
  { name: 'pack invites', call: () => owner('GET', `/packs/${S30}/invites`), field: 'packId' },
  { name: 'dm recipient', call: () => owner('PUT', `/channels/${f.channelId}/recipients/${S30}`), field: 'userId' },
];

const queryCases: Case[] = [
  ...['before', 'after', 'around'].map((key) => ({
    name: `messages ${key}`,
    call: () => owner('GET', `/channels/${f.channelId}/messages${query({ [key]: S30 })}`),
    field: key,
  })),
  { name: 'members after', call: () => owner('GET', `/guilds/${f.guild.id}/members${query({ after: S30 })}`), field: 'after' },
  ...['before', 'after'].map((key) => ({ name: `bans ${key}`, call: () => owner('GET', `/guilds/${f.guild.id}/bans${query({ [key]: S30 })}`), field: key })),
  ...['before', 'after', 'user_id'].map((key) => ({
    name: `audit log ${key}`,
    call: () => owner('GET', `/guilds/${f.guild.id}/audit-logs${query({ [key]: S30 })}`),
    field: key,
  })),
  { name: 'audit log action_type', call: () => owner('GET', `/guilds/${f.guild.id}/audit-logs${query({ action_type: '1e21' })}`), field: 'action_type' },
  ...['before', 'after'].map((key) => ({ name: `own guilds ${key}`, call: () => owner('GET', `/users/@me/guilds${query({ [key]: S30 })}`), field: key })),
  {
    name: 'reactions after',
    call: () => owner('GET', `/channels/${f.channelId}/messages/${f.messageId}/reactions/${encodeURIComponent('👍')}${query({ after: S30 })}`),
    field: 'after',
  },
  { name: 'webhook interactions before', call: () => owner('GET', `/webhooks/${f.webhookId}/interactions${query({ before: S30 })}`), field: 'before' },
  {
    name: 'execute thread_id',
    call: () => ['POST', `/webhooks/${f.webhookId}/${f.webhookToken}${query({ thread_id: S30 })}`, { body: { content: 'x' } }],
    field: 'thread_id',
  },
  { name: 'pins before a leap second', call: () => owner('GET', `/channels/${f.channelId}/messages/pins${query({ before: LEAP_SECOND })}`), field: 'before' },
];

const send = (body: Record<string, unknown>) => owner('POST', `/channels/${f.channelId}/messages`, { content: 'x', ...body });
const bodySnowflakeCases: Case[] = [
  { name: 'reply message_id', call: () => send({ message_reference: { message_id: S30 } }), field: 'message_reference.message_id' },
  { name: 'allowed_mentions users', call: () => send({ allowed_mentions: { users: [S30] } }), field: 'allowed_mentions.users.0' },
  { name: 'attachment id string', call: () => send({ attachments: [{ id: S30 }] }), field: 'attachments.0.id' },
  { name: 'attachment id number', call: () => send({ attachments: [{ id: 1e21 }] }), field: 'attachments.0.id' },
  { name: 'bulk delete', call: () => owner('POST', `/channels/${f.channelId}/messages/bulk-delete`, { messages: [f.messageId, S30] }), field: 'messages.1' },
  { name: 'member roles', call: () => owner('PATCH', `/guilds/${f.guild.id}/members/${f.member.id}`, { roles: [S30] }), field: 'roles.0' },
  { name: 'channel parent_id', call: () => owner('POST', `/guilds/${f.guild.id}/channels`, { name: 'c', parent_id: S30 }), field: 'parent_id' },
  {
    name: 'overwrite target',
    call: () => owner('PATCH', `/channels/${f.channelId}`, { permission_overwrites: [{ id: S30, type: 0 }] }),
    field: 'permission_overwrites.0.id',
  },
  { name: 'overwrite id in body', call: () => owner('PUT', `/channels/${f.channelId}/permissions/${f.roleId}`, { id: S30, type: 0 }), field: 'id' },
  { name: 'channel move', call: () => owner('PATCH', `/guilds/${f.guild.id}/channels`, [{ id: S30, position: 1 }]), field: '0.id' },
  { name: 'channel move parent', call: () => owner('PATCH', `/guilds/${f.guild.id}/channels`, [{ id: f.channelId, parent_id: S30 }]), field: '0.parent_id' },
  { name: 'role move', call: () => owner('PATCH', `/guilds/${f.guild.id}/roles`, [{ id: S30, position: 1 }]), field: '0.id' },
  { name: 'guild owner_id', call: () => owner('PATCH', `/guilds/${f.guild.id}`, { owner_id: S30 }), field: 'owner_id' },
  { name: 'guild afk_channel_id', call: () => owner('PATCH', `/guilds/${f.guild.id}`, { afk_channel_id: S30 }), field: 'afk_channel_id' },
  { name: 'guild invite channel_id', call: () => owner('POST', `/guilds/${f.guild.id}/invites`, { channel_id: S30 }), field: 'channel_id' },
  { name: 'dm recipient_id', call: () => owner('POST', '/users/@me/channels', { recipient_id: S30 }), field: 'recipient_id' },
  { name: 'webhook channel_id', call: () => owner('PATCH', `/webhooks/${f.webhookId}`, { channel_id: S30 }), field: 'channel_id' },
  {
    name: 'click channel_id',
    call: () => owner('POST', '/interactions/click', { channel_id: S30, message_id: f.messageId, custom_id: 'x' }),
    field: 'channel_id',
  },
];

const HUGE = 1e21;
const bodyNumberCases: Case[] = [
  { name: 'message flags', call: () => send({ flags: HUGE }), field: 'flags' },
  { name: 'edit flags', call: () => owner('PATCH', `/channels/${f.channelId}/messages/${f.messageId}`, { flags: HUGE }), field: 'flags' },
  {
    name: 'webhook execute flags',
    call: () => ['POST', `/webhooks/${f.webhookId}/${f.webhookToken}`, { body: { content: 'x', flags: HUGE } }],
    field: 'flags',
  },
  { name: 'embed color', call: () => send({ embeds: [{ title: 't', color: HUGE }] }), field: 'embeds.0.color' },
  { name: 'embed leap second', call: () => send({ embeds: [{ title: 't', timestamp: LEAP_SECOND }] }), field: 'embeds.0.timestamp' },
  { name: 'role color', call: () => owner('POST', `/guilds/${f.guild.id}/roles`, { name: 'r', color: HUGE }), field: 'color' },
  {
    name: 'role colors',
    call: () => owner('PATCH', `/guilds/${f.guild.id}/roles/${f.roleId}`, { colors: { primary_color: HUGE } }),
    field: 'colors.primary_color',
  },
  { name: 'role position', call: () => owner('PATCH', `/guilds/${f.guild.id}/roles`, [{ id: f.roleId, position: HUGE }]), field: '0.position' },
  { name: 'channel create position', call: () => owner('POST', `/guilds/${f.guild.id}/channels`, { name: 'c', position: HUGE }), field: 'position' },
  { name: 'channel update position', call: () => owner('PATCH', `/channels/${f.channelId}`, { position: HUGE }), field: 'position' },
  { name: 'channel move position', call: () => owner('PATCH', `/guilds/${f.guild.id}/channels`, [{ id: f.channelId, position: HUGE }]), field: '0.position' },
  { name: 'channel rate_limit_per_user', call: () => owner('PATCH', `/channels/${f.channelId}`, { rate_limit_per_user: HUGE }), field: 'rate_limit_per_user' },
  { name: 'invite max_age', call: () => owner('POST', `/guilds/${f.guild.id}/invites`, { max_age: HUGE }), field: 'max_age' },
  { name: 'invite max_uses', call: () => owner('POST', `/guilds/${f.guild.id}/invites`, { max_uses: HUGE }), field: 'max_uses' },
  {
    name: 'ban delete_message_seconds',
    call: () => owner('PUT', `/guilds/${f.guild.id}/bans/${f.member.id}`, { delete_message_seconds: HUGE }),
    field: 'delete_message_seconds',
  },
  {
    name: 'ban delete_message_days',
    call: () => owner('PUT', `/guilds/${f.guild.id}/bans/${f.member.id}`, { delete_message_days: HUGE }),
    field: 'delete_message_days',
  },
  { name: 'guild system_channel_flags', call: () => owner('PATCH', `/guilds/${f.guild.id}`, { system_channel_flags: HUGE }), field: 'system_channel_flags' },
  // A timeout's end is a timestamp Date can hold: a leap second is refused on the field.
  {
    name: 'member communication_disabled_until',
    call: () => owner('PATCH', `/guilds/${f.guild.id}/members/${f.member.id}`, { communication_disabled_until: LEAP_SECOND }),
    field: 'communication_disabled_until',
  },
];

describe('numeric edge values', () => {
  const tables = { bitfieldCases, limitCases, pathCases, queryCases, bodySnowflakeCases, bodyNumberCases };
  for (const [table, cases] of Object.entries(tables)) {
    it.each(cases)(`${table}: $name answers 400 naming $field and appends nothing`, async ({ call, field }) => {
      const [method, path, options] = call();
      const before = await server.runtime.store.headPosition();
      const response = await server.api(method, path, options);
      expect({ status: response.status, code: response.body?.code }).toEqual({ status: 400, code: 'INVALID_FORM_BODY' });
      expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(field);
      await expectNothingAppendedSince(server, before);
    });
  }

  it('leaves the channel working', async () => {
    const sent = await server.api('POST', `/channels/${f.channelId}/messages`, { token: f.member.token, body: { content: 'still here' } });
    expect(sent.status).toBe(200);
    const page = await server.api('GET', `/channels/${f.channelId}/messages?limit=1`, { token: f.member.token });
    expect(page.body.map((m: { content: string }) => m.content)).toEqual(['still here']);
  });
});

describe('a malformed snowflake', () => {
  it('is named as one in the answer, not by the pattern that checks it', async () => {
    const refused = await server.api('GET', '/channels/not-an-id', { token: f.owner.token });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'channelId', message: 'Must be a snowflake: a decimal string of a 64-bit unsigned integer' }]);
  });
});

describe('values at the edges that are well formed', () => {
  it('takes a snowflake of exactly 2^64 - 1 as a bound and as an unknown id', async () => {
    const token = f.owner.token;
    expect((await server.api('GET', `/channels/${f.channelId}/messages${query({ before: MAX_U64, limit: '100' })}`, { token })).status).toBe(200);
    expect((await server.api('GET', `/channels/${MAX_U64}`, { token })).body.code).toBe('UNKNOWN_CHANNEL');
  });

  it('takes every 64-bit bitfield, as a string or a safe integer, and keeps the bits that name permissions', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const role = await server.api('POST', `/guilds/${guild.id}/roles`, { token, body: { name: 'all', permissions: MAX_U64 } });
    expect(role.body.permissions).toBe(ALL_PERMISSIONS.toString());
    const numeric = await server.api('PATCH', `/guilds/${guild.id}/roles/${role.body.id}`, { token, body: { permissions: Number(Permission.KICK_MEMBERS) } });
    expect(numeric.body.permissions).toBe(Permission.KICK_MEMBERS.toString());
    const put = await server.api('PUT', `/channels/${guild.channelId}/permissions/${role.body.id}`, {
      token,
      body: { type: 0, allow: Number.MAX_SAFE_INTEGER, deny: MAX_U64 },
    });
    expect(put.status).toBe(204);
    const channel = await server.api('GET', `/channels/${guild.channelId}`, { token });
    expect(channel.body.permission_overwrites).toContainEqual({
      id: role.body.id,
      type: 0,
      allow: (BigInt(Number.MAX_SAFE_INTEGER) & ALL_PERMISSIONS).toString(),
      deny: ALL_PERMISSIONS.toString(),
    });
  });

  it('bounds webhook interactions by snowflake value, not by string order', async () => {
    const button = [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }];
    const posted = await server.api('POST', `/webhooks/${f.webhookId}/${f.webhookToken}?wait=true`, { body: { content: 'pick', components: button } });
    const clicked = await server.api('POST', '/interactions/click', {
      token: f.owner.token,
      body: { channel_id: f.channelId, message_id: posted.body.id, custom_id: 'go' },
    });
    expect(clicked.status).toBe(204);
    const page = async (before: string) =>
      (await server.api('GET', `/webhooks/${f.webhookId}/interactions${query({ before })}`, { token: f.owner.token })).body.length;
    expect([await page('5'), await page(MAX_U64)]).toEqual([0, 1]);
  });

  it('accepts the largest page and a pins bound with an offset', async () => {
    const token = f.owner.token;
    expect((await server.api('GET', `/channels/${f.channelId}/messages${query({ limit: '100' })}`, { token })).status).toBe(200);
    expect((await server.api('GET', `/channels/${f.channelId}/messages/pins${query({ before: '2030-01-01T00:00:00.5+01:00' })}`, { token })).status).toBe(200);
  });
});

const accepts = (schema: JSONSchema, value: string) => {
  try {
    parseBody(schema, value);
    return true;
  } catch {
    return false;
  }
};

describe('snowflakeSchema', () => {
  const valid = (value: string) => accepts(snowflakeSchema, value);

  it('takes decimal strings of 64-bit unsigned integers', () => {
    for (const value of ['0', '1', '9'.repeat(19), '10000000000000000000', '18446744073709551609', '18446744073709551599', MAX_U64, '0'.repeat(20)])
      expect(valid(value), value).toBe(true);
  });

  it('refuses anything past 2^64 - 1, signed, empty or not decimal', () => {
    for (const value of [
      ...BEYOND_U64,
      '18446744073709551620',
      '18446744073709552000',
      '19000000000000000000',
      '0'.repeat(21),
      '',
      '-1',
      '+1',
      '1e3',
      ' 1',
      '1 ',
      '١٢',
    ])
      expect(valid(value), value).toBe(false);
  });
});

describe('timestampSchema', () => {
  it('takes RFC 3339 timestamps, each one Date can read', () => {
    for (const value of [
      '2016-12-31T23:59:59Z',
      '2016-12-31T23:59:59.123456789Z',
      '2016-12-31 23:59:59z',
      '2016-12-31T23:59:59+01:00',
      '2016-12-31t23:59:59-0130',
      '0000-01-01T00:00:00Z',
    ]) {
      expect(accepts(timestampSchema, value), value).toBe(true);
      expect(Number.isFinite(Date.parse(value)), value).toBe(true);
    }
  });

  it('refuses a leap second, an offset of hours alone, and impossible dates', () => {
    for (const value of [LEAP_SECOND, '2016-12-31T22:59:60-01:00', '2016-12-31T23:59:59+01', '2016-02-30T00:00:00Z', '2016-12-31T23:59:59', 'yesterday'])
      expect(accepts(timestampSchema, value), value).toBe(false);
  });
});
