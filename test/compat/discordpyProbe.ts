// Whether discord.py can be run here, for the discord.py suites. Debian's package installs for the system interpreter,
// not for a pyenv or venv python3 earlier on PATH. CI installs discord.py (.ci/run), so there a missing library fails
// the suite instead of skipping it.
import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

export const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import discord'], { encoding: 'utf8', timeout: 10_000 });
/** Why discord.py cannot run here, or null. */
export const missing = probe.status === 0 ? null : probe.error ? `${PYTHON} not found` : `no discord.py for ${PYTHON} (apt-get install python3-discord)`;

/** True, having declared `suite` skipped with the reason (and said so), when discord.py is missing outside CI. */
export function skippedWithoutDiscordPy(suite: string, test: string): boolean {
  if (!missing || process.env.CI) return false;
  const title = `${suite}: skipped, ${missing}`;
  console.warn(title);
  describe.skip(title, () => {
    it(test, () => {});
  });
  return true;
}
