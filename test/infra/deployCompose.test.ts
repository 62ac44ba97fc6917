// deploy/compose.yaml as Docker Compose reads it (YAML merge keys, ${VAR:-default} from deploy/.env), checked without
// Docker: every role that serves clients starts with its environment (it would refuse an address no client can reach),
// the URLs it advertises lead to a published port of a node that serves them, and an api node with that environment
// answers GET /gateway with the gateway's address, over HTTPS.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from '../../infra/compose.js';
import { loadConfig } from '../../infra/config.js';
import { type Role, loadEngineConfig } from '../../infra/engines.js';
import { createLogger } from '../../infra/logger.js';
import { EMBEDDED, checkAdvertisedUrls, runsGateway, servesHttp } from '../../infra/roles.js';
import { gatewayUrl } from '../../presenters/urls.js';

interface Service {
  environment?: Record<string, string>;
  ports?: string[];
}

/** Compose's interpolation: ${NAME}, ${NAME:-default} and ${NAME:?error}, from the variables of deploy/.env. */
function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind: string | undefined, rest: string) => {
    if (variables[name]) return variables[name];
    if (kind === '?') throw new Error(`compose refuses: ${rest}`);
    return kind === '-' ? rest : '';
  });
}

function services(variables: Record<string, string>): Record<string, Service> {
  const file = parse(readFileSync(join(import.meta.dirname, '../../deploy/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
  return Object.fromEntries(
    Object.entries(file.services).map(([name, service]) => [
      name,
      { ...service, environment: Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), variables)])) },
    ]),
  );
}

const keys = { PARLEY_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'), PARLEY_MASTER_KEY: Buffer.alloc(32, 2).toString('base64') };

/** The Parley services, with their role, their configuration as it loads, and the host port they publish 8443 on. */
function parleyNodes(variables: Record<string, string>) {
  return Object.entries(services(variables))
    .filter(([, service]) => service.environment?.ROLE)
    .map(([name, service]) => {
      const env = service.environment!;
      const published = (service.ports ?? []).find((port) => port.endsWith(':8443'))?.split(':')[0] ?? null;
      return { name, env, role: env.ROLE as Role, config: loadConfig(env), published };
    });
}

describe('deploy/compose.yaml', () => {
  const nodes = parleyNodes(keys);

  it('every node loads its engine settings and starts with the addresses it advertises', () => {
    expect(nodes.map((node) => node.role).sort()).toEqual(['api', 'api', 'delivery', 'gateway', 'gateway', 'projector', 'relay']);
    for (const node of nodes) {
      expect(() => loadEngineConfig(node.env), node.name).not.toThrow();
      expect(() => checkAdvertisedUrls(node.role, node.config, node.env), node.name).not.toThrow();
    }
  });

  it('asks no more copies of a partition than there are brokers', () => {
    const brokers = Object.keys(services(keys)).filter((name) => name.startsWith('kafka')).length;
    for (const node of nodes) {
      const { bus } = loadEngineConfig(node.env);
      expect(bus.kind === 'kafka' && bus.replicationFactor <= brokers && bus.minInsyncReplicas <= bus.replicationFactor, node.name).toBe(true);
    }
  });

  it('sends clients to published ports: the API to an api node, the gateway to a gateway node, a session back to its own node', () => {
    const byPort = (url: string) => nodes.find((node) => node.published === new URL(url).port);
    for (const node of nodes.filter((n) => servesHttp(n.role))) {
      const base = new URL(node.config.publicBaseUrl);
      expect(base.hostname, node.name).toBe('localhost');
      expect(byPort(node.config.publicBaseUrl)?.role, `${node.name}: PUBLIC_BASE_URL`).toBe('api');
      const gateway = gatewayUrl(node.config);
      expect(gateway, node.name).toMatch(/^wss:\/\/localhost:\d+\/gateway$/);
      expect(runsGateway(byPort(gateway)!.role), `${node.name}: GATEWAY_URL`).toBe(true);
      // READY's resume_gateway_url: where the session's RESUME state lives.
      if (runsGateway(node.role)) expect(byPort(gateway)?.name).toBe(node.name);
    }
  });

  it('takes the addresses of a load balancer from deploy/.env', () => {
    const behind = parleyNodes({ ...keys, PARLEY_PUBLIC_BASE_URL: 'https://chat.example', PARLEY_GATEWAY_URL: 'wss://gateway.chat.example' });
    const api = behind.find((node) => node.role === 'api')!;
    expect(api.config.publicBaseUrl).toBe('https://chat.example');
    expect(gatewayUrl(api.config)).toBe('wss://gateway.chat.example');
  });

  it('an api node with its environment answers GET /gateway with the gateway’s address', async () => {
    const node = nodes.find((n) => n.name === 'api-1')!;
    const dir = mkdtempSync(join(tmpdir(), 'parley-deploy-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    // Its environment, on the embedded engines and a loopback port: what it answers does not depend on them.
    const config = loadConfig({ ...node.env, DATA_DIR: dir, HOST: '127.0.0.1', PORT: '0' });
    const composition = await compose(config, { ...EMBEDDED, role: 'api', settleTimeoutMs: 50 }, createLogger('silent'));
    const dispatcher = new Agent({ connect: { ca: composition.http!.cert!, servername: 'localhost' } });
    try {
      for (const version of ['v10', 'v1']) {
        const response = await request(`https://127.0.0.1:${composition.http!.port}/api/${version}/gateway`, { dispatcher });
        expect(await response.body.json()).toEqual({ url: 'wss://localhost:8445/gateway' });
      }
    } finally {
      await composition.close();
      await dispatcher.close();
    }
  });
});
