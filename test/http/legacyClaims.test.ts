// Username and email claims over HTTPS on the real server: new ones are on streams named by a keyed hash, so
// events.db names no stream by a plain hash of a name or address; an account that an earlier version registered, with
// its claims on plain-SHA-256 streams (appended here as that version did), still holds its name and address, logs in,
// and renames, releasing its old claim where it is.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hashPassword, sha256 } from '../../ports/secrets.js';
import { fileServer, registerUser } from '../support/server.js';
import { expectRefusedWithoutEvents } from './guildSupport.js';
import { PASSWORD } from './oauth2Support.js';

const server = await fileServer();
const random = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;
const metadata = { actorId: null, createdAt: new Date().toISOString() };

/** The stream ids events.db holds, read from the file. */
function streamIds(): string[] {
  const db = new Database(join(server.dataDir, 'events.db'), { readonly: true });
  try {
    return (db.prepare('SELECT DISTINCT stream_id FROM events').all() as { stream_id: string }[]).map((row) => row.stream_id);
  } finally {
    db.close();
  }
}

const discriminatorOf = async (token: string) => (await server.api('GET', '/users/@me', { token })).body.discriminator as string;

describe('an account registered before claims were named by a keyed hash', async () => {
  const carol = await registerUser(server);
  const discriminator = await discriminatorOf(carol.token);
  // The earlier account has carol's discriminator, so that carol renaming to its name would prefer what it holds.
  const old = { id: server.runtime.ids.next(), username: random('legacy'), email: `${random('legacy')}@example.com` };
  const append = (stream: string, type: string, data: object) =>
    server.runtime.store.appendToStream(stream, [{ type, data, metadata }], { expectedRevision: 'any' });
  await append(`email-${sha256(old.email)}`, 'EmailClaimed', { emailHash: sha256(old.email), userId: old.id });
  await append(`username-${sha256(old.username)}`, 'DiscriminatorClaimed', { username: old.username, discriminator, userId: old.id });
  const registered = {
    userId: old.id,
    username: old.username,
    discriminator,
    email: old.email,
    passwordHash: await hashPassword(PASSWORD),
    bot: false,
    applicationId: null,
  };
  await server.runtime.settle((await append(`user-${old.id}`, 'UserRegistered', registered)).position);

  it('keeps its email: registering it again is refused, in any case, appending nothing', async () => {
    const again = () => server.api('POST', '/auth/register', { body: { username: random('other'), password: PASSWORD, email: old.email.toUpperCase() } });
    await expectRefusedWithoutEvents(server, again, 400, 'INVALID_FORM_BODY');
  });

  it('keeps its discriminator: someone renaming to its name gets another', async () => {
    const renamed = await server.api('PATCH', '/users/@me', { token: carol.token, body: { username: old.username } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.discriminator).not.toBe(discriminator);
  });

  it('logs in, and renames, giving its old name back on the old stream', async () => {
    const login = await server.api('POST', '/auth/login', { body: { login: old.email, password: PASSWORD } });
    expect(login.status).toBe(200);
    const renamed = await server.api('PATCH', '/users/@me', { token: login.body.token, body: { username: random('renamed') } });
    expect(renamed.status).toBe(200);
    const claims = await server.runtime.store.readStream(`username-${sha256(old.username)}`);
    expect(claims.map((e) => [e.type, e.data])).toEqual([
      ['DiscriminatorClaimed', { username: old.username, discriminator, userId: old.id }],
      ['DiscriminatorReleased', { username: old.username, discriminator, userId: old.id }],
    ]);
  });

  it('while new claims name no stream by a plain hash of the name or address', async () => {
    const username = random('fresh');
    const email = `${username}@example.com`;
    expect((await server.api('POST', '/auth/register', { body: { username, password: PASSWORD, email } })).status).toBe(201);
    const streams = streamIds();
    // The search finds plain hashes where there are some: the earlier version's.
    expect(streams).toContain(`email-${sha256(old.email)}`);
    expect(streams.filter((id) => id.includes(sha256(username)) || id.includes(sha256(email)))).toEqual([]);
    expect(streams.filter((id) => id.startsWith('username-') || id.startsWith('email-')).length).toBeGreaterThan(2);
  });
});
