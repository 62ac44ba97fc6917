// The behaviour every key store adapter must show (embedded SQLite always, MongoDB when a Docker engine is there):
// the data keys personal data is sealed with, and their destruction (crypto-shredding, docs/privacy.md).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Position } from '../../ports/eventStore.js';
import type { DataKey, KeyStore } from '../../ports/keyStore.js';

const at = (n: bigint): Position => ({ commit: n, prepare: n });

export interface KeyStoreUnderTest {
  keys: KeyStore;
  close(): Promise<void>;
  /** Another instance on the same storage, as a second process or a restart opens it (the test closes it). */
  reopen?(): Promise<KeyStore>;
  /** Every byte the adapter keeps on its storage now, searched for keys in clear. */
  stored?(): Promise<Buffer>;
  /** Makes the next checkpoint write fail inside apply()'s write. */
  breakCheckpointWrite?(): void;
}

/** `open` gives a store on fresh storage: no key, no owner, no checkpoint. */
export function describeKeyStoreContract(name: string, open: () => Promise<KeyStoreUnderTest>): void {
  describe(`${name}: key store contract`, () => {
    let subject: KeyStoreUnderTest;
    let keys: KeyStore;
    const found = async (store: KeyStore, ...wanted: DataKey[]) => [...(await store.load(wanted.map((key) => key.id))).keys()].sort();
    const ids = (...wanted: DataKey[]) => wanted.map((key) => key.id).sort();
    /** Runs `test` with a second instance, when the adapter can open one. */
    const withReopened = async (test: (other: KeyStore) => Promise<void>) => {
      if (!subject.reopen) return;
      const other = await subject.reopen();
      try {
        await test(other);
      } finally {
        await other.close();
      }
    };

    beforeEach(async () => {
      subject = await open();
      keys = subject.keys;
    });
    afterEach(async () => {
      await subject.close();
    });

    describe('create and load', () => {
      it('creates distinct 32-byte keys, concurrent creations and several batches included, each found by load with its bytes', async () => {
        const created = await Promise.all(Array.from({ length: 600 }, () => keys.create()));
        expect(new Set(created.map((key) => key.id)).size).toBe(600);
        expect(new Set(created.map((key) => key.key.toString('hex'))).size).toBe(600);
        for (const key of created) expect(key.key).toHaveLength(32);
        const loaded = await keys.load(created.map((key) => key.id));
        expect(loaded.size).toBe(600);
        for (const key of created) expect(loaded.get(key.id)?.equals(key.key)).toBe(true);
      });

      it('creates keys that are durable when handed out: another instance on the same storage finds them, and makes keys of its own', async () => {
        const created = [await keys.create(), await keys.create()];
        await withReopened(async (other) => {
          const loaded = await other.load(created.map((key) => key.id));
          for (const key of created) expect(loaded.get(key.id)?.equals(key.key)).toBe(true);
          const theirs = await other.create();
          expect(created.map((key) => key.id)).not.toContain(theirs.id);
          expect((await keys.load([theirs.id])).get(theirs.id)?.equals(theirs.key)).toBe(true);
        });
      });

      it('hands out keys made ahead without waiting (createNow), none twice, each as durable as create()s', async () => {
        const first = await keys.create();
        const now: DataKey[] = [];
        for (let key = keys.createNow(); key && now.length < 100; key = keys.createNow()) now.push(key);
        expect(now.length).toBeGreaterThan(0);
        const ids = [first.id, ...now.map((key) => key.id)];
        expect(new Set(ids).size).toBe(ids.length);
        await withReopened(async (other) => {
          const loaded = await other.load(ids);
          for (const key of now) expect(loaded.get(key.id)?.equals(key.key)).toBe(true);
        });
      });

      it('leaves unknown ids out of what load answers', async () => {
        const key = await keys.create();
        const loaded = await keys.load(['no-such-key', key.id, 'another-unknown']);
        expect([...loaded.keys()]).toEqual([key.id]);
        expect((await keys.load([])).size).toBe(0);
      });

      it('stores no key in clear', async () => {
        if (!subject.stored) return;
        const created = await Promise.all(Array.from({ length: 300 }, () => keys.create()));
        const stored = await subject.stored();
        expect(stored.length).toBeGreaterThan(0);
        for (const { key } of created) {
          expect(stored.includes(key)).toBe(false);
          expect(stored.includes(key.toString('base64'))).toBe(false);
          expect(stored.includes(key.toString('hex'))).toBe(false);
        }
      });
    });

    describe('current and use', () => {
      it('answers null for a subject it knows no key of, and the key use() named for a subject', async () => {
        expect(await keys.current('user:1')).toBeNull();
        const key = await keys.create();
        keys.use('user:1', key);
        expect(await keys.current('user:1')).toEqual(key);
        expect(await keys.current('user:2')).toBeNull();
      });

      it('answers a key the shredder learnt the subject owns, in another instance too', async () => {
        const key = await keys.create();
        await keys.apply({ owned: [{ keyId: key.id, subject: 'user:1' }], erased: [] }, at(1n));
        expect(await keys.current('user:1')).toEqual(key);
        await withReopened(async (other) => {
          expect(await other.current('user:1')).toEqual(key);
          expect(await other.current('user:2')).toBeNull();
        });
      });

      it('answers only a key the subject owns alone: one it shares with another subject (an auto-moderation record) is not its to reuse', async () => {
        // Made first, so an adapter that answered any owned key would find this one first.
        const shared = await keys.create();
        const own = await keys.create();
        const owned = [
          { keyId: shared.id, subject: 'user:1' },
          { keyId: shared.id, subject: 'guild:9' },
          { keyId: own.id, subject: 'user:1' },
        ];
        await keys.apply({ owned, erased: [] }, at(1n));
        expect(await keys.current('user:1')).toEqual(own);
        expect(await keys.current('guild:9')).toBeNull();
        await withReopened(async (other) => {
          expect(await other.current('user:1')).toEqual(own);
          expect(await other.current('guild:9')).toBeNull();
        });
      });
    });

    describe('apply', () => {
      it('destroys every key of an erased subject and only those, and answers whether it destroyed any', async () => {
        const [first, second, theirs, free] = await Promise.all([keys.create(), keys.create(), keys.create(), keys.create()]);
        const learnt = await keys.apply(
          {
            owned: [
              { keyId: first.id, subject: 'message:1' },
              { keyId: second.id, subject: 'message:1' },
              { keyId: theirs.id, subject: 'message:2' },
            ],
            erased: [],
          },
          at(1n),
        );
        expect(learnt).toBe(false);
        expect(await keys.apply({ owned: [], erased: [{ subject: 'message:3' }] }, at(2n))).toBe(false);
        expect(await found(keys, first, second, theirs, free)).toEqual(ids(first, second, theirs, free));

        expect(await keys.apply({ owned: [], erased: [{ subject: 'message:1' }] }, at(3n))).toBe(true);
        expect(await found(keys, first, second, theirs, free)).toEqual(ids(theirs, free));
        // Erased again: there is nothing left to destroy.
        expect(await keys.apply({ owned: [], erased: [{ subject: 'message:1' }] }, at(4n))).toBe(false);
        await withReopened(async (other) => expect(await found(other, first, second, theirs, free)).toEqual(ids(theirs, free)));
      });

      it('learns owners and destroys in the same batch, owners first', async () => {
        const key = await keys.create();
        const destroyed = await keys.apply({ owned: [{ keyId: key.id, subject: 'message:1' }], erased: [{ subject: 'message:1' }] }, at(1n));
        expect(destroyed).toBe(true);
        expect(await found(keys, key)).toEqual([]);
      });

      it('destroys a key of two subjects when either is erased, leaving the other subject its other keys', async () => {
        const [shared, own] = await Promise.all([keys.create(), keys.create()]);
        const owned = [
          { keyId: shared.id, subject: 'message:1' },
          { keyId: shared.id, subject: 'channel:9' },
          { keyId: own.id, subject: 'message:1' },
        ];
        await keys.apply({ owned, erased: [] }, at(1n));
        expect(await keys.apply({ owned: [], erased: [{ subject: 'channel:9' }] }, at(2n))).toBe(true);
        expect(await found(keys, shared, own)).toEqual(ids(own));
        expect(await keys.current('message:1')).toEqual(own);
      });

      it("learns a shredder's batch of owners (three a message key, some learnt twice) and destroys by any of them", async () => {
        const made = await Promise.all(Array.from({ length: 151 }, () => keys.create()));
        const owned = made.flatMap((key, i) => [
          { keyId: key.id, subject: `message:${i}` },
          { keyId: key.id, subject: `channel:${i % 2}` },
          { keyId: key.id, subject: 'guild:1' },
        ]);
        // Owners learnt twice, in a batch and in the next (a replay after a crash); each batch ends with an owner that
        // only the last erasure below destroys by.
        await keys.apply({ owned: [...owned.slice(0, 90), ...owned.slice(0, 303)], erased: [] }, at(1n));
        await keys.apply({ owned: owned.slice(240), erased: [] }, at(2n));
        expect(await found(keys, made[150])).toEqual(ids(made[150]));
        expect(await keys.apply({ owned: [], erased: [{ subject: 'message:0' }, { subject: 'message:149' }] }, at(3n))).toBe(true);
        expect(await found(keys, ...made)).toEqual(ids(...made.filter((_, i) => i !== 0 && i !== 149)));
        expect(await keys.apply({ owned: [], erased: [{ subject: 'channel:1' }] }, at(4n))).toBe(true);
        expect(await found(keys, ...made)).toEqual(ids(...made.filter((_, i) => i % 2 === 0 && i > 0)));
        expect(await keys.apply({ owned: [], erased: [{ subject: 'guild:1' }] }, at(5n))).toBe(true);
        expect(await found(keys, ...made)).toEqual([]);
      });

      it('spares the `except` key of an erased subject, which current() answers next', async () => {
        const [old, edited] = await Promise.all([keys.create(), keys.create()]);
        const owned = [
          { keyId: old.id, subject: 'message:1' },
          { keyId: edited.id, subject: 'message:1' },
        ];
        expect(await keys.apply({ owned, erased: [{ subject: 'message:1', except: edited.id }] }, at(1n))).toBe(true);
        expect(await found(keys, old, edited)).toEqual(ids(edited));
        expect(await keys.current('message:1')).toEqual(edited);
        // Sparing the only key there is destroys nothing.
        expect(await keys.apply({ owned: [], erased: [{ subject: 'message:1', except: edited.id }] }, at(2n))).toBe(false);
        expect(await found(keys, edited)).toEqual(ids(edited));
      });

      it('forgets what it cached of destroyed keys: load() no longer finds them, current() no longer answers them', async () => {
        const [used, learnt, kept] = await Promise.all([keys.create(), keys.create(), keys.create()]);
        keys.use('user:1', used);
        await keys.apply(
          {
            owned: [
              { keyId: learnt.id, subject: 'user:2' },
              { keyId: kept.id, subject: 'user:3' },
            ],
            erased: [],
          },
          at(1n),
        );
        expect(await found(keys, used, learnt, kept)).toEqual(ids(used, learnt, kept));
        expect(await keys.current('user:2')).toEqual(learnt);

        await keys.apply({ owned: [{ keyId: used.id, subject: 'user:1' }], erased: [{ subject: 'user:1' }, { subject: 'user:2' }] }, at(2n));
        expect(await found(keys, used, learnt, kept)).toEqual(ids(kept));
        expect(await keys.current('user:1')).toBeNull();
        expect(await keys.current('user:2')).toBeNull();
        expect(await keys.current('user:3')).toEqual(kept);
      });

      it('does not remember a key destroyed while current() was looking it up', async () => {
        const key = await keys.create();
        await keys.apply({ owned: [{ keyId: key.id, subject: 'user:1' }], erased: [] }, at(1n));
        const asked = keys.current('user:1');
        await keys.apply({ owned: [], erased: [{ subject: 'user:1' }] }, at(2n));
        await asked;
        expect(await found(keys, key)).toEqual([]);
        expect(await keys.current('user:1')).toBeNull();
      });

      it('calls every onDestroyed listener once per batch that destroyed keys, and only then', async () => {
        const calls: string[] = [];
        keys.onDestroyed(() => calls.push('first'));
        keys.onDestroyed(() => calls.push('second'));
        const [a, b] = await Promise.all([keys.create(), keys.create()]);
        await keys.apply(
          {
            owned: [
              { keyId: a.id, subject: 'message:1' },
              { keyId: b.id, subject: 'message:1' },
            ],
            erased: [{ subject: 'message:2' }],
          },
          at(1n),
        );
        expect(calls).toEqual([]);
        await keys.apply({ owned: [], erased: [{ subject: 'message:1' }] }, at(2n));
        expect(calls).toEqual(['first', 'second']);
      });
    });

    describe('checkpoint', () => {
      it('is null before the shredder ran, then where the last batch got to, positions beyond 2^53 included, in another instance too', async () => {
        expect(await keys.checkpoint()).toBeNull();
        await keys.apply({ owned: [], erased: [] }, at(5n));
        expect(await keys.checkpoint()).toEqual(at(5n));
        const far = { commit: 2n ** 60n + 7n, prepare: 2n ** 60n + 3n };
        const key = await keys.create();
        await keys.apply({ owned: [{ keyId: key.id, subject: 'message:1' }], erased: [{ subject: 'message:1' }] }, far);
        expect(await keys.checkpoint()).toEqual(far);
        await withReopened(async (other) => {
          expect(await other.checkpoint()).toEqual(far);
          expect(await found(other, key)).toEqual([]);
        });
      });

      it('is written with the destruction, all or nothing: a batch whose checkpoint cannot be written destroys no key', async () => {
        if (!subject.breakCheckpointWrite) return;
        const key = await keys.create();
        let destroyed = 0;
        keys.onDestroyed(() => destroyed++);
        await keys.apply({ owned: [], erased: [] }, at(1n));
        subject.breakCheckpointWrite();
        await expect(keys.apply({ owned: [{ keyId: key.id, subject: 'message:1' }], erased: [{ subject: 'message:1' }] }, at(2n))).rejects.toThrow();
        expect(await keys.checkpoint()).toEqual(at(1n));
        expect(await found(keys, key)).toEqual(ids(key));
        await withReopened(async (other) => expect(await found(other, key)).toEqual(ids(key)));
        expect(destroyed).toBe(0);
        // The batch applied again (the shredder starts again from the checkpoint) destroys the key.
        expect(await keys.apply({ owned: [{ keyId: key.id, subject: 'message:1' }], erased: [{ subject: 'message:1' }] }, at(2n))).toBe(true);
        expect(await found(keys, key)).toEqual([]);
        expect(destroyed).toBe(1);
      });
    });
  });
}
