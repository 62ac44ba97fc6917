// A deleted thread takes its messages with it, in the log too (as a deleted channel does): their keys are
// destroyed and their text is in no file of DATA_DIR, while the parent channel's messages stay readable.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventually } from '../contracts/eventually.js';
import { filesHolding } from '../support/files.js';
import { fileServer } from '../support/server.js';
import { createGuild } from './guildSupport.js';

const SCRUB_MS = 100;
const server = await fileServer({ READ_MODEL_SCRUB_MS: String(SCRUB_MS) });
const secret = (label: string) => `SECRET-${randomBytes(8).toString('hex')}-${label}`;

describe('a thread deleted', () => {
  it('leaves its messages’ text nowhere in DATA_DIR, and the parent’s where they were', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const [kept, gone] = [secret('parent'), secret('thread')];
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token, body: { name: 'doomed', type: 11 } });
    expect(thread.status).toBe(201);
    const send = (channelId: string, content: string) => server.api('POST', `/channels/${channelId}/messages`, { token, body: { content } });
    expect((await send(guild.channelId, kept)).status).toBe(200);
    expect((await send(thread.body.id, gone)).status).toBe(200);
    expect(await filesHolding(server.dataDir, gone)).not.toEqual([]);

    expect((await server.api('DELETE', `/channels/${thread.body.id}`, { token })).status).toBe(200);
    await eventually(async () => expect(await filesHolding(server.dataDir, gone)).toEqual([]), SCRUB_MS + 1500);
    expect(await filesHolding(server.dataDir, kept)).not.toEqual([]);
    const history = await server.api('GET', `/channels/${guild.channelId}/messages`, { token });
    expect(history.body.map((m: { content: string }) => m.content)).toContain(kept);
  });

  it('with its parent channel takes its messages’ text too, archived or not, with one audit entry for the channel', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const channel = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'doomed', type: 0 } });
    expect(channel.status).toBe(201);
    const texts = [secret('open'), secret('archived')];
    for (const [i, text] of texts.entries()) {
      const thread = await server.api('POST', `/channels/${channel.body.id}/threads`, { token, body: { name: `t${i}`, type: 11 } });
      expect(thread.status).toBe(201);
      expect((await server.api('POST', `/channels/${thread.body.id}/messages`, { token, body: { content: text } })).status).toBe(200);
      if (i === 1) expect((await server.api('PATCH', `/channels/${thread.body.id}`, { token, body: { archived: true } })).status).toBe(200);
    }
    for (const text of texts) expect(await filesHolding(server.dataDir, text)).not.toEqual([]);

    expect((await server.api('DELETE', `/channels/${channel.body.id}`, { token })).status).toBe(200);
    for (const text of texts) await eventually(async () => expect(await filesHolding(server.dataDir, text)).toEqual([]), SCRUB_MS + 1500);
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token });
    const actions = audit.body.audit_log_entries.map((e: { action_type: number }) => e.action_type);
    expect(actions.filter((a: number) => a === 12)).toHaveLength(1);
    expect(actions).not.toContain(112);
  });
});
