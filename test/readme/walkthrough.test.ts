// The README's first session, taken from the README itself (the sh block after <!-- walkthrough -->) and run with
// bash against a fresh server: every command must work as pasted, so the walk-through cannot rot. The same goes for
// docs/bots.md's block that invokes the demo bot's commands and clicks its button (<!-- demo-interactions -->), run
// after it with the demo (examples/bot.mjs) logged in as the session's bot.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fileServer, startTestServer } from '../support/server.js';

const root = join(import.meta.dirname, '..', '..');
const server = await fileServer();

/** The sh block of `file` (README.md, or a page of docs/) after `<!-- marker -->`. */
function block(file: string, marker: string): string {
  const text = readFileSync(join(root, file), 'utf8');
  const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!match) throw new Error(`${file} has no sh block after <!-- ${marker} -->`);
  return match[1];
}

describe("the README's walk-through", () => {
  it('runs as pasted: account, login, application, bot, guild, channel, invite, the bot joining, messages, a gateway session', async () => {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', block('README.md', 'walkthrough')], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PARLEY_ORIGIN: server.origin, DATA_DIR: server.dataDir },
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

  it('goes on with the demo bot: its slash commands invoked and its button clicked as docs/bots.md shows', async () => {
    const fresh = await startTestServer();
    const logs = mkdtempSync(join(tmpdir(), 'parley-demo-'));
    // docs/bots.md's start of the demo, with its log in a file to wait on, in a process group of its own (set -m) so
    // that npm and the bot under it stop with the script.
    const start = block('docs/bots.md', 'demo-start').trim().replace(/&$/, `> ${logs}/demo.log 2>&1 &`);
    const demo = `set -m; ${start} DEMO=$!; set +m; trap 'kill -- -$DEMO' EXIT\nuntil grep -qs registered ${logs}/demo.log; do kill -0 $DEMO; sleep 0.2; done`;
    try {
      const script = [block('README.md', 'walkthrough'), demo, block('docs/bots.md', 'demo-interactions')].join('\n');
      const { stdout, stderr } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PARLEY_ORIGIN: fresh.origin, DATA_DIR: fresh.dataDir },
        timeout: 90_000,
      });
      expect(stderr).toBe('');
      expect(stdout.trim().split('\n').slice(-4)).toEqual(['pong', 'Only you see this follow-up', 'Nobody pressed it yet', 'Pressed by ada']);
    } finally {
      rmSync(logs, { recursive: true, force: true });
      await fresh.close();
    }
  }, 120_000);
});
