// What the core and the edges need of a logger: leveled, structured entries. infra/logger.ts's pino logger is the
// adapter; tests may pass anything with these methods.
export interface LogFn {
  (fields: object, message?: string): void;
  (message: string): void;
}

export interface Logger {
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
}
