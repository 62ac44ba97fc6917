// Guild voice state over the real gateway and HTTP API: op 4 joins, moves, changes self flags and leaves; who is told
// (GUILD_VOICE_STATES sessions, and always the joining session) and what the joining session gets (VOICE_SERVER_UPDATE);
// refusals that never join; GUILD_CREATE's voice_states; sessions that end leave; moderators move, disconnect, mute
// and deafen with audit entries 26, 25 and 24; a member who leaves the guild and a deleted channel take the state along.
import { afterEach, describe, expect, it } from 'vitest';
import { type VoiceChannelJoined, voiceDecider } from '../../domain/voiceState.js';
import { type TestGuild, createGuild, expectRefusedWithoutEvents, grantRole, newMember } from '../http/guildSupport.js';
import { type GatewayClient, type Payload, gatewayClients } from '../support/gateway.js';
import { type TestUser, fileServer } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_VOICE_STATES = 1 << 7;
const MOVE_MEMBERS = 1n << 24n;
const MUTE_MEMBERS = 1n << 22n;
const DEAFEN_MEMBERS = 1n << 23n;
const CONNECT = 1n << 20n;

const server = await fileServer();
const clients = gatewayClients(() => server);
afterEach(() => clients.closeAll());

async function voiceChannel(guild: TestGuild, body: object = {}) {
  const response = await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'Lounge', type: 2, ...body } });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

const voiceOp = (guildId: string, channelId: string | null, flags: object = {}) => ({
  op: 4,
  d: { guild_id: guildId, channel_id: channelId, self_mute: false, self_deaf: false, ...flags },
});

/** The next VOICE_STATE_UPDATE of `userId` after the client's `after`-th payload. */
function voiceUpdate(client: GatewayClient, userId: string, channelId: string | null, after = 0): Promise<Payload> {
  return client.next(
    (p, i = client.received.indexOf(p)) => i >= after && p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === userId && p.d.channel_id === channelId,
  );
}

async function joined(client: GatewayClient, guildId: string, user: TestUser, channelId: string) {
  const mark = client.received.length;
  client.send(voiceOp(guildId, channelId));
  return voiceUpdate(client, user.id, channelId, mark);
}

/** Waits until the read side says the member's voice channel is `channelId` (null: not in voice). */
async function settledVoice(guildId: string, userId: string, channelId: string | null) {
  await expect
    .poll(async () => {
      const { state } = await server.runtime.commands.load(`guild-voice-${guildId}`, voiceDecider);
      return state.states.get(userId)?.channel_id ?? null;
    })
    .toBe(channelId);
}

describe('joining, moving and leaving over op 4', () => {
  it('tells the joining session (with VOICE_SERVER_UPDATE) and every GUILD_VOICE_STATES session of the guild, with the member', async () => {
    const guild = await createGuild(server);
    const lounge = await voiceChannel(guild);
    const member = await newMember(server, guild);
    const watcher = await clients.session(guild.owner.token, GUILDS | GUILD_VOICE_STATES);
    const deaf = await clients.session(guild.owner.token, GUILDS);
    const joiner = await clients.session(member.token, GUILDS);

    joiner.send(voiceOp(guild.id, lounge, { self_mute: true }));
    const own = await voiceUpdate(joiner, member.id, lounge);
    expect(own.d).toMatchObject({
      guild_id: guild.id,
      channel_id: lounge,
      user_id: member.id,
      self_mute: true,
      self_deaf: false,
      self_video: false,
      mute: false,
      deaf: false,
      suppress: false,
      request_to_speak_timestamp: null,
      member: { user: { id: member.id }, joined_at: expect.any(String) },
    });
    expect(own.d.session_id).toMatch(/^[0-9a-f]{32}$/);
    const server_ = await joiner.dispatch('VOICE_SERVER_UPDATE');
    expect(server_.d).toEqual({ token: expect.stringMatching(/^[0-9a-f]{32}$/), guild_id: guild.id, endpoint: null });
    const seen = await voiceUpdate(watcher, member.id, lounge);
    expect(seen.d.session_id).toBe(own.d.session_id);
    expect(watcher.received.some((p) => p.t === 'VOICE_SERVER_UPDATE')).toBe(false);
    // Without the intent, the owner's other session hears nothing of it.
    joiner.send(voiceOp(guild.id, null));
    await voiceUpdate(watcher, member.id, null);
    expect(deaf.received.some((p) => p.t === 'VOICE_STATE_UPDATE')).toBe(false);
  });

  it('moves between channels, changes self flags in place and leaves with channel_id null; a user is in one channel at a time', async () => {
    const guild = await createGuild(server);
    const [a, b] = [await voiceChannel(guild), await voiceChannel(guild, { name: 'Stage', type: 13 })];
    const member = await newMember(server, guild);
    const watcher = await clients.session(guild.owner.token, GUILDS | GUILD_VOICE_STATES);
    const joiner = await clients.session(member.token, GUILDS | GUILD_VOICE_STATES);
    await joined(joiner, guild.id, member, a);
    let mark = watcher.received.length;
    joiner.send(voiceOp(guild.id, b));
    const moved = await voiceUpdate(watcher, member.id, b, mark);
    expect(moved.d.suppress).toBe(true); // a stage channel's members join as listeners
    // A move gets a new voice server token, as a join does.
    await joiner.next(() => joiner.received.filter((q) => q.t === 'VOICE_SERVER_UPDATE').length === 2);
    mark = watcher.received.length;
    joiner.send(voiceOp(guild.id, b, { self_deaf: true }));
    expect((await watcher.next((p) => watcher.received.indexOf(p) >= mark && p.t === 'VOICE_STATE_UPDATE')).d).toMatchObject({
      channel_id: b,
      self_deaf: true,
    });
    mark = watcher.received.length;
    joiner.send(voiceOp(guild.id, null));
    expect((await voiceUpdate(watcher, member.id, null, mark)).d).toMatchObject({ guild_id: guild.id, channel_id: null, user_id: member.id });
    await settledVoice(guild.id, member.id, null);
  });

  it('never joins a text channel, a channel without CONNECT, an unseen channel, a full channel or a guild the user is not in', async () => {
    const guild = await createGuild(server);
    const denied = await voiceChannel(guild, { permission_overwrites: [{ id: guild.id, type: 0, deny: CONNECT.toString() }] });
    const hidden = await voiceChannel(guild, { permission_overwrites: [{ id: guild.id, type: 0, deny: (1n << 10n).toString() }] });
    const full = await voiceChannel(guild, { user_limit: 1 });
    const other = await createGuild(server);
    const otherLounge = await voiceChannel(other);
    const member = await newMember(server, guild);
    const first = await newMember(server, guild);
    await joined(await clients.session(first.token, GUILDS | GUILD_VOICE_STATES), guild.id, first, full);
    const client = await clients.session(member.token, GUILDS | GUILD_VOICE_STATES);
    for (const [guildId, channelId] of [
      [guild.id, guild.channelId],
      [guild.id, denied],
      [guild.id, hidden],
      [guild.id, full],
      [other.id, otherLounge],
      [guild.id, '999999'],
    ]) {
      client.send(voiceOp(guildId, channelId));
    }
    // A join that works afterwards shows the refused ones were handled (in order) and appended nothing.
    const open = await voiceChannel(guild);
    await joined(client, guild.id, member, open);
    expect(client.received.filter((p) => p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === member.id).map((p) => p.d.channel_id)).toEqual([open]);
    expect(
      (await server.runtime.store.readStream(`guild-voice-${guild.id}`)).map((e) => [
        e.type,
        (e.data as VoiceChannelJoined['data']).state.user_id,
        (e.data as VoiceChannelJoined['data']).state.channel_id,
      ]),
    ).toEqual([
      ['VoiceChannelJoined', first.id, full],
      ['VoiceChannelJoined', member.id, open],
    ]);
  });

  it('closes the connection with 4001 on a malformed op 4, as for other invalid payloads', async () => {
    const guild = await createGuild(server);
    const client = await clients.session(guild.owner.token, GUILDS);
    client.send({ op: 4, d: { guild_id: 'lounge', channel_id: null } });
    expect((await client.closed).code).toBe(4001);
  });

  it('lists voice states in GUILD_CREATE, and the session that ends (closed with 1000) leaves its channel', async () => {
    const guild = await createGuild(server);
    const lounge = await voiceChannel(guild);
    const member = await newMember(server, guild);
    const joiner = await clients.session(member.token, GUILDS);
    const own = await joined(joiner, guild.id, member, lounge);
    await settledVoice(guild.id, member.id, lounge);
    const later = await clients.connect();
    await later.identify(guild.owner.token, GUILDS | GUILD_VOICE_STATES);
    const create = await later.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id);
    expect(create.d.voice_states).toEqual([
      expect.objectContaining({ channel_id: lounge, user_id: member.id, session_id: own.d.session_id, self_mute: false, mute: false, deaf: false }),
    ]);
    joiner.close();
    await voiceUpdate(later, member.id, null);
    await settledVoice(guild.id, member.id, null);
  });
});

describe('voice moderation through PATCH /guilds/:id/members/:user_id', () => {
  it('moves and disconnects with MOVE_MEMBERS, audited as 26 and 25 with the reason, and the member’s session hears it', async () => {
    const guild = await createGuild(server);
    const [a, b] = [await voiceChannel(guild), await voiceChannel(guild, { name: 'Other' })];
    const member = await newMember(server, guild);
    const moderator = await newMember(server, guild);
    await grantRole(server, guild, moderator, MOVE_MEMBERS);
    const joiner = await clients.session(member.token, GUILDS);
    await joined(joiner, guild.id, member, a);
    await settledVoice(guild.id, member.id, a);

    const patch = (body: object, token = moderator.token, reason?: string) =>
      server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token, body, headers: reason ? { 'x-audit-log-reason': reason } : {} });
    // Without MOVE_MEMBERS: refused, nothing appended.
    const bystander = await newMember(server, guild);
    await expectRefusedWithoutEvents(server, () => patch({ channel_id: b }, bystander.token), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => patch({ channel_id: guild.channelId }), 400, 'NOT_A_VOICE_CHANNEL');
    await expectRefusedWithoutEvents(server, () => patch({ channel_id: '12345' }), 404, 'UNKNOWN_CHANNEL');

    expect((await patch({ channel_id: b }, moderator.token, 'make room')).status).toBe(200);
    await voiceUpdate(joiner, member.id, b);
    expect((await patch({ channel_id: null }, moderator.token, 'too loud')).status).toBe(200);
    await voiceUpdate(joiner, member.id, null);
    await expectRefusedWithoutEvents(server, () => patch({ channel_id: b }), 400, 'TARGET_NOT_IN_VOICE');

    const log = await server.api('GET', `/guilds/${guild.id}/audit-logs?limit=5`, { token: guild.owner.token });
    expect(log.status).toBe(200);
    const [disconnect, move] = log.body.audit_log_entries;
    expect(disconnect).toMatchObject({ action_type: 25, target_id: member.id, user_id: moderator.id, reason: 'too loud', options: { count: '1' } });
    expect(move).toMatchObject({ action_type: 26, target_id: member.id, user_id: moderator.id, reason: 'make room', options: { channel_id: b, count: '1' } });
    expect(log.body.users.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining([member.id, moderator.id]));
  });

  it('server-mutes and deafens a member in voice (MUTE_MEMBERS, DEAFEN_MEMBERS), audited as 24, shown in the voice state; 400 when not in voice', async () => {
    const guild = await createGuild(server);
    const lounge = await voiceChannel(guild);
    const member = await newMember(server, guild);
    const muter = await newMember(server, guild);
    await grantRole(server, guild, muter, MUTE_MEMBERS);
    const patch = (body: object, token = muter.token) => server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token, body });
    await expectRefusedWithoutEvents(server, () => patch({ mute: true }), 400, 'TARGET_NOT_IN_VOICE');
    const watcher = await clients.session(guild.owner.token, GUILDS | GUILD_VOICE_STATES);
    const joiner = await clients.session(member.token, GUILDS);
    await joined(joiner, guild.id, member, lounge);
    await settledVoice(guild.id, member.id, lounge);
    await expectRefusedWithoutEvents(server, () => patch({ deaf: true }), 403, 'MISSING_PERMISSIONS');
    const muted = await patch({ mute: true });
    expect(muted.status).toBe(200);
    expect(muted.body).toMatchObject({ mute: true, deaf: false });
    expect((await watcher.next((p) => p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === member.id && p.d.mute === true)).d.channel_id).toBe(lounge);
    await grantRole(server, guild, muter, DEAFEN_MEMBERS, 'deafener');
    expect((await patch({ deaf: true })).body).toMatchObject({ mute: true, deaf: true });
    const log = await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=24&user_id=${muter.id}`, { token: guild.owner.token });
    expect(log.body.audit_log_entries.map((e: { target_id: string; changes: unknown[] }) => [e.target_id, e.changes])).toEqual([
      [member.id, [{ key: 'deaf', old_value: false, new_value: true }]],
      [member.id, [{ key: 'mute', old_value: false, new_value: true }]],
    ]);
  });

  it('drops the voice state of a member who is kicked, and of everyone in a channel that is deleted', async () => {
    const guild = await createGuild(server);
    const [a, b] = [await voiceChannel(guild), await voiceChannel(guild, { name: 'Doomed' })];
    const [kicked, stayer] = [await newMember(server, guild), await newMember(server, guild)];
    const watcher = await clients.session(guild.owner.token, GUILDS | GUILD_VOICE_STATES);
    await joined(await clients.session(kicked.token, GUILDS), guild.id, kicked, a);
    await joined(await clients.session(stayer.token, GUILDS), guild.id, stayer, b);
    await settledVoice(guild.id, stayer.id, b);
    expect((await server.api('DELETE', `/guilds/${guild.id}/members/${kicked.id}`, { token: guild.owner.token })).status).toBe(204);
    await voiceUpdate(watcher, kicked.id, null);
    expect((await server.api('DELETE', `/channels/${b}`, { token: guild.owner.token })).status).toBe(200);
    await voiceUpdate(watcher, stayer.id, null);
    const later = await clients.session(guild.owner.token, GUILDS | GUILD_VOICE_STATES);
    expect((await later.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id)).d.voice_states).toEqual([]);
  });
});
