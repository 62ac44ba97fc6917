// Helpers for the guild-side HTTP tests: a guild with members who joined through an invite, and error assertions.
import { expect } from 'vitest';
import { type ApiResponse, type TestServer, type TestUser, expectNothingAppendedSince, registerUser } from '../support/server.js';

export interface TestGuild {
  id: string;
  owner: TestUser;
  /** The #general channel made with the guild. */
  channelId: string;
  /** An unlimited invite members join through. */
  code: string;
}

export function expectError(response: ApiResponse, status: number, code: string | number) {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
}

export async function createGuild(server: Pick<TestServer, 'api'>, owner?: TestUser, name = 'Test Guild'): Promise<TestGuild> {
  const user = owner ?? (await registerUser(server));
  const guild = await server.api('POST', '/guilds', { token: user.token, body: { name } });
  if (guild.status !== 201) throw new Error(`guild failed: ${guild.status} ${guild.text}`);
  const invite = await server.api('POST', `/guilds/${guild.body.id}/invites`, { token: user.token, body: { max_age: 0, unique: true } });
  if (invite.status !== 200) throw new Error(`invite failed: ${invite.status} ${invite.text}`);
  return { id: guild.body.id, owner: user, channelId: guild.body.system_channel_id, code: invite.body.code };
}

/** Accepts the guild's invite as `user` (a session, or a bot with scheme "Bot"). */
export async function join(server: Pick<TestServer, 'api'>, guild: TestGuild, user: TestUser, scheme: 'Bot' | 'Bearer' = 'Bearer') {
  const response = await server.api('POST', `/invites/${guild.code}`, { token: user.token, scheme });
  if (response.status !== 200) throw new Error(`join failed: ${response.status} ${response.text}`);
  return user;
}

export async function newMember(server: Pick<TestServer, 'api'>, guild: TestGuild): Promise<TestUser> {
  return join(server, guild, await registerUser(server));
}

/** A role made by the owner and given to `member`. */
export async function grantRole(server: TestServer, guild: TestGuild, member: TestUser, permissions: bigint, name = 'role'): Promise<string> {
  const role = await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name, permissions: permissions.toString() } });
  if (role.status !== 200) throw new Error(`role failed: ${role.status} ${role.text}`);
  const put = await server.api('PUT', `/guilds/${guild.id}/members/${member.id}/roles/${role.body.id}`, { token: guild.owner.token });
  if (put.status !== 204) throw new Error(`role grant failed: ${put.status} ${put.text}`);
  return role.body.id;
}

/** Asserts that the request was refused as expected and that nothing was appended to the log. */
export async function expectRefusedWithoutEvents(server: TestServer, request: () => Promise<ApiResponse>, status: number, code: string | number) {
  const before = await server.runtime.store.headPosition();
  expectError(await request(), status, code);
  await expectNothingAppendedSince(server, before);
}

/**
 * A request slowmode held back: 429 with the seconds left of a `windowSeconds` window (some have passed since the
 * admitted one), per user, and nothing appended since `before`.
 */
export async function expectSlowmodeRefused(
  server: TestServer,
  response: ApiResponse,
  windowSeconds: number,
  before: Parameters<typeof expectNothingAppendedSince>[1],
) {
  expect(response.status).toBe(429);
  expect(response.body).toMatchObject({ code: 'SLOWMODE_RATE_LIMITED', message: 'This action cannot be performed due to slowmode rate limit.', global: false });
  expect(response.body.retry_after).toBeGreaterThan(windowSeconds * 0.8);
  expect(response.body.retry_after).toBeLessThanOrEqual(windowSeconds);
  expect(response.headers).toMatchObject({ 'retry-after': String(windowSeconds), 'x-ratelimit-scope': 'user' });
  await expectNothingAppendedSince(server, before);
}
