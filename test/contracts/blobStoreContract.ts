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

    it('deleteUnder removes every blob under a folder, nested or not, and nothing beside it; again is harmless', async () => {
      const folder = `attachments/${randomUUID()}`;
      const text = (t: string) => ({ data: Buffer.from(t), contentType: 'text/plain' });
      await subject.blobs.put(`${folder}/1/a.txt`, text('a'));
      await subject.blobs.put(`${folder}/2/b.d.txt`, text('b'));
      // Same leading characters, another folder: a prefix of whole segments leaves it alone.
      await subject.blobs.put(`${folder}0/1/c.txt`, text('c'));
      await subject.blobs.deleteUnder(folder);
      expect(await subject.blobs.get(`${folder}/1/a.txt`)).toBeNull();
      expect(await subject.blobs.get(`${folder}/2/b.d.txt`)).toBeNull();
      expect(await subject.blobs.get(`${folder}0/1/c.txt`)).toEqual(text('c'));
      await subject.blobs.deleteUnder(folder);
      await subject.blobs.deleteUnder(`attachments/${randomUUID()}`);
      await expect(subject.blobs.deleteUnder('attachments/..')).rejects.toThrow(/Unsafe blob key/);
    });

    it('folders names the folders directly under a folder that hold blobs, nested or not; none for a missing folder', async () => {
      const folder = `uploads/${randomUUID()}`;
      const text = { data: Buffer.from('x'), contentType: 'text/plain' };
      await subject.blobs.put(`${folder}/1/a.txt`, text);
      await subject.blobs.put(`${folder}/2/deeper/b.txt`, text);
      await subject.blobs.put(`${folder}/beside.txt`, text);
      await subject.blobs.put(`${folder}0/3/c.txt`, text);
      expect((await subject.blobs.folders(folder)).sort()).toEqual(['1', '2']);
      await subject.blobs.deleteUnder(`${folder}/1`);
      expect(await subject.blobs.folders(folder)).toEqual(['2']);
      expect(await subject.blobs.folders(`uploads/${randomUUID()}`)).toEqual([]);
    });

    it('refuses keys that could escape their place', async () => {
      await expect(subject.blobs.put('../etc/passwd', { data: Buffer.from('x'), contentType: 'text/plain' })).rejects.toThrow(/Unsafe blob key/);
      await expect(subject.blobs.get('a/../../b')).rejects.toThrow(/Unsafe blob key/);
    });
  });
}
