// The analysts' examples of docs/analysts.md, run as written against a real server: examples/analytics.py (python3, standard
// library only) and examples/analytics.mjs (node) read a guild's event stream, answer messages per channel per hour,
// moderation actions per moderator and join/leave churn, and a second run resumes from the position the first saved,
// counting nothing twice.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { type TestGuild, createGuild, newMember } from './guildSupport.js';

const server = await fileServer();
const dir = mkdtempSync(join(tmpdir(), 'parley-analytics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ca = join(dir, 'ca.crt');
writeFileSync(ca, server.cert);
const root = join(import.meta.dirname, '../..');

const SCRIPTS = {
  python: (args: string[]) => ['python3', [join(root, 'examples/analytics.py'), ...args]] as const,
  node: (args: string[]) => [process.execPath, [join(root, 'examples/analytics.mjs'), ...args]] as const,
};

async function run(script: keyof typeof SCRIPTS, guild: TestGuild, state: string) {
  const [command, args] = SCRIPTS[script](['--guild', guild.id, '--url', server.origin, '--ca', ca, '--state', state]);
  const { stdout } = await promisify(execFile)(command, [...args], { env: { PATH: process.env.PATH, PARLEY_TOKEN: guild.owner.token }, timeout: 60_000 });
  return JSON.parse(stdout) as { position: string; answers: Record<string, Record<string, Record<string, number>>> };
}

const send = (guild: TestGuild, content: string) =>
  server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content } }).then((r) => expect(r.status).toBe(200));

describe.each(['python', 'node'] as const)('examples/analytics (%s)', (script) => {
  it('answers messages per channel per hour, moderation per moderator and churn, then resumes without counting twice', async () => {
    const guild = await createGuild(server);
    const [banned, kicked] = [await newMember(server, guild), await newMember(server, guild)];
    await send(guild, 'one');
    await send(guild, 'two');
    expect((await server.api('PUT', `/guilds/${guild.id}/bans/${banned.id}`, { token: guild.owner.token, body: {} })).status).toBe(204);
    const state = join(dir, `${script}-${guild.id}.json`);

    const first = await run(script, guild, state);
    const hours = first.answers.messages_per_channel_hour[guild.channelId];
    expect(Object.values(hours).reduce((a, b) => a + b, 0)).toBe(2);
    expect(Object.keys(hours)[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00Z$/);
    expect(first.answers.moderation_per_moderator).toEqual({ [guild.owner.id]: { MemberBanned: 1 } });
    const [day] = Object.keys(first.answers.churn_per_day);
    // The owner joins with the guild, the two members through the invite; the ban is one leave.
    expect(first.answers.churn_per_day[day]).toEqual({ joined: 3, left: 1 });

    await send(guild, 'three');
    expect((await server.api('DELETE', `/guilds/${guild.id}/members/${kicked.id}`, { token: guild.owner.token })).status).toBe(204);
    const second = await run(script, guild, state);
    expect(second.position).not.toBe(first.position);
    expect(Object.values(second.answers.messages_per_channel_hour[guild.channelId]).reduce((a, b) => a + b, 0)).toBe(3);
    expect(second.answers.moderation_per_moderator).toEqual({ [guild.owner.id]: { MemberBanned: 1, MemberKicked: 1 } });
    expect(
      Object.values(second.answers.churn_per_day).reduce((all, d) => ({ joined: all.joined + (d.joined ?? 0), left: all.left + (d.left ?? 0) }), {
        joined: 0,
        left: 0,
      }),
    ).toEqual({
      joined: 3,
      left: 2,
    });
  });
});
