// Many writers on one aggregate at once: each request is decided on the state its predecessors left,
// so none answers a 5xx, and every write acknowledged with a 2xx is there to read afterwards.
import { describe, expect, it } from 'vitest';
import { type ApiResponse, fileServer, registerUser } from '../support/server.js';
import { createGuild, newMember } from './guildSupport.js';

const server = await fileServer();

function expectNoServerErrors(responses: ApiResponse[]) {
  const failed = responses.filter((r) => r.status >= 500).map((r) => `${r.status} ${r.text}`);
  expect(failed).toEqual([]);
  expect(responses.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.text}`)).toEqual([]);
}

describe('100 concurrent writers on one aggregate', () => {
  it('creates roles and channels and edits a guild at once, each 2xx visible afterwards', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        if (i % 5 < 2) return server.api('POST', `/guilds/${guild.id}/roles`, { token, body: { name: `role-${i}` } });
        if (i % 5 < 4) return server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: `channel-${i}`, type: 0 } });
        return server.api('PATCH', `/guilds/${guild.id}`, { token, body: { name: `guild-${i}` } });
      }),
    );
    expectNoServerErrors(responses);
    const roles = (await server.api('GET', `/guilds/${guild.id}/roles`, { token })).body as { id: string }[];
    const channels = (await server.api('GET', `/guilds/${guild.id}/channels`, { token })).body as { id: string }[];
    const created = (i: number) => responses[i].body.id as string;
    expect(roles.map((r) => r.id)).toEqual(expect.arrayContaining(responses.flatMap((_, i) => (i % 5 < 2 ? [created(i)] : []))));
    expect(channels.map((c) => c.id)).toEqual(expect.arrayContaining(responses.flatMap((_, i) => (i % 5 >= 2 && i % 5 < 4 ? [created(i)] : []))));
    const names = responses.flatMap((r, i) => (i % 5 === 4 ? [r.body.name as string] : []));
    expect(names).toContain((await server.api('GET', `/guilds/${guild.id}`, { token })).body.name);
  });

  it('edits one channel and its overwrites at once', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const member = await newMember(server, guild);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i % 2 === 0
          ? server.api('PATCH', `/channels/${guild.channelId}`, { token, body: { topic: `topic ${i}` } })
          : server.api('PUT', `/channels/${guild.channelId}/permissions/${member.id}`, { token, body: { type: 1, allow: String(1 << 6), deny: String(i) } }),
      ),
    );
    expectNoServerErrors(responses);
    const channel = (await server.api('GET', `/channels/${guild.channelId}`, { token })).body;
    expect(responses.filter((_, i) => i % 2 === 0).map((r) => r.body.topic)).toContain(channel.topic);
    expect(channel.permission_overwrites.find((o: { id: string }) => o.id === member.id)).toBeDefined();
  });

  it('edits one member at once', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token, body: { nick: `nick ${i}` } }),
      ),
    );
    expectNoServerErrors(responses);
    const nick = (await server.api('GET', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token })).body.nick;
    expect(responses.map((r) => r.body.nick)).toContain(nick);
  });

  it('edits and reacts to one message at once', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const reactors = await Promise.all(Array.from({ length: 20 }, () => newMember(server, guild)));
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token, body: { content: 'first' } });
    const path = `/channels/${guild.channelId}/messages/${sent.body.id}`;
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i < 80
          ? server.api('PATCH', path, { token, body: { content: `edit ${i}` } })
          : server.api('PUT', `${path}/reactions/${encodeURIComponent('👍')}/@me`, { token: reactors[i - 80].token }),
      ),
    );
    expectNoServerErrors(responses);
    const message = (await server.api('GET', path, { token })).body;
    expect(responses.slice(0, 80).map((r) => r.body.content)).toContain(message.content);
    expect(message.reactions).toEqual([expect.objectContaining({ count: 20 })]);
  });
});

describe('sends racing the deletion of their channel', () => {
  it('acknowledges only the messages appended before the channel was deleted, and refuses the rest with UNKNOWN_CHANNEL', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    for (let round = 0; round < 5; round++) {
      const channel = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: `doomed-${round}`, type: 0 } })).body;
      const sends = Array.from({ length: 20 }, (_, i) => server.api('POST', `/channels/${channel.id}/messages`, { token, body: { content: `message ${i}` } }));
      const deletion = new Promise((resolve) => setTimeout(resolve, round * 3)).then(() => server.api('DELETE', `/channels/${channel.id}`, { token }));
      const [answers, deleted] = await Promise.all([Promise.all(sends), deletion]);
      expect(deleted.status).toBe(200);
      for (const answer of answers) expect(answer.status === 200 || (answer.status === 404 && answer.body.code === 'UNKNOWN_CHANNEL'), answer.text).toBe(true);
      const log = await server.runtime.store.readAll();
      const deletedAt = log.findIndex((e) => e.type === 'ChannelDeleted' && (e.data as { channel: { id: string } }).channel.id === channel.id);
      const created = log.flatMap((e, i) =>
        e.type === 'MessageCreated' && (e.data as { channelId: string }).channelId === channel.id
          ? [{ i, id: (e.data as { messageId: string }).messageId }]
          : [],
      );
      expect(created.filter(({ i }) => i > deletedAt)).toEqual([]);
      expect(created.map(({ id }) => id).sort()).toEqual(
        answers
          .filter((a) => a.status === 200)
          .map((a) => a.body.id as string)
          .sort(),
      );
    }
  });
});

describe('writers in other processes', () => {
  it('answers a retryable 409 with Retry-After when the stream keeps changing under a command, and appends nothing', async () => {
    const user = await registerUser(server);
    const guild = await createGuild(server, user);
    // Another process's writes, as this one sees them: every append of this stream finds a newer revision in the log.
    const store = server.runtime.store;
    const append = store.appendToStream.bind(store);
    let interfering = true;
    store.appendToStream = async (streamId, events, options) => {
      if (interfering && streamId === `guild-${guild.id}`) {
        await append(streamId, [
          { type: 'GuildUpdated', data: { guildId: guild.id, changes: [] }, metadata: { actorId: null, createdAt: new Date().toISOString() } },
        ]);
      }
      return append(streamId, events, options);
    };
    try {
      const response = await server.api('POST', `/guilds/${guild.id}/roles`, { token: user.token, body: { name: 'contended' } });
      expect({ status: response.status, code: response.body.code, retryAfter: response.headers['retry-after'] }).toEqual({
        status: 409,
        code: 'WRITE_CONFLICT',
        retryAfter: '1',
      });
    } finally {
      interfering = false;
      store.appendToStream = append;
    }
    const roles = (await server.api('GET', `/guilds/${guild.id}/roles`, { token: user.token })).body as { name: string }[];
    expect(roles.map((r) => r.name)).not.toContain('contended');
  });
});
