// PostgreSQL adapter of the read store port: each collection is a table of JSONB documents, `c_<collection>`
// (id TEXT COLLATE "C", doc JSONB); filters become SQL over `doc #> '{path}'`, declared indexes become expression
// indexes on the same expressions, and a bulk write commits together with the projectors' checkpoints in one
// transaction: after a crash neither the documents nor the checkpoint of a batch are there, so it is projected again,
// never twice or skipped. Updates are applied to the documents as read (documents.ts, the rows locked FOR UPDATE), so
// every update operator means here what it means in MongoDB and the embedded store; only those that set top-level
// fields or raise one by $max are written in SQL, reading nothing first.
// Text a write removed or replaced lives on as dead tuples until VACUUM: the tables a write updated or deleted rows of
// are vacuumed soon after (the same bound as the embedded store's scrub). docs/distributed.md says what
// PostgreSQL still keeps after that.
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { withDeadline } from '../engines.js';
import { createOnce, inTransaction } from '../postgres.js';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import { applyUpdate, assertPath, collectionOf, isOperatorObject, mergeUpdateRuns, upsertSeed } from './documents.js';
import type { Checkpoint, Comparable, Doc, Filter, FindOptions, IndexSpec, ReadStore, Update, WriteOp } from '../../ports/readStore.js';

/** Where checkpoints live, apart from the collections' `c_` tables. */
export const READ_CHECKPOINTS = 'read_checkpoints';

/** How soon after a write its dead tuples are vacuumed, by default (READ_MODEL_SCRUB_MS). */
const VACUUM_AFTER_MS = 1000;

/** Collations under which text compares by its bytes, as MongoDB and the embedded store compare strings. */
const BYTE_ORDER_COLLATIONS = new Set(['C', 'POSIX', 'C.UTF-8', 'C.utf8', 'ucs_basic']);

type Queryable = Pick<pg.PoolClient, 'query'>;

export function collectionTable(collection: string): string {
  if (!/^[a-z][a-z0-9_]{0,59}$/.test(collection)) throw new Error(`Unsupported collection name: ${collection}`);
  return `c_${collection}`;
}

/** The query's parameters, named $1, $2… in the order they are added. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

/** A field's value as JSONB (SQL NULL when the document has no such field); `_id` is the id column. */
function fieldOf(path: string): string {
  if (path === '_id') return 'id';
  assertPath(path);
  return `(doc #> '{${path.split('.').join(',')}}')`;
}

/**
 * What JSON.stringify writes for text JSONB refuses: NUL and lone surrogates (escaped by a backslash that is not itself
 * escaped). A message may hold them; a batch that failed on one would stop its projection for good.
 */
const UNSTORABLE = /(?<=(?:^|[^\\])(?:\\\\)*)(?:\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2})/g;

/** A value as JSONB takes it: what it refuses becomes U+FFFD, as MongoDB's driver writes a lone surrogate (filters alike). */
function jsonb(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u') ? text.replace(UNSTORABLE, '\\ufffd') : text;
}
const JSON_TYPES: Record<string, string> = { string: 'string', number: 'number', boolean: 'boolean' };
const COMPARISONS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };
const OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$exists', '$all', ...Object.keys(COMPARISONS)]);

/** MongoDB's null: a field that is null or missing. */
const isNull = (field: string) => `(${field} IS NULL OR ${field} = 'null'::jsonb)`;

/** The field equals one of the values (null among them: null or missing). Never SQL NULL. */
function inValues(field: string, values: Comparable[], params: Params): string {
  const present = values.filter((value) => value !== null);
  const tests: string[] = [];
  if (present.length) tests.push(`${field} = ANY(${params.add(present.map(jsonb), '::jsonb[]')})`);
  if (present.length < values.length) tests.push(isNull(field));
  return tests.length ? `COALESCE(${tests.join(' OR ')}, false)` : 'false';
}

/** The same conditions on the id column, which is always there and always a string. */
function idCondition(op: string, operand: unknown, params: Params): string {
  const strings = (values: Comparable[]) => values.filter((value): value is string => typeof value === 'string');
  switch (op) {
    case '$eq':
      return typeof operand === 'string' ? `id = ${params.add(operand)}` : 'false';
    case '$ne':
      return typeof operand === 'string' ? `id <> ${params.add(operand)}` : 'true';
    case '$in':
      return `id = ANY(${params.add(strings(operand as Comparable[]), '::text[]')})`;
    case '$nin':
      return `id <> ALL(${params.add(strings(operand as Comparable[]), '::text[]')})`;
    case '$exists':
      return operand ? 'true' : 'false';
    case '$all':
      return 'false';
    default:
      return typeof operand === 'string' ? `id ${COMPARISONS[op]} ${params.add(operand)}` : 'false';
  }
}

/**
 * One operator on a JSONB field, with MongoDB's meaning: null stands for null or missing ($eq, $in, and their negations
 * $ne, $nin), comparisons only match values of the operand's type, $all needs an array holding every value.
 */
function fieldCondition(field: string, op: string, operand: unknown, params: Params): string {
  switch (op) {
    case '$eq':
      return operand === null ? isNull(field) : `${field} = ${params.add(jsonb(operand), '::jsonb')}`;
    case '$ne':
      return operand === null ? `NOT ${isNull(field)}` : `(${field} = ${params.add(jsonb(operand), '::jsonb')}) IS NOT TRUE`;
    case '$in':
      return inValues(field, operand as Comparable[], params);
    case '$nin':
      return `NOT ${inValues(field, operand as Comparable[], params)}`;
    case '$exists':
      return `${field} IS ${operand ? 'NOT ' : ''}NULL`;
    case '$all': {
      const values = operand as Comparable[];
      return values.length ? `(jsonb_typeof(${field}) = 'array' AND ${field} @> ${params.add(jsonb(values), '::jsonb')})` : 'false';
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      // MongoDB: $gte and $lte null match what equals null; nothing is greater or less than null.
      if (operand === null) return op === '$gte' || op === '$lte' ? isNull(field) : 'false';
      const type = JSON_TYPES[typeof operand];
      if (!type) throw new Error(`Unsupported comparison operand for ${op}`);
      return `(jsonb_typeof(${field}) = '${type}' AND ${field} ${COMPARISONS[op]} ${params.add(jsonb(operand), '::jsonb')})`;
    }
    default:
      throw new Error(`Unsupported filter operator ${op}`);
  }
}

function compileFilter(filter: Filter, params: Params): string {
  const clauses: string[] = [];
  for (const [path, condition] of Object.entries(filter)) {
    const conditions: [string, unknown][] = isOperatorObject(condition) ? Object.entries(condition) : [['$eq', condition]];
    for (const [op, operand] of conditions) {
      if (!OPERATORS.has(op)) throw new Error(`Unsupported filter operator ${op}`);
      clauses.push(path === '_id' ? idCondition(op, operand, params) : fieldCondition(fieldOf(path), op, operand, params));
    }
  }
  return clauses.length ? clauses.join(' AND ') : 'true';
}

/** MongoDB's order for a missing field (and null, JSONB's lowest value): first ascending, last descending. */
const ordered = (path: string, direction: 1 | -1) => `${fieldOf(path)} ${direction === 1 ? 'ASC NULLS FIRST' : 'DESC NULLS LAST'}`;

type PlannedOp = Exclude<WriteOp, { insertOne: unknown }> | { insertMany: { collection: string; documents: Doc[] } };

/**
 * The operations table by table, each table's in their order (an operation reads and writes its own table alone, so
 * only the order within a table matters), each run of inserts into a table one statement: a batch of sends is then
 * one INSERT of its messages rather than one each.
 */
function byTable(ops: WriteOp[]): PlannedOp[] {
  const tables = new Map<string, PlannedOp[]>();
  for (const op of ops) {
    const collection = collectionOf(op);
    let planned = tables.get(collection);
    if (!planned) tables.set(collection, (planned = []));
    const last = planned[planned.length - 1];
    if (!('insertOne' in op)) planned.push(op);
    else if (last && 'insertMany' in last) last.insertMany.documents.push(op.insertOne.document);
    else planned.push({ insertMany: { collection, documents: [op.insertOne.document] } });
  }
  return [...tables.values()].flat();
}

/** A field an update can name in SQL as it is: top-level, not _id. */
const TOP_LEVEL_FIELD = /^(?!_id$)[A-Za-z_]\w*$/;

/**
 * An update that only sets top-level fields, or raises one by $max (a channel's last_message_id), is one statement that
 * reads nothing first, as in the embedded store: only where the filter pins the document when one is updated. Answers
 * whether it changed a row, or null when the update needs the general path.
 */
async function setInPlace(client: pg.PoolClient, table: string, filter: Filter, update: Update, limit: number | undefined): Promise<boolean | null> {
  const max = Object.entries(update.$max ?? {});
  const fields: [string, unknown][] = update.$max ? max : Object.entries(update.$set ?? {});
  if (Object.keys(update).length !== 1 || fields.length === 0 || max.length > 1 || (limit !== undefined && typeof filter._id !== 'string')) return null;
  if (fields.some(([path, value]) => !TOP_LEVEL_FIELD.test(path) || value === undefined)) return null;
  const params = new Params();
  let where = compileFilter(filter, params);
  let set: string;
  if (max.length) {
    const [[path, value]] = max;
    // isBelow (documents.ts) in SQL: "C" compares text by its UTF-8 bytes.
    const current = `(doc -> '${path}')`;
    where += ` AND (${current} IS NULL OR jsonb_typeof(${current}) IN ('null', 'number') OR (jsonb_typeof(${current}) = 'string' AND (doc ->> '${path}') COLLATE "C" < ${params.add(value)}))`;
    set = `jsonb_set(doc, '{${path}}', ${params.add(jsonb(value), '::jsonb')})`;
  } else set = `doc || ${params.add(jsonb(Object.fromEntries(fields)), '::jsonb')}`;
  const { rowCount } = await client.query(`UPDATE ${table} SET doc = ${set} WHERE ${where}`, params.values);
  return (rowCount ?? 0) > 0;
}

export class PostgresReadStore implements ReadStore {
  /** Tables known to exist (created here or found). */
  private readonly known = new Set<string>();
  /** Tables a write updated or deleted rows of since the last VACUUM. */
  private readonly dirty = new Set<string>();
  private vacuumTimer: NodeJS.Timeout | null = null;
  private vacuuming: Promise<void> | null = null;
  private closed = false;

  private constructor(
    /** The connections, shared with the key store, leases, rate limits and blobs of the same database. */
    readonly pool: pg.Pool,
    private readonly vacuumAfterMs: number,
  ) {}

  /**
   * Connects, creates the checkpoint table, and refuses a database whose collation would not order strings by their
   * bytes (sorts and ranges on string fields must agree with the embedded store and MongoDB), so a wrong POSTGRES_URL
   * fails at start.
   */
  static async connect(url: string, options: { vacuumAfterMs?: number; timeoutMs?: number; poolSize?: number } = {}): Promise<PostgresReadStore> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    // poolSize: at most so many connections (pg's 10 when unset), so the processes sharing a server fit its max_connections.
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: timeoutMs, application_name: 'parley', max: options.poolSize });
    // An idle connection the server dropped is replaced by the next query: nothing to report from here.
    pool.on('error', () => {});
    try {
      const { rows } = await withDeadline(
        pool.query<{ collation: string }>('SELECT datcollate AS collation FROM pg_database WHERE datname = current_database()'),
        timeoutMs + 1000,
        'PostgreSQL',
        url,
      );
      if (!BYTE_ORDER_COLLATIONS.has(rows[0].collation))
        throw new Error(
          `PostgreSQL database at POSTGRES_URL has collation ${rows[0].collation}: read models need strings ordered by their bytes (CREATE DATABASE … TEMPLATE template0 LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8')`,
        );
      await createOnce(pool, READ_CHECKPOINTS, `CREATE TABLE IF NOT EXISTS ${READ_CHECKPOINTS} (projection TEXT PRIMARY KEY, position TEXT NOT NULL)`);
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return new PostgresReadStore(pool, options.vacuumAfterMs ?? VACUUM_AFTER_MS);
  }

  private async ensureCollection(collection: string): Promise<string> {
    const table = collectionTable(collection);
    if (this.known.has(table)) return table;
    await createOnce(this.pool, table, `CREATE TABLE IF NOT EXISTS ${table} (id TEXT COLLATE "C" PRIMARY KEY, doc JSONB NOT NULL)`);
    this.known.add(table);
    return table;
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    for (const index of indexes) {
      const table = await this.ensureCollection(index.collection);
      const keys = Object.entries(index.keys);
      const columns = keys.map(([path, direction]) => ordered(path, direction)).join(', ');
      // Names are limited to 63 bytes: the table's name, and a digest of what the index is.
      const digest = createHash('sha256')
        .update(`${columns}|${index.unique ? 'unique' : ''}`)
        .digest('hex')
        .slice(0, 12);
      const sql = `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${table.slice(0, 46)}_ix_${digest} ON ${table} (${columns})`;
      await createOnce(this.pool, table, sql);
    }
  }

  private async select(collection: string, filter: Filter, options: FindOptions, what: string, client: Queryable = this.pool, lock = '') {
    const table = await this.ensureCollection(collection);
    const params = new Params();
    let sql = `SELECT ${what} FROM ${table} WHERE ${compileFilter(filter, params)}`;
    const sort = Object.entries(options.sort ?? {});
    if (sort.length) sql += ` ORDER BY ${sort.map(([path, direction]) => ordered(path, direction)).join(', ')}`;
    if (options.limit !== undefined) sql += ` LIMIT ${params.add(options.limit)}`;
    if (options.skip) sql += ` OFFSET ${params.add(options.skip)}`;
    return client.query(sql + lock, params.values);
  }

  async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
    return (await this.find<T>(collection, filter, { limit: 1 }))[0] ?? null;
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return (await this.select(collection, filter, options, 'doc')).rows.map((row: { doc: T }) => row.doc);
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const { rows } = await this.select(collection, filter, {}, 'COUNT(*)::int AS n');
    return (rows[0] as { n: number }).n;
  }

  async bulkWrite(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
    const merged = mergeUpdateRuns(ops);
    // Tables are created before the transaction: DDL in it would be undone with a failed batch.
    for (const collection of new Set(merged.map(collectionOf))) await this.ensureCollection(collection);
    if (merged.length === 0 && checkpoints.length === 0) return;
    const touched = new Set<string>();
    await inTransaction(this.pool, async (client) => {
      for (const op of byTable(merged)) {
        const collection = 'insertMany' in op ? op.insertMany.collection : collectionOf(op);
        if (await this.apply(client, op)) touched.add(collectionTable(collection));
      }
      // One statement for the batch's checkpoints.
      if (checkpoints.length > 0) {
        const params = new Params();
        const rows = checkpoints.map((checkpoint) => `(${params.add(checkpoint.projection)}, ${params.add(encodePosition(checkpoint.position))})`);
        await client.query(
          `INSERT INTO ${READ_CHECKPOINTS} (projection, position) VALUES ${rows.join(', ')} ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
          params.values,
        );
      }
    });
    if (touched.size > 0) this.scheduleVacuum(touched);
  }

  /** Applies one operation in the transaction; answers whether it left dead tuples (rows updated or deleted). */
  private async apply(client: pg.PoolClient, op: PlannedOp): Promise<boolean> {
    if ('insertMany' in op) {
      const { collection, documents } = op.insertMany;
      await client.query(`INSERT INTO ${collectionTable(collection)} (id, doc) SELECT * FROM unnest($1::text[], $2::jsonb[])`, [
        documents.map((document) => document._id),
        documents.map(jsonb),
      ]);
      return false;
    }
    if ('replaceOne' in op) {
      const { collection, filter, replacement, upsert } = op.replaceOne;
      const table = collectionTable(collection);
      const write = [replacement._id, jsonb(replacement)];
      // A document replaced by its own _id (what projections do) is one statement, with nothing read first.
      const byOwnId = Object.keys(filter).length === 1 && filter._id === replacement._id;
      if (!byOwnId) {
        const [existing] = (await this.select(collection, filter, { limit: 1 }, 'id', client, ' FOR UPDATE')).rows as { id: string }[];
        if (!existing) {
          if (upsert) await client.query(`INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb)`, write);
          return false;
        }
        if (existing.id !== replacement._id) await client.query(`DELETE FROM ${table} WHERE id = $1`, [existing.id]);
      } else if (!upsert) {
        const { rowCount } = await client.query(`UPDATE ${table} SET doc = $2::jsonb WHERE id = $1`, write);
        return (rowCount ?? 0) > 0;
      }
      // xmax is set on a row the upsert updated, and zero on one it inserted.
      const { rows } = await client.query<{ replaced: boolean }>(
        `INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc RETURNING (xmax <> 0) AS replaced`,
        write,
      );
      return rows[0].replaced || !byOwnId;
    }
    if ('updateOne' in op) {
      const { collection, filter, update, upsert } = op.updateOne;
      return this.updateMatching(client, collection, filter, update, 1, upsert ?? false);
    }
    if ('updateMany' in op) {
      const { collection, filter, update } = op.updateMany;
      return this.updateMatching(client, collection, filter, update, undefined, false);
    }
    const { collection, filter } = 'deleteOne' in op ? op.deleteOne : op.deleteMany;
    const table = collectionTable(collection);
    const params = new Params();
    const where = compileFilter(filter, params);
    const matching = 'deleteOne' in op ? `id IN (SELECT id FROM ${table} WHERE ${where} LIMIT 1)` : where;
    const { rowCount } = await client.query(`DELETE FROM ${table} WHERE ${matching}`, params.values);
    return (rowCount ?? 0) > 0;
  }

  private async updateMatching(
    client: pg.PoolClient,
    collection: string,
    filter: Filter,
    update: Update,
    limit: number | undefined,
    upsert: boolean,
  ): Promise<boolean> {
    const table = collectionTable(collection);
    const inPlace = upsert ? null : await setInPlace(client, table, filter, update, limit);
    if (inPlace !== null) return inPlace;
    const found = (await this.select(collection, filter, limit === undefined ? {} : { limit }, 'doc', client, ' FOR UPDATE')).rows as { doc: Doc }[];
    if (found.length === 0) {
      // A seed whose _id is taken (the filter's other conditions did not match it) fails on the key, as in MongoDB.
      if (upsert) {
        const doc = applyUpdate(upsertSeed(filter, randomUUID), update, true);
        await client.query(`INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb)`, [doc._id, jsonb(doc)]);
      }
      return false;
    }
    const updated = found.map(({ doc }) => applyUpdate(doc, update));
    await client.query(`UPDATE ${table} AS t SET doc = u.doc FROM unnest($1::text[], $2::jsonb[]) AS u(id, doc) WHERE t.id = u.id`, [
      updated.map((doc) => doc._id),
      updated.map(jsonb),
    ]);
    return true;
  }

  async getCheckpoint(projection: string): Promise<Position | null> {
    return (await this.getCheckpoints([projection])).get(projection) ?? null;
  }

  async getCheckpoints(projections: readonly string[]): Promise<Map<string, Position | null>> {
    const { rows } = await this.pool.query<{ projection: string; position: string }>(
      `SELECT projection, position FROM ${READ_CHECKPOINTS} WHERE projection = ANY($1::text[])`,
      [projections],
    );
    const found = new Map(rows.map((row) => [row.projection, decodePosition(row.position)]));
    return new Map(projections.map((name) => [name, found.get(name) ?? null]));
  }

  /**
   * TRUNCATE, with the checkpoint's deletion in the same transaction: the tables' files are replaced by empty ones (no
   * dead tuples left behind, nothing to vacuum) and their indexes stay.
   */
  async reset(projection: string, collections: string[]): Promise<void> {
    const tables: string[] = [];
    for (const collection of collections) tables.push(await this.ensureCollection(collection));
    await inTransaction(this.pool, async (client) => {
      if (tables.length) await client.query(`TRUNCATE ${tables.join(', ')}`);
      await client.query(`DELETE FROM ${READ_CHECKPOINTS} WHERE projection = $1`, [projection]);
    });
  }

  /**
   * The first write that leaves dead tuples after a VACUUM arms the next one, of the tables written meanwhile: at most one
   * an interval, none while idle. A VACUUM that fails (the server away) leaves its tables for the next.
   */
  private scheduleVacuum(tables: Iterable<string>): void {
    for (const table of tables) this.dirty.add(table);
    if (this.vacuumTimer || this.vacuuming || this.closed) return;
    this.vacuumTimer = setTimeout(() => {
      this.vacuumTimer = null;
      const batch = [...this.dirty];
      this.dirty.clear();
      this.vacuuming = this.pool
        .query(`VACUUM ${batch.join(', ')}`)
        .then(
          () => {},
          () => batch.forEach((table) => this.dirty.add(table)),
        )
        .finally(() => {
          this.vacuuming = null;
          if (this.dirty.size > 0) this.scheduleVacuum([]);
        });
    }, this.vacuumAfterMs);
    this.vacuumTimer.unref();
  }

  /** Runs the pending VACUUM now (the tables' dead tuples are gone when it resolves), as close() does. */
  async vacuumNow(): Promise<void> {
    if (this.vacuumTimer) {
      clearTimeout(this.vacuumTimer);
      this.vacuumTimer = null;
    }
    await this.vacuuming;
    const batch = [...this.dirty];
    this.dirty.clear();
    if (batch.length) await this.pool.query(`VACUUM ${batch.join(', ')}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.vacuumNow().catch(() => {});
    await this.pool.end();
  }
}
