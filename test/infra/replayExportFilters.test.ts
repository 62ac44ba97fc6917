// `replay export --guild ID --types A,B`, for real: the CLI as its own process on the embedded log of a server that
// handled real requests in two guilds, writing only the one guild's events of the types named.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFromJson } from '../../infra/eventStore/json.js';
import { replayIn } from '../support/process.js';
import { startTestServer } from '../support/server.js';
import { type TestGuild, createGuild } from '../http/guildSupport.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-export-filters-'));
let chosen: TestGuild;
let other: TestGuild;

beforeAll(async () => {
  const server = await startTestServer({}, dataDir);
  chosen = await createGuild(server, undefined, 'Chosen');
  other = await createGuild(server, undefined, 'Other');
  for (const [guild, content] of [
    [chosen, 'one'],
    [other, 'elsewhere'],
    [chosen, 'two'],
  ] as const) {
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content } });
    expect(sent.status).toBe(200);
  }
  await server.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('replay export filters', () => {
  it('writes one guild’s events of the types named, opened, and nothing else', async () => {
    const { code, stdout, stderr } = await replayIn(dataDir, 'export', '--guild', chosen.id, '--types', 'GuildCreated,MessageCreated');
    expect(code, stderr).toBe(0);
    const events = stdout.trim().split('\n').map(eventFromJson);
    expect(events.map((e) => [e.type, (e.data as { guildId: string }).guildId])).toEqual([
      ['GuildCreated', chosen.id],
      ['MessageCreated', chosen.id],
      ['MessageCreated', chosen.id],
    ]);
    expect(events.slice(1).map((e) => (e.data as { message: { content: string } }).message.content)).toEqual(['one', 'two']);
    expect(stderr).toContain('exported 3 events');
  });

  it('with --guild alone, every type of that guild and none of the other’s', async () => {
    const { code, stdout } = await replayIn(dataDir, 'export', '--guild', other.id);
    expect(code).toBe(0);
    const events = stdout.trim().split('\n').map(eventFromJson);
    expect(events.length).toBeGreaterThan(3);
    expect(stdout).not.toContain(chosen.id);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['GuildCreated', 'MemberJoined', 'MessageCreated']));
  });

  it('refuses a guild that is not an id, writing nothing', async () => {
    const { code, stdout, stderr } = await replayIn(dataDir, 'export', '--guild', 'general');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('--guild takes a guild');
  });
});
