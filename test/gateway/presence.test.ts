// Presences: op 3 and IDENTIFY's presence validated and bounded; a user's presence, and whether they have a session,
// across gateway nodes (two trackers on one hint bus); and over the wire, PRESENCE_UPDATE to the guilds' sessions with
// GUILD_PRESENCES, presences in GUILD_CREATE, 'invisible' shown as 'offline', and 'offline' once the user's last
// session ends.
import { afterEach, describe, expect, it } from 'vitest';
import { OFFLINE, type Presence, Presences, type Shown, parseIdentifyPresence, parsePresence } from '../../gateway/presence.js';
import { LocalHintBus } from '../../ports/hints.js';
import { createLogger } from '../../infra/logger.js';
import { type TestGuild, createGuild, join, newMember } from '../http/guildSupport.js';
import { type GatewayClient, type Payload, fileGateway } from '../support/gateway.js';
import { createBot, registerUser } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_PRESENCES = 1 << 8;
const now = 1_700_000_000_000;

describe('reading a presence update', () => {
  it('reads what discord.js and discord.py send, keeping only the activity fields a bot may set', () => {
    const discordjs = { since: null, activities: [{ name: 'chess', type: 0, url: undefined, state: 'opening' }], status: 'dnd', afk: false };
    expect(parsePresence(discordjs, now)).toEqual({ status: 'dnd', activities: [{ name: 'chess', type: 0, state: 'opening', created_at: now }] });
    const discordpy = { activities: [{ type: 0, name: 'chess', timestamps: {} }], afk: false, since: 0.0, status: 'idle' };
    expect(parsePresence(discordpy, now)).toEqual({ status: 'idle', activities: [{ name: 'chess', type: 0, created_at: now }] });
    const streaming = { since: null, activities: [{ name: 'live', type: 1, url: 'https://twitch.tv/x', assets: null }], status: 'online', afk: false };
    expect(parsePresence(streaming, now)?.activities).toEqual([{ name: 'live', type: 1, url: 'https://twitch.tv/x', created_at: now }]);
  });

  it('reads IDENTIFY’s presence as discord.py sends it: status null, the activity as `game`', () => {
    expect(parseIdentifyPresence({ status: null, game: { name: 'chess', type: 0 }, since: 0, afk: false }, now)).toEqual({
      status: 'online',
      activities: [{ name: 'chess', type: 0, created_at: now }],
    });
    expect(parseIdentifyPresence({ status: 'invisible', game: null, since: 0, afk: false }, now)).toEqual({ status: 'invisible', activities: [] });
  });

  it('refuses a bad shape, an unknown status, too many activities and overlong text', () => {
    const valid = { since: null, activities: [], status: 'online', afk: false };
    const activity = { name: 'chess', type: 0 };
    for (const d of [
      null,
      [],
      { ...valid, status: 'away' },
      { ...valid, status: undefined },
      { ...valid, activities: undefined },
      { ...valid, activities: 'chess' },
      { ...valid, since: 'yesterday' },
      { ...valid, afk: 'no' },
      { ...valid, activities: Array.from({ length: 6 }, () => activity) },
      { ...valid, activities: [{ ...activity, name: '' }] },
      { ...valid, activities: [{ ...activity, name: 'x'.repeat(129) }] },
      { ...valid, activities: [{ ...activity, state: 'x'.repeat(129) }] },
      { ...valid, activities: [{ ...activity, url: 'x'.repeat(513) }] },
      { ...valid, activities: [{ ...activity, type: 6 }] },
      { ...valid, activities: [{ ...activity, type: 1.5 }] },
      { ...valid, activities: [null] },
    ]) {
      expect(parsePresence(d, now), JSON.stringify(d)).toBeNull();
    }
    expect(parsePresence({ ...valid, activities: Array.from({ length: 5 }, () => activity) }, now)).not.toBeNull();
  });
});

describe('a user’s presence across gateway nodes', () => {
  const log = createLogger('silent');
  const online: Presence = { status: 'online', activities: [] };
  const dnd: Presence = { status: 'dnd', activities: [{ name: 'chess', type: 0, created_at: now }] };

  const started: Presences[] = [];
  afterEach(async () => {
    for (const presences of started.splice(0)) await presences.stop();
  });

  /** Two gateway nodes on one hint bus, each recording what it announces to its sessions. */
  function twoNodes() {
    const bus = new LocalHintBus();
    let clock = now;
    const node = () => {
      const announced: [string, Shown][] = [];
      const presences = new Presences(
        bus,
        async (userId, presence) => void announced.push([userId, presence]),
        log,
        () => clock,
      );
      presences.start();
      started.push(presences);
      return { presences, announced };
    };
    return { a: node(), b: node(), advance: (ms: number) => (clock += ms) };
  }
  const settled = () => new Promise((resolve) => setImmediate(resolve));

  it('given a session on node A, when it sets a presence and ends, then node B announces it and then offline', async () => {
    const { a, b } = twoNodes();
    a.presences.set('s1', 'u', dnd);
    expect(b.presences.of('u')).toEqual({ status: 'dnd', activities: dnd.activities });
    a.presences.end('s1', 'u');
    await settled();
    expect(b.announced).toEqual([
      ['u', { status: 'dnd', activities: dnd.activities }],
      ['u', OFFLINE],
    ]);
    expect(a.announced).toEqual(b.announced);
  });

  it('given two sessions, when one ends, then the user stays with the other’s presence', async () => {
    const { a, b, advance } = twoNodes();
    a.presences.set('s1', 'u', online);
    advance(1);
    b.presences.set('s2', 'u', dnd);
    expect(a.presences.of('u').status).toBe('dnd');
    b.presences.end('s2', 'u');
    expect(a.presences.of('u').status).toBe('online');
  });

  it('given an invisible session, then others see the user offline, with no activities', () => {
    const { a, b } = twoNodes();
    a.presences.set('s1', 'u', { status: 'invisible', activities: dnd.activities });
    expect(b.presences.of('u')).toEqual(OFFLINE);
    expect(b.presences.objects(['u'])).toEqual([]);
  });

  it('given an unchanged presence, when announced again, then nothing is announced to sessions', async () => {
    const { a, b } = twoNodes();
    a.presences.set('s1', 'u', dnd);
    a.presences.tick();
    a.presences.set('s1', 'u', dnd);
    await settled();
    expect(b.announced).toHaveLength(1);
  });

  it('given a node that stops announcing (it crashed), then its users go offline once its presences expire', async () => {
    const { a, b, advance } = twoNodes();
    a.presences.set('s1', 'u', online);
    await a.presences.stop(); // stops hearing and re-announcing, as a crashed node would
    advance(60_000);
    b.presences.tick();
    expect(b.presences.of('u').status).toBe('online');
    advance(100_000);
    b.presences.tick();
    await settled();
    expect(b.presences.of('u')).toEqual(OFFLINE);
    expect(b.announced.at(-1)).toEqual(['u', OFFLINE]);
  });

  it('given a session on node A, invisible too, then node B knows the user is connected there until it ends', () => {
    const { a, b } = twoNodes();
    a.presences.set('s1', 'u', { status: 'invisible', activities: [] });
    expect(b.presences.connectedElsewhere('u')).toBe(true);
    expect(a.presences.connectedElsewhere('u')).toBe(false);
    a.presences.end('s1', 'u');
    expect(b.presences.connectedElsewhere('u')).toBe(false);
  });

  it('given a node that stops announcing (it crashed), then its users count as connected there until it expires', async () => {
    const { a, b, advance } = twoNodes();
    a.presences.set('s1', 'u', online);
    await a.presences.stop();
    advance(60_000);
    b.presences.tick();
    expect(b.presences.connectedElsewhere('u')).toBe(true);
    advance(100_000);
    b.presences.tick();
    expect(b.presences.connectedElsewhere('u')).toBe(false);
  });

  it('given a node from before `connected` in its announcements, then a user it shows online counts as connected there', () => {
    const bus = new LocalHintBus();
    const presences = new Presences(bus, async () => {}, log);
    presences.start();
    started.push(presences);
    const announce = (status: 'online' | 'offline') =>
      bus.publish({ type: 'PRESENCE_UPDATE', node: 'older', userId: 'u', status, activities: [], setAt: now, timestamp: now });
    announce('online');
    expect(presences.connectedElsewhere('u')).toBe(true);
    announce('offline');
    expect(presences.connectedElsewhere('u')).toBe(false);
  });

  it('given a node that starts late, then it learns the presences of the others when they announce them again', () => {
    const bus = new LocalHintBus();
    const first = new Presences(bus, async () => {}, log);
    first.start();
    first.set('s1', 'u', dnd);
    const late = new Presences(bus, async () => {}, log);
    late.start();
    started.push(first, late);
    expect(late.of('u')).toEqual(OFFLINE);
    first.tick();
    expect(late.of('u').status).toBe('dnd');
  });
});

const { server, gateway } = await fileGateway();
const session = gateway.session;

const presenceOf = (client: GatewayClient, userId: string, status: string) =>
  client.next((p) => p.t === 'PRESENCE_UPDATE' && p.d.user.id === userId && p.d.status === status);
const updates = (client: GatewayClient, userId: string) => client.received.filter((p) => p.t === 'PRESENCE_UPDATE' && p.d.user.id === userId);
/** Resolves once every frame the server sent the client before now has arrived: a heartbeat's ACK comes after them. */
async function caughtUp(client: GatewayClient) {
  const acks = client.received.filter((p) => p.op === 11).length;
  client.send({ op: 1, d: null });
  await client.next((p: Payload) => p.op === 11 && client.received.filter((q) => q.op === 11).length > acks);
}

async function guildWithWatchers(): Promise<{ guild: TestGuild; watcher: GatewayClient; blind: GatewayClient }> {
  const guild = await createGuild(server);
  const [seeing, notSeeing] = [await createBot(server), await createBot(server)];
  await join(server, guild, seeing, 'Bot');
  await join(server, guild, notSeeing, 'Bot');
  return { guild, watcher: await session(seeing.token, GUILDS | GUILD_PRESENCES), blind: await session(notSeeing.token, GUILDS) };
}

describe('presences over the wire', () => {
  it('relays a member’s presence to the guild’s sessions with GUILD_PRESENCES only', async () => {
    const { guild, watcher, blind } = await guildWithWatchers();
    const member = await newMember(server, guild);
    const client = await session(member.token, 0);
    const online = await presenceOf(watcher, member.id, 'online');
    expect(online.d).toEqual({ user: { id: member.id }, guild_id: guild.id, status: 'online', activities: [], client_status: { web: 'online' } });

    client.send({ op: 3, d: { since: null, activities: [{ name: 'chess', type: 0 }], status: 'dnd', afk: false } });
    const dnd = await presenceOf(watcher, member.id, 'dnd');
    expect(dnd.d).toMatchObject({ activities: [{ name: 'chess', type: 0, created_at: expect.any(Number) }], client_status: { web: 'dnd' } });
    await caughtUp(blind);
    expect(updates(blind, member.id)).toEqual([]);
  });

  it('shows an invisible member as offline; a dropped session, kept for a RESUME, keeps its presence', async () => {
    const { guild, watcher } = await guildWithWatchers();
    const member = await newMember(server, guild);
    const first = await session(member.token, 0);
    await presenceOf(watcher, member.id, 'online');
    first.send({ op: 3, d: { since: null, activities: [{ name: 'hidden', type: 0 }], status: 'invisible', afk: false } });
    const hidden = await presenceOf(watcher, member.id, 'offline');
    expect(hidden.d).toMatchObject({ activities: [], client_status: {} });

    const second = await session(member.token, 0, { status: 'idle', activities: [], since: null, afk: false });
    await presenceOf(watcher, member.id, 'idle');
    // A drop keeps the session for a RESUME: the member stays idle.
    second.drop();
    await second.closed;
    first.close();
    await first.closed;
    await caughtUp(watcher);
    expect(updates(watcher, member.id).map((p) => p.d.status)).toEqual(['online', 'offline', 'idle']);
  });

  it('relays offline when the last session ends with 1000', async () => {
    const { guild, watcher } = await guildWithWatchers();
    const member = await newMember(server, guild);
    const client = await session(member.token, 0, { status: 'dnd', activities: [], since: null, afk: false });
    await presenceOf(watcher, member.id, 'dnd');
    client.close();
    const offline = await presenceOf(watcher, member.id, 'offline');
    expect(offline.d).toEqual({ user: { id: member.id }, guild_id: guild.id, status: 'offline', activities: [], client_status: {} });
  });

  it('lists the members’ presences in GUILD_CREATE for sessions with GUILD_PRESENCES', async () => {
    const { guild, watcher } = await guildWithWatchers();
    const member = await newMember(server, guild);
    await session(member.token, 0, { status: 'dnd', activities: [{ name: 'chess', type: 0 }], since: null, afk: false });
    await presenceOf(watcher, member.id, 'dnd');
    const bot = await createBot(server);
    await join(server, guild, bot, 'Bot');
    const seeing = await session(bot.token, GUILDS | GUILD_PRESENCES);
    const blind = await session(bot.token, GUILDS);
    const listed = (await seeing.dispatch('GUILD_CREATE')).d.presences;
    expect(listed).toContainEqual({
      user: { id: member.id },
      status: 'dnd',
      activities: [{ name: 'chess', type: 0, created_at: expect.any(Number) }],
      client_status: { web: 'dnd' },
    });
    expect(listed.map((p: { status: string }) => p.status)).not.toContain('offline');
    expect((await blind.dispatch('GUILD_CREATE')).d.presences).toEqual([]);
  });

  it('tells a new member the guild’s presences, and the guild the new member’s', async () => {
    const { guild, watcher } = await guildWithWatchers();
    const member = await newMember(server, guild);
    await session(member.token, 0, { status: 'idle', activities: [], since: null, afk: false });
    await presenceOf(watcher, member.id, 'idle');
    const newcomer = await registerUser(server);
    const client = await session(newcomer.token, GUILDS | GUILD_PRESENCES, { status: 'dnd', activities: [], since: null, afk: false });
    await join(server, guild, newcomer);
    await client.dispatch('GUILD_CREATE');
    expect((await presenceOf(client, member.id, 'idle')).d.guild_id).toBe(guild.id);
    await presenceOf(watcher, newcomer.id, 'dnd');
  });

  it('closes with 4001 on an invalid presence update, and on an invalid presence at IDENTIFY', async () => {
    const user = await registerUser(server);
    const client = await session(user.token, 0);
    client.send({ op: 3, d: { since: null, activities: [], status: 'away', afk: false } });
    expect((await client.closed).code).toBe(4001);

    const identifying = await gateway.connect();
    await identifying.next((p) => p.op === 10);
    identifying.send({ op: 2, d: { token: user.token, intents: 0, properties: {}, presence: { status: 'online', activities: 'chess' } } });
    expect((await identifying.closed).code).toBe(4001);
  });
});
