// Temporary memberships end when their user disconnects: a member who joined through a `temporary: true` invite is
// removed once their last gateway session ends for good (closed with 1000, or not resumed in time), on this gateway
// node and on the others, unless a role was given to them meanwhile; the guild sees GUILD_MEMBER_REMOVE, and the audit
// log no kick (as on the widely used API).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESUME_WINDOW_MS } from '../../gateway/session.js';
import { createGuild, expectError, grantRole } from '../http/guildSupport.js';
import { connectGateway, fileGateway } from '../support/gateway.js';
import { type TestUser, registerUser, startTestServer } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
/** How long a test waits for a removal, or for one that must not come. */
const BOUND_MS = 5000;
const QUIET_MS = 1000;

const { server, gateway } = await fileGateway();
const guild = await createGuild(server);
const watcher = await gateway.session(guild.owner.token, GUILDS | GUILD_MEMBERS);

/** A user who joined the guild through a temporary invite. */
async function temporaryMember(on = server, into = guild): Promise<TestUser> {
  const invite = await on.api('POST', `/channels/${into.channelId}/invites`, { token: into.owner.token, body: { temporary: true, unique: true } });
  expect(invite.body.temporary).toBe(true);
  const user = await registerUser(on);
  expect((await on.api('POST', `/invites/${invite.body.code}`, { token: user.token })).status).toBe(200);
  return user;
}

const memberStatus = async (user: TestUser) => (await server.api('GET', `/guilds/${guild.id}/members/${user.id}`, { token: guild.owner.token })).status;
const removals = (user: TestUser) => watcher.received.filter((p) => p.t === 'GUILD_MEMBER_REMOVE' && p.d.user.id === user.id);

async function expectRemoved(user: TestUser) {
  const removal = await watcher.next((p) => p.t === 'GUILD_MEMBER_REMOVE' && p.d.user.id === user.id, BOUND_MS);
  expect(removal.d.guild_id).toBe(guild.id);
  expectError(await server.api('GET', `/guilds/${guild.id}/members/${user.id}`, { token: guild.owner.token }), 404, 'UNKNOWN_MEMBER');
  expect((await server.api('GET', '/users/@me/guilds', { token: user.token })).body).toEqual([]);
}

/** Still a member after a while in which a removal would have come. */
async function expectStays(user: TestUser) {
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  expect(removals(user)).toEqual([]);
  expect(await memberStatus(user)).toBe(200);
}

describe('temporary memberships', () => {
  it('ends when the member’s only session is closed, with GUILD_MEMBER_REMOVE and no audit entry', async () => {
    const guest = await temporaryMember();
    const client = await gateway.session(guest.token, GUILDS);
    expect(await memberStatus(guest)).toBe(200);
    client.close();
    await expectRemoved(guest);
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token });
    expect(audit.body.audit_log_entries.filter((entry: { target_id: string }) => entry.target_id === guest.id)).toEqual([]);
  });

  it('outlasts a dropped connection, kept for a RESUME, and ends once the session is not resumed in time', async () => {
    const guest = await temporaryMember();
    const client = await gateway.session(guest.token, GUILDS);
    client.drop();
    await client.closed;
    await expectStays(guest);
    // What the registry's periodic sweep does once the resume window has passed.
    server.gateway!.registry.sweep(Date.now() + RESUME_WINDOW_MS + 1);
    await expectRemoved(guest);
  });

  it('stays for a temporary member given a role since joining', async () => {
    const guest = await temporaryMember();
    const client = await gateway.session(guest.token, GUILDS);
    await grantRole(server, guild, guest, 0n, 'regular');
    client.close();
    await client.closed;
    await expectStays(guest);
  });

  it('stays while another gateway node announces a session of the member, and ends once none is left', async () => {
    const guest = await temporaryMember();
    // What another node announces of its sessions (an invisible one shows as offline, but is there).
    const announce = (connected: boolean) =>
      server.runtime.hints.publish({
        type: 'PRESENCE_UPDATE',
        node: 'another-node',
        userId: guest.id,
        status: 'offline',
        activities: [],
        setAt: Date.now(),
        connected,
        timestamp: Date.now(),
      });
    announce(true);
    const here = await gateway.session(guest.token, GUILDS);
    here.close();
    await here.closed;
    await expectStays(guest);
    announce(false);
    const again = await gateway.session(guest.token, GUILDS);
    again.close();
    await expectRemoved(guest);
  });

  it('stays while another session of the member is open, and ends with the last one', async () => {
    const guest = await temporaryMember();
    const first = await gateway.session(guest.token, GUILDS);
    const second = await gateway.session(guest.token, GUILDS);
    first.close();
    await first.closed;
    await expectStays(guest);
    second.close();
    await expectRemoved(guest);
  });
});

describe('a gateway that stops', () => {
  it('keeps the temporary memberships of the sessions it ends: their clients are told to reconnect, not gone', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'parley-temporary-'));
    try {
      const before = await startTestServer({}, dataDir);
      const into = await createGuild(before);
      const guest = await temporaryMember(before, into);
      await (await connectGateway(before)).identify(guest.token, GUILDS);
      await before.close();
      const after = await startTestServer({}, dataDir);
      try {
        expect((await after.api('GET', `/guilds/${into.id}/members/${guest.id}`, { token: into.owner.token })).status).toBe(200);
      } finally {
        await after.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
