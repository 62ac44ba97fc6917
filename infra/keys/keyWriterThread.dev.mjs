// The key writer thread's entry when Parley runs from its TypeScript sources (npm start, tests): a worker thread does
// not inherit the main thread's `--import tsx`, so it registers tsx itself before loading the thread's module.
import { register } from 'tsx/esm/api';

register();
await import('./keyWriterThread.ts');
