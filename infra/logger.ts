// Structured logs (pino). Authorization headers, tokens, passwords and secrets are redacted wherever they appear.
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  // Written synchronously: an asynchronous destination is flushed at exit by a loop that retries a write to a closed
  // pipe forever (sonic-boom), so a process whose log reader had gone never exited on SIGTERM. Parley logs little
  // (start, stop, failures, deliveries), never per request.
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', '*.authorization', '*.token', '*.password', '*.client_secret', '*.secret', 'token', 'password'],
        censor: '[redacted]',
      },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}
