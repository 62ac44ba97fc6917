// What operators watch: /healthz, /readyz (projection lag), /metrics in Prometheus format behind METRICS_TOKEN, and
// request ids that a client or proxy may set, answered back and carried into the events' metadata.
import { describe, expect, it } from 'vitest';
import { connectGateway } from '../support/gateway.js';
import { fileServer } from '../support/server.js';
import { createGuild } from './guildSupport.js';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const server = await fileServer({ METRICS_TOKEN });
const guild = await createGuild(server);

const scrape = async () => (await server.call('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text;
/** The value of the first sample whose line starts with `series`. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
}

describe('probes', () => {
  it('/healthz answers ok, /readyz ready with the projection lag', async () => {
    expect((await server.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await server.call('GET', '/readyz');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready', projection_lag: 0 }]);
  });
});

describe('/metrics', () => {
  it('asks for METRICS_TOKEN', async () => {
    expect((await server.call('GET', '/metrics')).status).toBe(401);
    expect((await server.call('GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('shows requests by route and status, group commits, projection lag, gateway sessions and dispatches moving', async () => {
    const gateway = await connectGateway(server);
    await gateway.identify(guild.owner.token, (1 << 0) | (1 << 9));
    const series = 'parley_http_request_duration_seconds_count{method="POST",route="/channels/:channelId/messages",status="200"}';
    const before = await scrape();
    for (let i = 0; i < 5; i++)
      expect((await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: `m${i}` } })).status).toBe(200);
    await gateway.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'm4');
    const after = await scrape();
    expect(sample(after, series) - (sample(before, series) || 0)).toBe(5);
    expect(sample(after, 'parley_log_commit_seconds_count')).toBeGreaterThan(sample(before, 'parley_log_commit_seconds_count'));
    expect(sample(after, 'parley_log_events_appended_total')).toBeGreaterThanOrEqual(sample(before, 'parley_log_events_appended_total') + 5);
    expect(sample(after, 'parley_projection_lag_events{projector="messages"}')).toBe(0);
    expect(sample(after, 'parley_gateway_sessions')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'parley_gateway_dispatches_total')).toBeGreaterThanOrEqual(sample(before, 'parley_gateway_dispatches_total') + 5);
    expect(after).toMatch(/^parley_process_resident_memory_bytes \d+/m);
    // A refusal is counted with its status, under its route.
    await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: {} });
    expect(sample(await scrape(), 'parley_http_request_duration_seconds_count{method="POST",route="/channels/:channelId/messages",status="400"}')).toBe(1);
    gateway.close();
  });
});

describe('request ids', () => {
  it("a client's sane X-Request-Id is answered back and becomes the events' correlation id; anything else is replaced", async () => {
    const id = 'trace-0123456789abcdef';
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: guild.owner.token,
      body: { content: 'traced' },
      headers: { 'x-request-id': id },
    });
    expect(sent.headers['x-request-id']).toBe(id);
    const head = await server.runtime.store.headPosition();
    const [last] = await server.runtime.store.readAll({ fromPosition: head!, maxCount: 1 });
    expect(last.metadata.correlationId).toBe(id);
    const odd = await server.api('GET', '/gateway', { headers: { 'x-request-id': 'has spaces and\ttabs' } });
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
