// discord.js 14 against the test server, on REST only: its REST layer brings its own undici, whose Agent must trust
// the server's self-signed certificate; the client's user is fetched as READY would give it.
import { createRequire } from 'node:module';
import type { REST } from '@discordjs/rest';
import { Client, ClientUser } from 'discord.js';
import type { TestServer } from './server.js';

const require = createRequire(createRequire(import.meta.url).resolve('discord.js'));
const { Agent } = createRequire(require.resolve('@discordjs/rest'))('undici') as typeof import('undici');

export interface RestClient {
  client: Client;
  close(): Promise<void>;
}

/**
 * A discord.js client with the bot's token, its API and CDN at the server, unchanged otherwise; with `Bearer`, a
 * person's session token instead (discord.js's REST takes it as its authPrefix).
 */
export async function restClient(server: TestServer, token: string, authPrefix: 'Bot' | 'Bearer' = 'Bot'): Promise<RestClient> {
  const client = new Client({ intents: [], rest: { api: `${server.origin}/api`, cdn: server.origin, version: '1', retries: 0, authPrefix } });
  const agent = new Agent({ connect: { ca: server.cert, servername: 'localhost' } });
  client.rest.setAgent(agent as never);
  client.token = token;
  client.rest.setToken(token);
  const ReadyUser = ClientUser as unknown as new (client: Client, data: unknown) => ClientUser;
  client.user = new ReadyUser(client, await client.rest.get('/users/@me'));
  return {
    client,
    async close() {
      await client.destroy();
      await agent.close();
    },
  };
}

type RestDispatcher = Parameters<REST['setAgent']>[0];
const { Agent: RestAgent } = createRequire(createRequire(import.meta.url).resolve('@discordjs/rest'))('undici') as {
  Agent: new (options: { connect: { ca: string; servername: string } }) => RestDispatcher & { close(): Promise<void> };
};

/** An Agent of @discordjs/rest's own undici (the package the tests import), trusting the server's certificate. */
export function restAgent(server: Pick<TestServer, 'cert'>): RestDispatcher & { close(): Promise<void> } {
  return new RestAgent({ connect: { ca: server.cert, servername: 'localhost' } });
}
