import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // vitest's default is one worker fewer than the CPUs: one on CI's 2 cores, while most files wait on servers,
    // sockets and child processes rather than compute.
    maxWorkers: 2,
    // Outer bounds only, for a test that hangs: tests wait for the event they need (a line, a port, an exit), and a
    // loaded 2-core machine can take tens of seconds to start a server process that a quiet one starts in two.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
