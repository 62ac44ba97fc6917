// A promise nobody awaited that fails (a bug, or an engine failing where no caller waits) would end the process with
// Node's default: every session of a gateway, every request under way, at once. It is logged instead; a distributed
// role, which a supervisor restarts from its checkpoints, ends through the graceful stop, as on a fatal error, while
// the embedded single process keeps serving.
import type { Logger } from '../ports/logger.js';
import type { Role } from './engines.js';
import { endsOnFatal } from './roles.js';

export function onUnhandledRejection(log: Pick<Logger, 'error'>, role: Role, stop: (signal: string, code: number) => unknown): (reason: unknown) => void {
  return (reason) => {
    log.error({ err: reason }, 'a failure nobody waited for');
    if (endsOnFatal(role)) void stop('unhandledRejection', 1);
  };
}
