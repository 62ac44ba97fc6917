// Command specs of applications' Ed25519 keys: a new application's key pair enters the log with it, the private key
// only sealed; an application created before keys gets its pair the first time it is needed, once.
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApplication } from '../../commands/accounts.js';
import { ensureApplicationKey } from '../../commands/interactionEndpoint.js';
import type { ApplicationCreated } from '../../domain/application.js';
import { ada } from './events.js';
import { commandDeps, givenStreams, specSecrets } from './support.js';

const APP = '900';
const legacy: [string, ApplicationCreated[]] = [
  `application-${APP}`,
  [{ type: 'ApplicationCreated', data: { applicationId: APP, name: 'Robo', ownerId: ada.id, clientSecretHash: 'h', redirectUris: [] } }],
];

/** The private key a sealed key opens to signs what the hex public key verifies. */
function expectPair(verifyKey: string, sealedPrivateKey: string) {
  const privateKey = createPrivateKey(specSecrets.open(sealedPrivateKey));
  const publicKey = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(verifyKey, 'hex')]),
    format: 'der',
    type: 'spki',
  });
  expect(verify(null, Buffer.from('1700000000{}'), publicKey, sign(null, Buffer.from('1700000000{}'), privateKey))).toBe(true);
}

describe('application keys', () => {
  it('come with a new application: the public key in hex, the private key sealed, never in clear in the log', async () => {
    const world = await commandDeps();
    try {
      await createApplication(world.deps, { actorId: ada.id }, { name: 'Robo' });
      const events = await world.eventStore.readAll({});
      expect(events.map((e) => e.type)).toEqual(['ApplicationCreated', 'ApplicationKeyCreated']);
      const { verifyKey, sealedPrivateKey } = events[1].data as { verifyKey: string; sealedPrivateKey: string };
      expect(verifyKey).toMatch(/^[0-9a-f]{64}$/);
      expect(sealedPrivateKey).toMatch(/^s1\./);
      expect(JSON.stringify(events.map((e) => e.data))).not.toContain('PRIVATE KEY');
      expectPair(verifyKey, sealedPrivateKey);
    } finally {
      await world.close();
    }
  });

  it('are made for an application created before keys the first time one is needed, and only then', async () => {
    await givenStreams(legacy)
      .when((deps) => ensureApplicationKey(deps, APP))
      .then({
        stream: `application-${APP}`,
        type: 'ApplicationKeyCreated',
        data: { applicationId: APP, verifyKey: expect.stringMatching(/^[0-9a-f]{64}$/), sealedPrivateKey: expect.stringMatching(/^s1\./) },
        metadata: { actorId: null },
      });
    const world = await commandDeps();
    try {
      const { applicationId } = await createApplication(world.deps, { actorId: ada.id }, { name: 'Robo' });
      const first = await ensureApplicationKey(world.deps, applicationId);
      expectPair(first.verifyKey, first.sealedPrivateKey);
      const head = await world.eventStore.headPosition();
      expect(await ensureApplicationKey(world.deps, applicationId)).toEqual(first);
      expect(await world.eventStore.headPosition()).toEqual(head);
    } finally {
      await world.close();
    }
  });

  it('are not made for an application that does not exist', async () => {
    await givenStreams()
      .when((deps) => ensureApplicationKey(deps, APP))
      .thenRefuses('UNKNOWN_APPLICATION');
  });
});
