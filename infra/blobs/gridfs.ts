// Blobs in MongoDB GridFS, beside the read models. A put uploads the new revision first and only then removes the
// older ones, so a reader never finds the key missing while it is being replaced.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Db, GridFSBucket, type ObjectId } from 'mongodb';
import { type Blob, type BlobStore, assertBlobKey } from '../../ports/blobs.js';

export class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;

  constructor(db: Db, bucketName = 'blobs') {
    this.bucket = new GridFSBucket(db, { bucketName });
  }

  private revisions(key: string) {
    return this.bucket.find({ filename: key }).sort({ uploadDate: -1, _id: -1 });
  }

  async put(key: string, blob: Blob): Promise<void> {
    assertBlobKey(key);
    const older = await this.revisions(key).toArray();
    await pipeline(Readable.from([blob.data]), this.bucket.openUploadStream(key, { metadata: { contentType: blob.contentType } }));
    await this.remove(older.map((file) => file._id));
  }

  async get(key: string): Promise<Blob | null> {
    assertBlobKey(key);
    const [latest] = await this.revisions(key).limit(1).toArray();
    if (!latest) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStream(latest._id)) chunks.push(chunk as Buffer);
    return { data: Buffer.concat(chunks), contentType: (latest.metadata?.contentType as string | undefined) ?? 'application/octet-stream' };
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.remove((await this.revisions(key).toArray()).map((file) => file._id));
  }

  async deleteUnder(prefix: string): Promise<void> {
    await this.remove((await this.bucket.find({ filename: under(prefix) }).toArray()).map((file) => file._id));
  }

  async folders(prefix: string): Promise<string[]> {
    const files = await this.bucket.find({ filename: under(prefix) }, { projection: { filename: 1 } }).toArray();
    const names = files.flatMap((file) => {
      const rest = file.filename.slice(prefix.length + 1).split('/');
      return rest.length > 1 ? [rest[0]] : [];
    });
    return [...new Set(names)];
  }

  private async remove(ids: ObjectId[]): Promise<void> {
    for (const id of ids) {
      // Two writers replacing the same key may both remove an old revision: the second finds it gone.
      await this.bucket.delete(id).catch((error: Error) => {
        if (!/FileNotFound|not found/i.test(error.message)) throw error;
      });
    }
  }
}

/** Matches the names of the blobs under the folder `prefix`. */
function under(prefix: string): RegExp {
  assertBlobKey(prefix);
  // Keys hold no regular-expression metacharacters but the dot (assertBlobKey); an anchored prefix uses the filename index.
  return new RegExp(`^${prefix.replaceAll('.', '\\.')}/`);
}
