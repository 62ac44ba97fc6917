// Each sealed field is sealed under the subject that owns it, and erasing one subject leaves every other's live data
// readable. An auto-moderation record seals what a member wrote under a key of the member and of the guild together
// (the guild's deletion or the member's takes it): that key is no one's profile key. A bot account has no profile key
// until something first shows its name, so a blocked send can be the first key it owns; its later messages elsewhere
// must still show its name once that guild is deleted. Read through the operator's export (the log as its keys open
// it) and a rebuild of the read models, which fold the log again.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayIn } from '../support/process.js';
import { type TestServer, createBot, registerUser, startTestServer } from '../support/server.js';
import { createGuild, join } from './guildSupport.js';

const dataDir = await mkdtemp(joinPath(tmpdir(), 'parley-shared-keys-'));
let server: TestServer = await startTestServer({}, dataDir);
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

const secret = (label: string) => `SECRET-${randomBytes(8).toString('hex')}-${label}`;

interface Exported {
  type: string;
  erased?: boolean;
  data: any;
}

async function exported(): Promise<Exported[]> {
  const { code, stdout, stderr } = await replayIn(dataDir, 'export');
  expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Exported);
}

const created = (events: Exported[], messageId: string) => events.find((e) => e.type === 'MessageCreated' && e.data.messageId === messageId)!;

describe('keys shared between subjects', () => {
  it('a guild’s deletion leaves a member it auto-moderated readable elsewhere; the member’s deletion leaves nothing of theirs readable', async () => {
    const owner = await registerUser(server);
    const member = await registerUser(server, `member${randomBytes(5).toString('hex')}`);
    const [moderated, elsewhere] = [await createGuild(server, owner), await createGuild(server, owner)];
    for (const guild of [moderated, elsewhere]) await join(server, guild, member);
    const alerts = (await server.api('POST', `/guilds/${moderated.id}/channels`, { token: owner.token, body: { name: 'alerts' } })).body.id;
    const word = secret('blocked').toLowerCase();
    const rule = await server.api('POST', `/guilds/${moderated.id}/auto-moderation/rules`, {
      token: owner.token,
      body: {
        name: 'No secrets',
        event_type: 1,
        trigger_type: 1,
        trigger_metadata: { keyword_filter: [word] },
        actions: [{ type: 1 }, { type: 2, metadata: { channel_id: alerts } }],
        enabled: true,
      },
    });
    expect(rule.status, rule.text).toBe(200);
    expect((await server.api('POST', `/channels/${moderated.channelId}/messages`, { token: member.token, body: { content: word } })).status).toBe(400);
    const dm = (await server.api('POST', '/users/@me/channels', { token: member.token, body: { recipient_id: owner.id } })).body.id;
    const [inDm, inGuild] = [secret('in-dm'), secret('in-guild')];
    const dmMessage = (await server.api('POST', `/channels/${dm}/messages`, { token: member.token, body: { content: inDm } })).body.id;
    const guildMessage = (await server.api('POST', `/channels/${elsewhere.channelId}/messages`, { token: member.token, body: { content: inGuild } })).body.id;
    expect((await server.api('DELETE', `/guilds/${moderated.id}`, { token: owner.token })).status).toBe(204);

    let events = await exported();
    const record = events.find((e) => e.type === 'AutoModerationActionExecuted' && e.data.execution.guildId === moderated.id)!;
    expect({ erased: record.erased, content: record.data.execution.content }).toEqual({ erased: true, content: null });
    for (const [id, content] of [
      [dmMessage, inDm],
      [guildMessage, inGuild],
    ]) {
      const message = created(events, id);
      expect({ erased: message.erased ?? false, author: message.data.message.author.username, content: message.data.message.content }).toEqual({
        erased: false,
        author: member.username,
        content,
      });
    }
    const registered = events.find((e) => e.type === 'UserRegistered' && e.data.userId === member.id)!;
    expect(registered.data.username).toBe(member.username);
    const profile = await server.api('GET', `/users/${member.id}`, { token: owner.token });
    expect(profile.body.username).toBe(member.username);

    expect((await server.api('POST', '/users/@me/delete', { token: member.token, body: { password: 'correct horse battery' } })).status).toBe(204);
    events = await exported();
    expect(JSON.stringify(events)).not.toContain(member.username);
    expect(created(events, guildMessage).data.message.author.username).toBeNull();
  });

  it('a guild’s deletion leaves the name of a bot it auto-moderated readable in its messages elsewhere', async () => {
    const owner = await registerUser(server);
    const [moderated, elsewhere] = [await createGuild(server, owner), await createGuild(server, owner)];
    const bot = await createBot(server, owner);
    for (const guild of [moderated, elsewhere]) await join(server, guild, bot, 'Bot');
    const word = secret('blocked').toLowerCase();
    const rule = await server.api('POST', `/guilds/${moderated.id}/auto-moderation/rules`, {
      token: owner.token,
      body: { name: 'No secrets', event_type: 1, trigger_type: 1, trigger_metadata: { keyword_filter: [word] }, actions: [{ type: 1 }], enabled: true },
    });
    expect(rule.status, rule.text).toBe(200);
    const blocked = await server.api('POST', `/channels/${moderated.channelId}/messages`, { token: bot.token, scheme: 'Bot', body: { content: word } });
    expect(blocked.status, blocked.text).toBe(400);
    // Any erasure: the shredder records the record's key owners, and the processes' key caches start again.
    const passing = await server.api('POST', `/channels/${elsewhere.channelId}/messages`, { token: owner.token, body: { content: 'soon gone' } });
    expect((await server.api('DELETE', `/channels/${elsewhere.channelId}/messages/${passing.body.id}`, { token: owner.token })).status).toBe(204);

    const kept = await server.api('POST', `/channels/${elsewhere.channelId}/messages`, { token: bot.token, scheme: 'Bot', body: { content: 'still mine' } });
    expect(kept.status, kept.text).toBe(200);
    expect((await server.api('DELETE', `/guilds/${moderated.id}`, { token: owner.token })).status).toBe(204);

    const events = await exported();
    // The record itself is gone with the guild; the bot's name in the other guild's message is not.
    const record = events.find((e) => e.type === 'AutoModerationActionExecuted' && e.data.execution.guildId === moderated.id)!;
    expect({ erased: record.erased, content: record.data.execution.content }).toEqual({ erased: true, content: null });
    const message = created(events, kept.body.id);
    expect({ erased: message.erased ?? false, author: message.data.message.author.username, content: message.data.message.content }).toEqual({
      erased: false,
      author: bot.username,
      content: 'still mine',
    });
    // A rebuild folds the log again: the message reads as it did.
    await server.close();
    const rebuilt = await replayIn(dataDir, 'rebuild');
    expect({ code: rebuilt.code, stderr: rebuilt.code === 0 ? '' : rebuilt.stderr }).toEqual({ code: 0, stderr: '' });
    server = await startTestServer({}, dataDir);
    const read = await server.api('GET', `/channels/${elsewhere.channelId}/messages/${kept.body.id}`, { token: owner.token });
    expect(read.body.author).toMatchObject({ id: bot.id, username: bot.username });
  });
});
