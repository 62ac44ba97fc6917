// An engine out of reach while the gateway derives an acknowledged message's dispatch (in the distributed mode, the
// log's PostgreSQL restarting as a gateway node looks up who may see the channel): the gateway waits the outage out
// and the session still receives the message, rather than the dispatch being logged as failed and lost to every
// session. The outage is the error node-postgres gives for a server shutting down, raised where the gateway looks the
// guild up; everything else is the real server, API and WebSocket.
import { afterEach, expect, it, vi } from 'vitest';
import { createGuild } from '../http/guildSupport.js';
import { fileGateway } from '../support/gateway.js';
import { registerUser } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;
const MESSAGE_CONTENT = 1 << 15;

const { server, gateway } = await fileGateway();

afterEach(() => {
  vi.restoreAllMocks();
});

/** PostgreSQL's own error for a connection it ends as it shuts down (SQLSTATE 57P01), as node-postgres raises it. */
function shuttingDown(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' });
}

it('a dispatch whose audience cannot be looked up for now is sent once the engine is back, once', async () => {
  const owner = await registerUser(server);
  const guild = await createGuild(server, owner);
  const client = await gateway.connect();
  await client.identify(owner.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
  await client.dispatch('GUILD_CREATE');

  // The gateway's look-ups of the guild (one per event, shared by the message's members and the channel's viewers,
  // gateway/eventLoads.ts) fail three times, then succeed: a failed look-up is not kept, the step run again loads again.
  // The API's own look-ups for the send are left alone.
  const { commands } = server.runtime;
  const load = commands.load.bind(commands);
  let failures = 3;
  const looksUp = vi.spyOn(commands, 'load').mockImplementation((...args: Parameters<typeof load>) => {
    if (failures > 0 && new Error().stack?.includes('gateway/eventLoads.ts')) {
      failures -= 1;
      return Promise.reject(shuttingDown());
    }
    return load(...args);
  });

  const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: owner.token, body: { content: 'during the outage' } });
  expect(sent.status, sent.text).toBe(200);
  const created = await client.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === sent.body.id, 30_000);
  expect(created.d.content).toBe('during the outage');
  expect(failures).toBe(0);
  looksUp.mockRestore();

  // Nothing went out twice: the next message's dispatch follows the first one's at once.
  const next = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: owner.token, body: { content: 'after it' } });
  await client.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === next.body.id);
  const createdIds = client.received.filter((p) => p.t === 'MESSAGE_CREATE').map((p) => p.d.id);
  expect(createdIds).toEqual([sent.body.id, next.body.id]);
});
