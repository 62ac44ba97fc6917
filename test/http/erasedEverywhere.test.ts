// A message or an account whose key is gone never answers 5xx, and never shows its erased text, wherever else it is
// read: pins, replies quoting it, the audit log (reasons are sealed with their writer's key), bans,
// webhook messages, interactions on it, a rebuild of the read models, and the operator's export. Each erased text is
// also searched for in the whole DATA_DIR (by grep, in another process: see cryptoShredding.test.ts).
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { eventually } from '../contracts/eventually.js';
import { gatewayClients } from '../support/gateway.js';
import { replayIn } from '../support/process.js';
import { type ApiResponse, type TestUser, registerUser, startTestServer } from '../support/server.js';
import { callback, interactionWorld } from './commandInteractionSupport.js';
import { createGuild, grantRole, join, newMember } from './guildSupport.js';

const SCRUB_MS = 100;
const dataDir = await mkdtemp(joinPath(tmpdir(), 'parley-erased-'));
const server = await startTestServer({ READ_MODEL_SCRUB_MS: String(SCRUB_MS) }, dataDir);
const gateway = gatewayClients(() => server);
afterAll(async () => {
  gateway.closeAll();
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Every text erased by the tests so far: none may be found anywhere once they ran. */
const erased: string[] = [];
const secret = (label: string) => `SECRET-${randomBytes(8).toString('hex')}-${label}`;
const erasedSecret = (label: string) => {
  const text = secret(label);
  erased.push(text);
  return text;
};

async function filesHolding(text: string): Promise<string[]> {
  const found = await promisify(execFile)('grep', ['-rlaF', '--', text, dataDir]).catch((error: { code?: number; stdout?: string }) => {
    if (error.code === 1) return { stdout: '' };
    throw error;
  });
  return found.stdout
    .split('\n')
    .filter(Boolean)
    .map((path) => path.slice(dataDir.length + 1));
}

/** The response, after checking it is no 5xx and holds none of the texts. */
function readable(response: ApiResponse, texts: string[] = erased): ApiResponse {
  expect(response.status, response.text).toBeLessThan(500);
  for (const text of texts) expect(response.text).not.toContain(text);
  return response;
}

async function send(user: TestUser, channelId: string, body: object, scheme: 'Bot' | 'Bearer' = 'Bearer'): Promise<any> {
  const sent = await server.api('POST', `/channels/${channelId}/messages`, { token: user.token, scheme, body });
  expect(sent.status, sent.text).toBe(200);
  return sent.body;
}

const deleteMessage = async (user: TestUser, channelId: string, messageId: string) =>
  expect((await server.api('DELETE', `/channels/${channelId}/messages/${messageId}`, { token: user.token })).status).toBe(204);
const deleteAccount = async (user: TestUser) =>
  expect((await server.api('POST', '/users/@me/delete', { token: user.token, body: { password: 'correct horse battery' } })).status).toBe(204);
const reason = (text: string) => ({ 'X-Audit-Log-Reason': encodeURIComponent(text) });

describe('after messages are deleted and edited', () => {
  it('pins list the pinned messages still there, without one pinned and later deleted', async () => {
    const guild = await createGuild(server);
    const [gone, kept] = [erasedSecret('pinned-gone'), secret('pinned-kept')];
    const goneMessage = await send(guild.owner, guild.channelId, { content: gone });
    const keptMessage = await send(guild.owner, guild.channelId, { content: kept });
    for (const id of [goneMessage.id, keptMessage.id])
      expect((await server.api('PUT', `/channels/${guild.channelId}/pins/${id}`, { token: guild.owner.token })).status).toBe(204);
    await deleteMessage(guild.owner, guild.channelId, goneMessage.id);
    const pins = readable(await server.api('GET', `/channels/${guild.channelId}/pins`, { token: guild.owner.token }));
    expect(pins.body.map((m: any) => [m.id, m.content])).toEqual([[keptMessage.id, kept]]);
    const paged = readable(await server.api('GET', `/channels/${guild.channelId}/messages/pins`, { token: guild.owner.token }));
    expect(paged.body.items.map((item: any) => item.message.id)).toEqual([keptMessage.id]);
    readable(await server.api('PUT', `/channels/${guild.channelId}/pins/${goneMessage.id}`, { token: guild.owner.token }));
    readable(await server.api('DELETE', `/channels/${guild.channelId}/pins/${goneMessage.id}`, { token: guild.owner.token }));
  });

  it('replies keep their reference to a deleted message, quoting nothing, and quote an edited one as it is now', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const [gone, old, now] = [erasedSecret('quoted-gone'), erasedSecret('quoted-old'), secret('quoted-now')];
    const quoted = await send(guild.owner, guild.channelId, { content: gone });
    const edited = await send(guild.owner, guild.channelId, { content: old });
    const replyToGone = await send(member, guild.channelId, { content: 'replying', message_reference: { message_id: quoted.id } });
    const replyToEdited = await send(member, guild.channelId, { content: 'replying too', message_reference: { message_id: edited.id } });
    await deleteMessage(guild.owner, guild.channelId, quoted.id);
    expect((await server.api('PATCH', `/channels/${guild.channelId}/messages/${edited.id}`, { token: guild.owner.token, body: { content: now } })).status).toBe(
      200,
    );

    const page = readable(await server.api('GET', `/channels/${guild.channelId}/messages`, { token: member.token }));
    const byId = new Map(page.body.map((m: any) => [m.id, m]));
    expect(byId.get(replyToGone.id)).toMatchObject({ message_reference: { message_id: quoted.id }, referenced_message: null });
    expect(byId.get(replyToEdited.id)).toMatchObject({ referenced_message: { id: edited.id, content: now } });
    readable(await server.api('GET', `/channels/${guild.channelId}/messages/${replyToGone.id}`, { token: member.token }));
    expect(readable(await server.api('GET', `/channels/${guild.channelId}/messages/${quoted.id}`, { token: member.token })).status).toBe(404);
    // A new reply to the deleted message is refused as one to an unknown message, without failing.
    const late = readable(
      await server.api('POST', `/channels/${guild.channelId}/messages`, {
        token: member.token,
        body: { content: 'late', message_reference: { message_id: quoted.id } },
      }),
    );
    expect(late.status).toBe(400);
  });

  it('webhook messages, sent under a name and avatar of their own, leave neither once deleted', async () => {
    const guild = await createGuild(server);
    const hook = (await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'Relay' } })).body;
    const [name, avatar, words] = [erasedSecret('hook-name'), erasedSecret('hook-avatar'), erasedSecret('hook-words')];
    const executed = await server.api('POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, {
      body: { content: words, username: name, avatar_url: `https://example.com/${avatar}.png` },
    });
    expect(executed.status, executed.text).toBe(200);
    expect(executed.body.author).toMatchObject({ id: hook.id, username: name });
    await deleteMessage(guild.owner, guild.channelId, executed.body.id);
    readable(await server.api('GET', `/channels/${guild.channelId}/messages`, { token: guild.owner.token }));
    readable(await server.api('GET', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token }));
    readable(await server.api('GET', `/webhooks/${hook.id}/${hook.token}`, {}));
    expect(readable(await server.api('GET', `/channels/${guild.channelId}/messages/${executed.body.id}`, { token: guild.owner.token })).status).toBe(404);
  });

  it('a component interaction on a message deleted since answers 4xx or works, never 5xx, and shows nothing of it', async () => {
    const world = await interactionWorld(server, gateway, [{ name: 'ping', description: 'Ping', type: 1 }]);
    const label = erasedSecret('button-label');
    const words = erasedSecret('component-words');
    const message = await send(
      world.bot,
      world.guild.channelId,
      { content: words, components: [{ type: 1, components: [{ type: 2, style: 1, label, custom_id: 'go' }] }] },
      'Bot',
    );
    const click = () =>
      server.api('POST', '/interactions/click', {
        token: world.member.token,
        body: { channel_id: world.guild.channelId, message_id: message.id, custom_id: 'go' },
      });
    expect((await click()).status).toBe(204);
    const d = (await world.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 3 && p.d.message.id === message.id)).d;
    await deleteMessage(world.guild.owner, world.guild.channelId, message.id);

    expect(readable(await click()).status).toBe(404);
    // The bot answers after the message went: updating it cannot be, replying can.
    expect(readable(await callback(server, d, { type: 7, data: { content: 'updated' } })).status).toBeGreaterThanOrEqual(400);
    expect(readable(await callback(server, d, { type: 4, data: { content: 'answered' } })).status).toBe(204);
    readable(await server.api('GET', `/webhooks/${world.bot.applicationId}/${d.token}/messages/@original`, {}));
    readable(await server.api('GET', `/channels/${world.guild.channelId}/messages`, { token: world.member.token }));
  });
});

describe('after accounts are deleted', () => {
  it('the audit log keeps who did what and when, without the reasons the deleted moderator wrote; bans keep no reason', async () => {
    const guild = await createGuild(server);
    const moderator = await newMember(server, guild);
    await grantRole(server, guild, moderator, Permission.KICK_MEMBERS | Permission.BAN_MEMBERS | Permission.MANAGE_CHANNELS | Permission.MANAGE_MESSAGES);
    const [kicked, banned] = [await newMember(server, guild), await newMember(server, guild)];
    const banWords = erasedSecret('banned-words');
    await send(banned, guild.channelId, { content: banWords });
    const [kickReason, banReason, channelReason] = [erasedSecret('kick-reason'), erasedSecret('ban-reason'), erasedSecret('channel-reason')];
    const ownerReason = secret('owner-reason');
    const token = moderator.token;
    expect((await server.api('DELETE', `/guilds/${guild.id}/members/${kicked.id}`, { token, headers: reason(kickReason) })).status).toBe(204);
    expect(
      (await server.api('PUT', `/guilds/${guild.id}/bans/${banned.id}`, { token, body: { delete_message_seconds: 3600 }, headers: reason(banReason) })).status,
    ).toBe(204);
    const channel = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'temporary' }, headers: reason(channelReason) });
    expect(channel.status).toBe(201);
    expect(
      (await server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { name: 'Renamed' }, headers: reason(ownerReason) })).status,
    ).toBe(200);
    const before = (await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token })).body.audit_log_entries;
    expect(before.filter((e: any) => e.user_id === moderator.id).map((e: any) => e.reason)).toEqual([channelReason, banReason, kickReason]);

    await deleteAccount(moderator);
    const after = readable(await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token }));
    const entries = after.body.audit_log_entries;
    // Same entries, same actors, targets and times; only the erased writer's reasons are gone.
    expect(entries.map((e: any) => [e.id, e.action_type, e.user_id, e.target_id, e.timestamp])).toEqual(
      before.map((e: any) => [e.id, e.action_type, e.user_id, e.target_id, e.timestamp]),
    );
    expect(entries.filter((e: any) => e.user_id === moderator.id).map((e: any) => e.reason ?? null)).toEqual([null, null, null]);
    expect(entries.find((e: any) => e.action_type === 1).reason).toBe(ownerReason);
    // The searches of the audit log: by actor and by action.
    for (const query of [`?user_id=${moderator.id}`, '?action_type=22', `?user_id=${moderator.id}&action_type=20`]) {
      const found = readable(await server.api('GET', `/guilds/${guild.id}/audit-logs${query}`, { token: guild.owner.token }));
      expect(found.body.audit_log_entries.length).toBeGreaterThan(0);
    }
    const bans = readable(await server.api('GET', `/guilds/${guild.id}/bans`, { token: guild.owner.token }));
    expect(bans.body.map((b: any) => [b.user.id, b.reason])).toEqual([[banned.id, null]]);
    expect(readable(await server.api('GET', `/guilds/${guild.id}/bans/${banned.id}`, { token: guild.owner.token })).body.reason).toBe(null);
  });

  it('messages by and mentioning a deleted account, and its clicks, show Deleted User and nothing it chose', async () => {
    const guild = await createGuild(server);
    const leaving = await registerUser(server, `leaving${randomBytes(5).toString('hex')}`);
    erased.push(leaving.username);
    await join(server, guild, leaving);
    const nick = erasedSecret('nick');
    expect((await server.api('PATCH', `/guilds/${guild.id}/members/@me`, { token: leaving.token, body: { nick } })).status).toBe(200);
    const theirs = await send(leaving, guild.channelId, { content: 'my words stay' });
    const mention = await send(guild.owner, guild.channelId, { content: `hello <@${leaving.id}>` });
    const reply = await send(guild.owner, guild.channelId, { content: 'answering', message_reference: { message_id: theirs.id } });
    const hook = (await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'Menu' } })).body;
    const menu = [
      {
        type: 1,
        components: [
          {
            type: 3,
            custom_id: 'flavour',
            options: [
              { label: 'Vanilla', value: 'vanilla' },
              { label: 'Mint', value: 'mint' },
            ],
          },
        ],
      },
    ];
    const menuMessage = (await server.api('POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, { body: { content: 'Choose', components: menu } })).body;
    const clicked = await server.api('POST', '/interactions/click', {
      token: leaving.token,
      body: { channel_id: guild.channelId, message_id: menuMessage.id, custom_id: 'flavour', values: ['mint'] },
    });
    expect(clicked.status).toBe(204);
    const clicks = async () =>
      readable(await server.api('GET', `/webhooks/${hook.id}/interactions`, { token: guild.owner.token })).body.map((c: any) => [c.user_id, c.values]);
    expect(await clicks()).toEqual([[leaving.id, ['mint']]]);
    await deleteAccount(leaving);

    const page = readable(await server.api('GET', `/channels/${guild.channelId}/messages`, { token: guild.owner.token }));
    const byId = new Map(page.body.map((m: any) => [m.id, m]));
    expect((byId.get(theirs.id) as any).author).toMatchObject({ id: leaving.id, username: 'Deleted User' });
    expect((byId.get(mention.id) as any).mentions).toMatchObject([{ id: leaving.id, username: 'Deleted User' }]);
    expect((byId.get(reply.id) as any).referenced_message).toMatchObject({ id: theirs.id, author: { username: 'Deleted User' } });
    expect(await clicks()).toEqual([[leaving.id, null]]);
    const entries = readable(await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=24`, { token: guild.owner.token })).body.audit_log_entries;
    expect(entries.map((e: any) => [e.target_id, e.changes ?? []])).toEqual([[leaving.id, []]]);
  });
});

describe('after all of that', () => {
  it('no erased text is anywhere in DATA_DIR', async () => {
    expect(erased.length).toBeGreaterThan(10);
    await eventually(async () => {
      for (const text of erased) expect({ text, files: await filesHolding(text) }).toEqual({ text, files: [] });
    }, SCRUB_MS + 3000);
  });

  it('a rebuild gives the read models incremental processing built', async () => {
    const collections = server.runtime.projections['projections'].flatMap((p: { collections: string[] }) => p.collections) as string[];
    const snapshot = async () =>
      Object.fromEntries(await Promise.all(collections.map(async (c) => [c, await server.runtime.readStore.find(c, {}, { sort: { _id: 1 } })])));
    const before = await snapshot();
    await server.runtime.projections.rebuild();
    expect(await snapshot()).toEqual(before);
  });

  it('the export succeeds and holds none of it', async () => {
    const { code, stdout, stderr } = await replayIn(dataDir, 'export');
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    for (const text of erased) expect(stdout).not.toContain(text);
  });
});
