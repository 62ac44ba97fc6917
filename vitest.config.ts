import { defineConfig } from 'vitest/config';

/**
 * Files that run one after another in a worker that keeps its modules. Importing the service (infra/compose.ts and
 * the ~300 modules below it, through vite's module runner) costs a file several seconds of CPU, and an isolated
 * worker pays it for every file: most of the suite's time on a busy 2-core machine. These files hold no module state
 * of their own that outlives them (each starts and closes its own servers, spies on a server's own clock, or restores
 * what it spies on), and the service's module state is keyed by ids a fresh server makes. Left isolated: files that
 * mock modules (vi.mock), fake timers or spy on globals, handle the process's own signals and errors, spawn clusters,
 * browsers or containers, and those whose timing is what they measure (admission, benchmarks, chaos).
 */
const SHARED_DIRS = 'domain|specs|http|gateway|compat';
const KEPT_APART = ['test/http/admission*.test.ts', 'test/gateway/threadListSyncCost.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // vitest's default is one worker fewer than the CPUs: one on CI's 2 cores, while most files wait on servers,
    // sockets and child processes rather than compute.
    maxWorkers: 2,
    // Outer bounds only, for a test that hangs: tests wait for the event they need (a line, a port, an exit), and a
    // loaded 2-core machine can take tens of seconds to start a server process that a quiet one starts in two.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // The shared files run first, as a group of their own: a worker is kept for the next file only while the
        // next file queued is a shared one.
        test: { name: 'shared', include: [`test/@(${SHARED_DIRS})/**/*.test.ts`], exclude: KEPT_APART, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/*.test.ts', `test/!(${SHARED_DIRS})/**/*.test.ts`, ...KEPT_APART],
          isolate: true,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
