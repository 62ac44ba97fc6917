// Text a request removed or replaced leaves the read models' files within READ_MODEL_SCRUB_MS (docs/privacy.md): a
// byte search of read-models.db, its WAL and its shared-memory index, over HTTPS on the real server. The event log
// (events.db) still keeps it until per-subject keys land, so it is not searched here.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../contracts/eventually.js';
import { fileServer, registerUser } from '../support/server.js';
import { PASSWORD } from './oauth2Support.js';

const SCRUB_MS = 100;
const server = await fileServer({ READ_MODEL_SCRUB_MS: String(SCRUB_MS) });
/** An outer bound only: the search passes as soon as the scrub has run, which a loaded machine's timers delay. */
const WITHIN = 60_000;

const FILES = ['read-models.db', 'read-models.db-wal', 'read-models.db-shm'];

/** The read models' files that hold `text`, as UTF-8 bytes. */
async function filesHolding(text: string): Promise<string[]> {
  const needle = Buffer.from(text);
  const held: string[] = [];
  for (const name of FILES) {
    const bytes = await readFile(join(server.dataDir, name)).catch(() => Buffer.alloc(0));
    if (bytes.includes(needle)) held.push(name);
  }
  return held;
}

/** The read models hold `text` once the projection has written it: a request is answered when its events are logged. */
const expectHeld = (text: string) => eventually(async () => expect(await filesHolding(text)).not.toEqual([]), WITHIN);
const expectGone = (text: string) => eventually(async () => expect(await filesHolding(text)).toEqual([]), WITHIN);
const random = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;

describe('the read models forget what a request removed or replaced', () => {
  it('a DM edited and then deleted: neither its first text nor its edit stays in read-models.db, its WAL or -shm', async () => {
    const [ada, bob] = [await registerUser(server), await registerUser(server)];
    const dm = await server.api('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bob.id } });
    const secret = `SECRET-${randomBytes(8).toString('hex')}-my-bank-pin`;
    const sent = await server.api('POST', `/channels/${dm.body.id}/messages`, { token: ada.token, body: { content: secret } });
    expect(sent.status).toBe(200);
    // The search finds what is there: the message's row holds it.
    await expectHeld(secret);

    const edited = await server.api('PATCH', `/channels/${dm.body.id}/messages/${sent.body.id}`, { token: ada.token, body: { content: 'edited away' } });
    expect(edited.status).toBe(200);
    await expectGone(secret);
    await expectHeld('edited away');

    expect((await server.api('DELETE', `/channels/${dm.body.id}/messages/${sent.body.id}`, { token: ada.token })).status).toBe(204);
    await expectGone('edited away');
  });

  it('a username changed by PATCH /users/@me', async () => {
    const before = random('before');
    const carol = await registerUser(server, before);
    await expectHeld(before);
    const renamed = await server.api('PATCH', '/users/@me', { token: carol.token, body: { username: random('after') } });
    expect(renamed.status).toBe(200);
    await expectGone(before);
  });

  it("an erased account's email (PATCH /users/@me changes no email: deletion is what removes one)", async () => {
    const username = random('leaving');
    const email = `${username}@example.com`;
    const registered = await server.api('POST', '/auth/register', { body: { username, password: PASSWORD, email } });
    expect(registered.status).toBe(201);
    await expectHeld(email);
    expect((await server.api('POST', '/users/@me/delete', { token: registered.body.token, body: { password: PASSWORD } })).status).toBe(204);
    await expectGone(email);
    await expectGone(username);
  });
});
