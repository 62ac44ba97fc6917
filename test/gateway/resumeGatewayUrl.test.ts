// READY's resume_gateway_url with several gateway nodes behind one load balancer: a session's RESUME state lives in
// the node that holds it, so READY sends the client back to that node's own address (GATEWAY_NODE_URL) while
// GET /gateway keeps giving the shared one (GATEWAY_URL); a single node without one gives the shared address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../contracts/ports.js';
import { connectGateway } from '../support/gateway.js';
import { type TestServer, createBot, startTestServer } from '../support/server.js';

/** The load balancer's address: no test reaches it, which is the point. */
const SHARED = 'wss://gateway.chat.example/gateway';

describe('resume_gateway_url', () => {
  let node: TestServer;
  let nodeUrl: string;
  let single: TestServer;
  beforeAll(async () => {
    const port = await freePort();
    nodeUrl = `wss://127.0.0.1:${port}/gateway`;
    node = await startTestServer({ PORT: String(port), GATEWAY_URL: SHARED, GATEWAY_NODE_URL: nodeUrl });
    single = await startTestServer({ GATEWAY_URL: SHARED });
  });
  afterAll(async () => {
    await node?.close();
    await single?.close();
  });

  it('is the node’s own address when it has one, and a RESUME there finds the session', async () => {
    expect((await node.api('GET', '/gateway')).body.url).toBe(SHARED);
    const bot = await createBot(node);
    const client = await connectGateway(node);
    const ready = await client.identify(bot.token, 1);
    expect(ready.d.resume_gateway_url).toBe(nodeUrl);
    client.drop();
    await client.closed;

    // As clients do: the URL READY gave, with the version and encoding appended.
    const back = await connectGateway({ origin: ready.d.resume_gateway_url.replace(/^wss/, 'https').replace(/\/gateway$/, ''), cert: node.cert });
    back.send({ op: 6, d: { token: bot.token, session_id: ready.d.session_id, seq: client.lastSeq() } });
    await back.dispatch('RESUMED');
    back.close();
  });

  it('is the shared address on a node without one', async () => {
    const bot = await createBot(single);
    const client = await connectGateway(single);
    const ready = await client.identify(bot.token, 1);
    expect(ready.d.resume_gateway_url).toBe(SHARED);
    client.close();
  });
});
