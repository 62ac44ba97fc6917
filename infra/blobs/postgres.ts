// Blobs on PostgreSQL, in the read models' database: a row a blob (its key and content type) and its bytes in chunks
// of CHUNK_BYTES (bytea rows well under the 1 GB a value may hold, and read without one huge allocation on the
// server). A put replaces the blob in one transaction, so a reader finds the old blob or the new one, whole, never a
// mix or nothing; it is durable when put resolves (synchronous_commit), as the file store's fsync makes a file. Keys
// are checked as the file store checks them (assertBlobKey), and sizes are bounded where the file store's are, at the
// edge (http/multipart.ts).
import type pg from 'pg';
import { type Blob, type BlobStore, assertBlobKey } from '../../ports/blobs.js';
import { createOnce, inTransaction } from '../postgres.js';

export const BLOBS = 'blobs';
export const BLOB_CHUNKS = 'blob_chunks';

const CHUNK_BYTES = 1024 * 1024;

/** A LIKE pattern matching the keys under the folder `prefix` (keys hold no LIKE metacharacter but `_`). */
function under(prefix: string): string {
  assertBlobKey(prefix);
  return `${prefix.replaceAll('_', '\\_')}/%`;
}

export class PostgresBlobStore implements BlobStore {
  private constructor(private readonly pool: pg.Pool) {}

  /** Blobs on `pool`, which stays its owner's to end. */
  static async open(pool: pg.Pool): Promise<PostgresBlobStore> {
    // Keys compare by their bytes ("C"): the primary key's index then serves LIKE 'prefix/%'.
    await createOnce(
      pool,
      BLOBS,
      `CREATE TABLE IF NOT EXISTS ${BLOBS} (key TEXT COLLATE "C" PRIMARY KEY, content_type TEXT NOT NULL, size BIGINT NOT NULL);
       CREATE TABLE IF NOT EXISTS ${BLOB_CHUNKS} (
         key TEXT COLLATE "C" NOT NULL REFERENCES ${BLOBS} (key) ON DELETE CASCADE,
         n INTEGER NOT NULL,
         data BYTEA NOT NULL,
         PRIMARY KEY (key, n)
       );`,
    );
    return new PostgresBlobStore(pool);
  }

  async put(key: string, blob: Blob): Promise<void> {
    assertBlobKey(key);
    await inTransaction(this.pool, async (client) => {
      // The row first, locked: two puts of one key follow each other, each replacing every chunk of the one before.
      await client.query(
        `INSERT INTO ${BLOBS} (key, content_type, size) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, size = excluded.size`,
        [key, blob.contentType, blob.data.length],
      );
      await client.query(`DELETE FROM ${BLOB_CHUNKS} WHERE key = $1`, [key]);
      for (let n = 0, offset = 0; offset < blob.data.length || n === 0; n++, offset += CHUNK_BYTES)
        await client.query(`INSERT INTO ${BLOB_CHUNKS} (key, n, data) VALUES ($1, $2, $3)`, [key, n, blob.data.subarray(offset, offset + CHUNK_BYTES)]);
    });
  }

  async get(key: string): Promise<Blob | null> {
    assertBlobKey(key);
    // One statement, one snapshot: the chunks of the blob the row describes, not of a put committed in between.
    const { rows } = await this.pool.query<{ content_type: string; size: string; data: Buffer | null }>(
      `SELECT b.content_type, b.size, c.data FROM ${BLOBS} b LEFT JOIN ${BLOB_CHUNKS} c ON c.key = b.key WHERE b.key = $1 ORDER BY c.n`,
      [key],
    );
    if (rows.length === 0) return null;
    const data = Buffer.concat(rows.flatMap((row) => (row.data ? [row.data] : [])));
    if (data.length !== Number(rows[0].size)) throw new Error(`Blob ${key} has ${data.length} bytes of the ${rows[0].size} it was put with`);
    return { data, contentType: rows[0].content_type };
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.pool.query(`DELETE FROM ${BLOBS} WHERE key = $1`, [key]);
  }

  async deleteUnder(prefix: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${BLOBS} WHERE key LIKE $1`, [under(prefix)]);
  }

  async folders(prefix: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ folder: string }>(
      // The first segment after the prefix, of keys that go deeper than it.
      `SELECT DISTINCT split_part(substr(key, $2), '/', 1) AS folder FROM ${BLOBS} WHERE key LIKE $1 AND position('/' IN substr(key, $2)) > 0`,
      [under(prefix), prefix.length + 2],
    );
    return rows.map((row) => row.folder);
  }
}
