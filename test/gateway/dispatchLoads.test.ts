// One event's dispatch loads each aggregate it needs once. On the PostgreSQL log a cached load still queries the end of
// the stream, and a guild message's dispatch needs the guild twice (its author's member, and who may see the channel),
// a thread message's the thread too: the real server on PostgreSQL, a real WebSocket session, and the log's reads of
// each stream counted from the message's append on (the send's own loads decide before it appends).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { guildStream, threadStream } from '../../commands/streams.js';
import { allOnPostgres, createTestDatabase, type TestDatabase, withEngine } from '../contracts/engines.js';
import { type TestGuild, createGuild, newMember } from '../http/guildSupport.js';
import { type GatewayClient, gatewayClients } from '../support/gateway.js';
import { type TestServer, type TestUser, startTestServer } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;

await withEngine('postgres', 'a message dispatch loads each aggregate once', () => {
  let database: TestDatabase;
  let server: TestServer;
  const gateway = gatewayClients(() => server);
  beforeAll(async () => {
    database = await createTestDatabase('parley_dispatch_loads');
    server = await startTestServer({}, undefined, allOnPostgres(database.url));
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    gateway.closeAll();
    await server?.close();
    await database?.drop();
  });

  /** Sends `content` to the channel as `author`, and the session's MESSAGE_CREATE of it. */
  async function sendAndReceive(session: GatewayClient, author: TestUser, channelId: string, content: string) {
    const sent = await server.api('POST', `/channels/${channelId}/messages`, { token: author.token, body: { content } });
    expect(sent.status, sent.text).toBe(200);
    return session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === sent.body.id);
  }

  /**
   * Sends `content` to the channel as `author` and waits for the session's MESSAGE_CREATE: that dispatch, and how many
   * times each stream was read from the log after the message was appended. A message to the guild's channel goes
   * first: once it is received the gateway has dispatched every earlier event, whose loads are not counted.
   */
  async function dispatched(session: GatewayClient, guild: TestGuild, author: TestUser, channelId: string, content: string) {
    await sendAndReceive(session, guild.owner, guild.channelId, 'before');
    const store = server.runtime.store;
    const read = store.readStream.bind(store);
    const append = store.appendToStream.bind(store);
    let appended = false;
    const reads = new Map<string, number>();
    vi.spyOn(store, 'appendToStream').mockImplementation((streamId, events, options) => {
      if (events.some((event) => event.type === 'MessageCreated')) appended = true;
      return append(streamId, events, options);
    });
    vi.spyOn(store, 'readStream').mockImplementation((streamId, options) => {
      if (appended) reads.set(streamId, (reads.get(streamId) ?? 0) + 1);
      return read(streamId, options);
    });
    const created = await sendAndReceive(session, author, channelId, content);
    vi.restoreAllMocks();
    return { created, reads };
  }

  async function world(): Promise<{ guild: TestGuild; author: TestUser; session: GatewayClient }> {
    const guild = await createGuild(server, undefined, 'Loads');
    const author = await newMember(server, guild);
    const session = await gateway.session(guild.owner.token, GUILDS | GUILD_MESSAGES);
    return { guild, author, session };
  }

  describe('a guild message’s MESSAGE_CREATE, with a session in the guild', () => {
    it('reads the guild’s stream once for both the author’s member and who may see the channel; the next message sees the member as changed since', async () => {
      const { guild, author, session } = await world();
      const first = await dispatched(session, guild, author, guild.channelId, 'one');
      expect(first.created.d.member).toMatchObject({ nick: null });
      expect(first.reads.get(guildStream(guild.id))).toBe(1);

      const nicked = await server.api('PATCH', `/guilds/${guild.id}/members/${author.id}`, { token: guild.owner.token, body: { nick: 'Ada' } });
      expect(nicked.status).toBe(200);
      const second = await dispatched(session, guild, author, guild.channelId, 'two');
      expect(second.created.d.member).toMatchObject({ nick: 'Ada' });
      expect(second.reads.get(guildStream(guild.id))).toBe(1);
    });

    it('in a thread, reads the guild’s stream once and the thread’s once', async () => {
      const { guild, author, session } = await world();
      const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: author.token, body: { name: 'Plans', type: 11 } });
      expect(thread.status, thread.text).toBe(201);
      const { created, reads } = await dispatched(session, guild, author, thread.body.id, 'in the thread');
      expect(created.d).toMatchObject({ channel_id: thread.body.id, member: { nick: null } });
      expect(reads.get(guildStream(guild.id))).toBe(1);
      expect(reads.get(threadStream(thread.body.id))).toBe(1);
    });
  });
});
