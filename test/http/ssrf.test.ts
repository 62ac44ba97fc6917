// interaction_url against SSRF through the real HTTPS API: every spelling of a loopback, private, link-local,
// unspecified or metadata address is refused on create and on both PATCH routes with 400 INVALID_FORM_BODY at
// interaction_url, appending nothing and leaving the webhook as it was; INTERACTIONS_ALLOW_PRIVATE lets them through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type TestServer, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild, expectRefusedWithoutEvents } from './guildSupport.js';

let server: TestServer;
let guild: TestGuild;
beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server);
});
afterAll(async () => {
  await server.close();
});

/** Public literals need no DNS (this machine has no outside network) and nothing ever connects to them here. */
const PUBLIC_URL = 'https://93.184.215.14/interactions';

const REFUSED = [
  'https://[::1]/',
  'https://[::]/',
  // A URL serializes this as [::7f00:1], the deprecated IPv4-compatible form that ipaddr.js files under unicast.
  'https://[::127.0.0.1]/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:a9fe:a9fe]/latest/meta-data/',
  'https://[::a9fe:a9fe]/latest/meta-data/',
  'https://[fe80::1]/',
  'https://[fc00::1]/',
  'https://[64:ff9b::a9fe:a9fe]/',
  'https://127.1/',
  'https://0x7f000001/',
  'https://2130706433/',
  'https://017700000001/',
  'https://0.0.0.0/',
  'https://localhost:8443/hook',
  'https://10.0.0.1/',
  'https://100.64.0.1/',
  'https://169.254.169.254/latest/meta-data/',
];

async function createWebhook(body: Record<string, unknown>) {
  return server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body });
}

async function expectRefusedAtInteractionUrl(request: () => Promise<ApiResponse>, url: string) {
  let response: ApiResponse | undefined;
  await expectRefusedWithoutEvents(server, async () => (response = await request()), 400, 'INVALID_FORM_BODY');
  expect(response?.body.errors, url).toEqual([expect.objectContaining({ path: 'interaction_url' })]);
}

describe('interaction_url (SSRF)', () => {
  it('refuses every spelling of a non-public address on create', async () => {
    for (const url of REFUSED) {
      await expectRefusedAtInteractionUrl(() => createWebhook({ name: 'ssrf', interaction_url: url }), url);
    }
    expect((await server.api('GET', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token })).body).toEqual([]);
  });

  it('refuses them on both PATCH routes without changing the webhook', async () => {
    const created = await createWebhook({ name: 'Hook', interaction_url: PUBLIC_URL });
    expect(created.status).toBe(200);
    const { id, token } = created.body;
    const stored = async () => (await server.api('GET', `/webhooks/${id}`, { token: guild.owner.token })).body;
    const before = await stored();
    expect(before.interaction_url).toBe(PUBLIC_URL);
    for (const url of REFUSED) {
      const body = { name: 'Renamed', interaction_url: url };
      await expectRefusedAtInteractionUrl(() => server.api('PATCH', `/webhooks/${id}`, { token: guild.owner.token, body }), url);
      await expectRefusedAtInteractionUrl(() => server.api('PATCH', `/webhooks/${id}/${token}`, { body }), url);
    }
    expect(await stored()).toEqual(before);
    // The same route takes a public address: the refusals above were for the address alone.
    const moved = await server.api('PATCH', `/webhooks/${id}/${token}`, { body: { interaction_url: 'https://[2606:4700:4700::1111]/i' } });
    expect(moved.status).toBe(200);
    expect(moved.body.interaction_url).toBe('https://[2606:4700:4700::1111]/i');
  });

  it('accepts them when INTERACTIONS_ALLOW_PRIVATE is set (development)', async () => {
    const dev = await startTestServer({ INTERACTIONS_ALLOW_PRIVATE: '1' });
    try {
      const devGuild = await createGuild(dev);
      for (const url of ['https://[::127.0.0.1]/', 'https://127.1/', 'https://169.254.169.254/']) {
        const response = await dev.api('POST', `/channels/${devGuild.channelId}/webhooks`, {
          token: devGuild.owner.token,
          body: { name: 'dev', interaction_url: url },
        });
        expect(response.status, url).toBe(200);
        expect(response.body.interaction_url).toBe(url);
      }
    } finally {
      await dev.close();
    }
  });
});
