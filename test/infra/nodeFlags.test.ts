// The V8 settings of infra/nodeFlags.ts are given on Node's command line: every way Parley's processes start passes them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../infra/nodeFlags.js';

const root = join(import.meta.dirname, '..', '..');

describe('the server processes run with the V8 settings of infra/nodeFlags.ts', () => {
  it('npm start and npm run replay pass them to node', async () => {
    const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const script of ['start', 'replay'])
      expect(scripts[script]).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} --import tsx infra/${script === 'start' ? 'main' : 'replay'}.ts`);
  });

  it("the image's CMD passes them to node", async () => {
    const dockerfile = await readFile(join(root, 'deploy', 'Dockerfile'), 'utf8');
    expect(/^CMD (.*)$/m.exec(dockerfile)?.[1]).toBe(JSON.stringify(['node', ...SERVER_NODE_FLAGS, 'dist/infra/main.js']).replaceAll(',', ', '));
  });
});
