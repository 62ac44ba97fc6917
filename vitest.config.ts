import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // vitest's default is one worker fewer than the CPUs: one on CI's 2 cores, while most files wait on servers,
    // sockets and child processes rather than compute.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
