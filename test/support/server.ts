// Starts the real service through the composition root (compose() on the embedded engines, role all: HTTPS on an
// ephemeral port with the gateway and the delivery worker, fresh DATA_DIR) and gives tests an HTTP client that trusts
// its self-signed certificate.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, expect } from 'vitest';
import { type Composition, compose } from '../../infra/compose.js';
import { loadConfig } from '../../infra/config.js';
import type { EngineConfig } from '../../infra/engines.js';
import { createLogger } from '../../infra/logger.js';
import { EMBEDDED } from '../../infra/roles.js';
import type { Runtime } from '../../infra/runtime.js';
import { type Position, type RecordedEvent, comparePositions } from '../../ports/eventStore.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  /** "Bot" or "Bearer"; defaults to Bearer. */
  scheme?: 'Bot' | 'Bearer';
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestServer {
  origin: string;
  /** Calls {origin}/api/v1{path}. */
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** Calls {origin}{path}. */
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  runtime: Runtime;
  /** The WebSocket gateway, for tests that act on live sessions (drop a connection). */
  gateway: Composition['gateway'];
  /** The attachment remover, for tests that stop it. */
  remover: Composition['remover'];
  dispatcher: Agent;
  cert: string;
  dataDir: string;
  close(): Promise<void>;
}

/** An HTTP client of a server at `origin` (in this process or another): {origin}{path}, and the API under /api/v1. */
export function apiClient(origin: string, dispatcher: Agent): Pick<TestServer, 'api' | 'call'> {
  async function call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `${options.scheme ?? 'Bearer'} ${options.token}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await request(`${origin}${path}`, { method: method as 'GET', headers, body, dispatcher });
    const text = await response.body.text();
    const type = String(response.headers['content-type'] ?? '');
    return { status: response.statusCode, headers: response.headers, text, body: type.startsWith('application/json') && text ? JSON.parse(text) : text };
  }

  return { api: (method, path, options) => call(method, `/api/v1${path}`, options), call };
}

/** `engines`: what the server runs on (the embedded engines unless a test names shared ones, such as PostgreSQL's). */
export async function startTestServer(env: Record<string, string> = {}, dataDir?: string, engines: EngineConfig = EMBEDDED): Promise<TestServer> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'parley-test-')));
  // PORT may be given, for a test whose settings must name the port before the server starts. Admission keeps its fixed
  // ceiling unless a test asks for the adaptive limit (test/http/admission.test.ts): the suite's bursts of a hundred
  // requests, on a machine loaded by the other test files, would otherwise be refused in part, as they should be.
  const config = loadConfig({ PORT: '0', ADMISSION_TARGET_MS: '0', ...env, DATA_DIR: dir, HOST: '127.0.0.1' });
  const composition = await compose(config, engines, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
  const { runtime } = composition;
  const server = composition.http!;
  const origin = `https://127.0.0.1:${server.port}`;
  runtime.config.publicBaseUrl = origin;
  const dispatcher = new Agent({ connect: { ca: server.cert!, servername: 'localhost' } });

  return {
    origin,
    ...apiClient(origin, dispatcher),
    runtime,
    gateway: composition.gateway,
    remover: composition.remover,
    dispatcher,
    cert: server.cert!,
    dataDir: dir,
    async close() {
      await composition.close();
      await dispatcher.close();
      if (!dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The real server for one test file: started when the file loads, closed after its tests. */
export async function fileServer(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer(env);
  afterAll(() => server.close());
  return server;
}

let counter = 0;
/** A unique name per call, so tests never collide on usernames. */
export function uniqueName(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${process.pid}x${counter}`;
}

export interface TestUser {
  id: string;
  token: string;
  username: string;
}

export async function registerUser(server: Pick<TestServer, 'api'>, username = uniqueName()): Promise<TestUser> {
  const response = await server.api('POST', '/auth/register', { body: { username, password: 'correct horse battery' } });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${response.text}`);
  return { id: response.body.user_id, token: response.body.token, username };
}

export interface TestBot extends TestUser {
  applicationId: string;
  owner: TestUser;
}

export async function createBot(server: Pick<TestServer, 'api'>, owner?: TestUser, name = uniqueName('bot')): Promise<TestBot> {
  const person = owner ?? (await registerUser(server));
  const app = await server.api('POST', '/applications', { token: person.token, body: { name } });
  if (app.status !== 201) throw new Error(`application failed: ${app.status} ${app.text}`);
  const bot = await server.api('POST', `/applications/${app.body.id}/bot`, { token: person.token });
  if (bot.status !== 201) throw new Error(`bot failed: ${bot.status} ${bot.text}`);
  return { id: bot.body.id, token: bot.body.token, username: name, applicationId: app.body.id, owner: person };
}

/**
 * The events requests appended since `before`. The service's own work may append meanwhile (an earlier interaction's
 * 3-second deadline): events no request caused carry neither an actor nor a request's id, and are left out.
 */
export async function appendedByRequestsSince(server: Pick<TestServer, 'runtime'>, before: Position | null) {
  const since = await server.runtime.store.readAll(before ? { fromPosition: before } : {});
  return since.filter(
    (event) => (!before || comparePositions(event.position, before) > 0) && (event.metadata.actorId !== null || event.metadata.correlationId !== undefined),
  );
}

/** An event as the tests compare it: its stream, type and data. */
export const streamTypeData = (event: RecordedEvent) => ({ stream: event.streamId, type: event.type, data: event.data });

/** The response, and the events `request` appended. */
export async function appendedBy(server: Pick<TestServer, 'runtime'>, request: () => Promise<ApiResponse>) {
  const before = await server.runtime.store.headPosition();
  const response = await request();
  return { response, appended: await appendedByRequestsSince(server, before) };
}

export async function expectNothingAppendedSince(server: Pick<TestServer, 'runtime'>, before: Position | null) {
  expect(await appendedByRequestsSince(server, before)).toEqual([]);
}
