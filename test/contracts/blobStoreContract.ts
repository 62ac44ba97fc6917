// The behaviour every blob store adapter must show (files always, GridFS when a Docker engine is there).
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../ports/blobs.js';

export function describeBlobStoreContract(name: string, factory: () => Promise<{ blobs: BlobStore; close(): Promise<void> }>): void {
  describe(`${name}: blob store contract`, () => {
    let subject: Awaited<ReturnType<typeof factory>>;
    let key: string;
    beforeEach(async () => {
      subject = await factory();
      key = `avatars/${randomUUID()}/a1b2.png`;
    });
    afterEach(async () => {
      await subject.close();
    });

    it('gives back the bytes and content type put, null for a missing key', async () => {
      const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
      await subject.blobs.put(key, { data, contentType: 'image/png' });
      const blob = await subject.blobs.get(key);
      expect(blob?.contentType).toBe('image/png');
      expect(blob?.data.equals(data)).toBe(true);
      expect(await subject.blobs.get(`${key}.missing`)).toBeNull();
    });

    it('a second put replaces the first; delete removes it, and deleting again is harmless', async () => {
      await subject.blobs.put(key, { data: Buffer.from('one'), contentType: 'text/plain' });
      await subject.blobs.put(key, { data: Buffer.from('two'), contentType: 'image/gif' });
      expect(await subject.blobs.get(key)).toEqual({ data: Buffer.from('two'), contentType: 'image/gif' });
      await subject.blobs.delete(key);
      expect(await subject.blobs.get(key)).toBeNull();
      await subject.blobs.delete(key);
    });

    it('refuses keys that could escape their place', async () => {
      await expect(subject.blobs.put('../etc/passwd', { data: Buffer.from('x'), contentType: 'text/plain' })).rejects.toThrow(/Unsafe blob key/);
      await expect(subject.blobs.get('a/../../b')).rejects.toThrow(/Unsafe blob key/);
    });
  });
}
