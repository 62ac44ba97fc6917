// A client-library bot run as its own process, as bot developers run theirs. It reports what it sees as JSON lines
// ({event, data}) on stdout, and its failures as "error" reports; the compatibility tests wait for reports, each wait
// bounded and cut short when the bot reports an error or exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll } from 'vitest';

export interface Report {
  event: string;
  data: any;
}

export interface BotProcess {
  child: ChildProcess;
  reports: Report[];
  /** The first report of `event` that `matches`, waiting up to `timeoutMs` for it. */
  next(event: string, matches?: (data: any) => boolean, timeoutMs?: number): Promise<Report>;
  /** Everything the process wrote that is not a report (its library's log, tracebacks). */
  output(): string;
}

export function startBotProcess(command: string, args: string[], env: Record<string, string>): BotProcess {
  const reports: Report[] = [];
  const waiters = new Set<() => void>();
  let log = '';
  let exit = '';
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const wake = () => waiters.forEach((waiter) => waiter());
  let buffered = '';
  child.stdout!.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      try {
        reports.push(JSON.parse(line) as Report);
      } catch {
        log += `${line}\n`;
      }
    }
    wake();
  });
  child.stderr!.on('data', (chunk) => (log += chunk));
  child.on('exit', (code, signal) => {
    exit = `exited with ${signal ?? code}`;
    wake();
  });

  function next(event: string, matches: (data: any) => boolean = () => true, timeoutMs = 15_000) {
    return new Promise<Report>((resolve, reject) => {
      const fail = (why: string) => {
        waiters.delete(check);
        clearTimeout(timer);
        reject(new Error(`${why}; reports ${JSON.stringify(reports)}; output:\n${log}`));
      };
      const check = () => {
        const found = reports.find((r) => r.event === event && matches(r.data));
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        } else if (reports.some((r) => r.event === 'error')) fail(`no ${event} from the bot, which reported an error`);
        else if (exit) fail(`no ${event} from the bot, which ${exit}`);
      };
      const timer = setTimeout(() => fail(`no ${event} from the bot within ${timeoutMs} ms`), timeoutMs);
      waiters.add(check);
      check();
    });
  }

  return { child, reports, next, output: () => log };
}

/** Bot processes for one test file: each one started through it is killed after the file's tests. */
export function killedAfterAll() {
  const started: BotProcess[] = [];
  afterAll(() => started.forEach((bot) => bot.child.kill('SIGKILL')));
  return {
    start(command: string, args: string[], env: Record<string, string>): BotProcess {
      const bot = startBotProcess(command, args, env);
      started.push(bot);
      return bot;
    },
  };
}
