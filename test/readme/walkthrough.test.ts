// The README's first session, taken from the README itself (the sh block after <!-- walkthrough -->) and run with
// bash against a fresh server: every command must work as pasted, so the walk-through cannot rot.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';

const root = join(import.meta.dirname, '..', '..');
const server = await fileServer();

function walkthrough(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const match = /<!-- walkthrough -->\s*```sh\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('README.md has no sh block after <!-- walkthrough -->');
  return match[1];
}

describe("the README's walk-through", () => {
  it('runs as pasted: account, login, application, bot, guild, channel, invite, the bot joining, messages, a gateway session', async () => {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', walkthrough()], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PARLEY: server.origin, DATA_DIR: server.dataDir },
      timeout: 60_000,
    });
    expect(stderr).toBe('');
    const lines = stdout.trim().split('\n');
    expect(JSON.parse(lines[0])).toMatchObject({ user_id: expect.any(String), token: expect.any(String) });
    expect(JSON.parse(lines[1])).toMatchObject({ bot: true, username: 'Helper' });
    expect(lines.slice(2)).toEqual([
      'announcements',
      'Joined the guild',
      expect.stringMatching(/^\d+$/),
      'hello, bot',
      'Helper',
      'READY as Helper',
      'GUILD_CREATE Workshop #general #announcements',
    ]);
  });
});
