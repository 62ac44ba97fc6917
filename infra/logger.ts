// Structured logs (pino). Authorization headers, tokens, passwords and secrets are redacted wherever they appear.
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', '*.authorization', '*.token', '*.password', '*.client_secret', '*.secret', 'token', 'password'],
      censor: '[redacted]',
    },
  });
}
