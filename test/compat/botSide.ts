// The bot processes' side of botProcess.ts: a report is one JSON line on stdout, the client's errors are reported,
// SIGTERM ends the bot as a supervisor would, and the bot logs in with BOT_TOKEN.
import type { Client } from 'discord.js';

export const report = (event: string, data: unknown) => process.stdout.write(`${JSON.stringify({ event, data })}\n`);

/** An async handler as a listener: discord.js does not wait for a listener, so its failure is reported here. */
export const listener =
  <Args extends unknown[]>(handle: (...args: Args) => Promise<unknown>) =>
  (...args: Args): void =>
    void handle(...args).catch((error: unknown) => report('error', String(error)));

/** Reports the client's errors, destroys it on SIGTERM, and logs it in. */
export async function run(client: Client): Promise<void> {
  client.on('error', (error) => report('error', String(error)));
  process.on('SIGTERM', () => {
    void client.destroy().finally(() => process.exit(0));
  });
  await client.login(process.env.BOT_TOKEN);
}
