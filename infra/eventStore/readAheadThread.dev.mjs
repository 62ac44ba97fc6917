// The read-ahead thread's entry when Parley runs from its TypeScript sources (npm run replay, tests, the bench): a
// worker thread does not inherit the main thread's `--import tsx`, so it registers tsx itself before loading the module.
import { register } from 'tsx/esm/api';

register();
await import('./readAheadThread.ts');
