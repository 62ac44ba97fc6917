// Embedded read store: each collection is a SQLite table of JSON documents; filters become SQL over json_extract,
// declared indexes become expression indexes on the same expressions, and a bulk write commits together with the
// projector checkpoints in one transaction. Read models can always be rebuilt from the log, so commits are not
// fsync'd one by one (synchronous=NORMAL): after a crash the checkpoint rolls back with the writes it covers.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile } from '../dataDir.js';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import { applyUpdate, assertPath, getPath, isOperatorObject, upsertSeed } from './documents.js';
import type { Checkpoint, Comparable, Doc, Filter, FindOptions, IndexSpec, ReadStore, Update, WriteOp } from '../../ports/readStore.js';

type Param = string | number | null;

function sqlValue(value: Comparable): Param {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

function table(collection: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(collection)) throw new Error(`Unsupported collection name: ${collection}`);
  return `c_${collection}`;
}

function column(path: string): string {
  if (path === '_id') return 'id';
  assertPath(path);
  const jsonPath = path
    .split('.')
    .map((key) => (/^\d+$/.test(key) ? `[${key}]` : `.${key}`))
    .join('');
  return `json_extract(doc, '$${jsonPath}')`;
}

function compileFilter(filter: Filter, params: Param[]): string {
  const clauses: string[] = [];
  for (const [path, condition] of Object.entries(filter)) {
    const col = column(path);
    if (!isOperatorObject(condition)) {
      if (condition === null) clauses.push(`${col} IS NULL`);
      else {
        clauses.push(`${col} = ?`);
        params.push(sqlValue(condition));
      }
      continue;
    }
    for (const [op, operand] of Object.entries(condition)) {
      switch (op) {
        case '$eq':
        case '$ne':
          params.push(sqlValue(operand as Comparable));
          clauses.push(op === '$eq' ? `${col} IS ?` : `${col} IS NOT ?`);
          break;
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
          params.push(sqlValue(operand as Comparable));
          clauses.push(`${col} ${{ $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op]} ?`);
          break;
        case '$in':
        case '$nin': {
          const values = operand as Comparable[];
          const inner = values.length === 0 ? 'NULL' : values.map(() => '?').join(', ');
          params.push(...values.map(sqlValue));
          const test = `${col} IN (${inner})`;
          clauses.push(op === '$in' ? test : `(${col} IS NULL OR NOT ${test})`);
          break;
        }
        case '$exists':
          clauses.push(`${col} IS ${operand ? 'NOT ' : ''}NULL`);
          break;
        case '$all':
          for (const value of operand as Comparable[]) {
            clauses.push(`EXISTS (SELECT 1 FROM json_each(doc, '$.${path}') WHERE json_each.value = ?)`);
            params.push(sqlValue(value));
          }
          break;
        default:
          throw new Error(`Unsupported filter operator ${op}`);
      }
    }
  }
  return clauses.length ? clauses.join(' AND ') : '1';
}

/** The id a filter names (`{_id: "…", …}`): the documents a bulk write may keep in memory. */
const idOf = (filter: Filter): string | null => (typeof filter._id === 'string' ? filter._id : null);

const COMPARE = { $lt: (a: string | number, b: string | number) => a < b, $lte: (a: string | number, b: string | number) => a <= b, $gt: (a: string | number, b: string | number) => a > b, $gte: (a: string | number, b: string | number) => a >= b };

/**
 * Whether a batched document matches the rest of its filter, as the SQL would say; undefined where the answer would
 * take SQLite's own rules (values of different types, other operators): the caller then asks SQLite.
 */
function matchesInMemory(doc: Doc, filter: Filter): boolean | undefined {
  for (const [path, condition] of Object.entries(filter)) {
    if (path === '_id') continue;
    const value = getPath(doc, path);
    if (condition === null) {
      if (value !== null && value !== undefined) return false;
      continue;
    }
    if (!isOperatorObject(condition)) {
      if (typeof value !== typeof condition || typeof value === 'object') return undefined;
      if (value !== condition) return false;
      continue;
    }
    for (const [op, operand] of Object.entries(condition)) {
      const compare = COMPARE[op as keyof typeof COMPARE];
      if (!compare || (typeof operand !== 'string' && typeof operand !== 'number')) return undefined;
      if (value === null || value === undefined) return false;
      if (typeof value !== typeof operand) return undefined;
      if (!compare(value as string | number, operand)) return false;
    }
  }
  return true;
}

export class SqliteReadStore implements ReadStore {
  private readonly db: Database.Database;
  private readonly known = new Set<string>();
  private readonly statements = new Map<string, Database.Statement>();
  /**
   * During a bulk write, the documents its operations addressed by id, per table (null: there is none), written once
   * when the write ends: a batch of events updates the same few documents many times (a channel's last message id
   * for each message), and each would otherwise be read, parsed, changed, serialized and written again. Any other
   * operation on a table writes that table's pending documents first, so it sees them.
   */
  private batch: Map<string, Map<string, { doc: Doc | null; dirty: boolean }>> | null = null;

  constructor(file: string) {
    if (file !== ':memory:') createPrivateDatabaseFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL)');
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private ensureCollection(collection: string): string {
    const name = table(collection);
    if (!this.known.has(name)) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${name} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      this.known.add(name);
    }
    return name;
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    for (const index of indexes) {
      const name = this.ensureCollection(index.collection);
      const keys = Object.entries(index.keys);
      const indexName = `ix_${index.collection}_${keys.map(([k, d]) => `${k.replace(/\W/g, '_')}_${d === 1 ? 'a' : 'd'}`).join('_')}`;
      const columns = keys.map(([k, d]) => `${column(k)} ${d === 1 ? 'ASC' : 'DESC'}`).join(', ');
      this.db.exec(`CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${indexName} ON ${name} (${columns})`);
    }
  }

  private select(collection: string, filter: Filter, options: FindOptions = {}, what = 'id, doc'): { sql: string; params: Param[] } {
    const params: Param[] = [];
    const where = compileFilter(filter, params);
    let sql = `SELECT ${what} FROM ${this.ensureCollection(collection)} WHERE ${where}`;
    const sort = Object.entries(options.sort ?? {});
    if (sort.length) sql += ` ORDER BY ${sort.map(([k, d]) => `${column(k)} ${d === 1 ? 'ASC' : 'DESC'}`).join(', ')}`;
    if (options.limit !== undefined || options.skip !== undefined) {
      sql += ' LIMIT ? OFFSET ?';
      params.push(options.limit ?? -1, options.skip ?? 0);
    }
    return { sql, params };
  }

  private findSync<T extends Doc>(collection: string, filter: Filter, options?: FindOptions): T[] {
    const { sql, params } = this.select(collection, filter, options);
    return (this.statement(sql).all(...params) as { doc: string }[]).map((row) => JSON.parse(row.doc) as T);
  }

  async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
    return this.findSync<T>(collection, filter, { limit: 1 })[0] ?? null;
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options?: FindOptions): Promise<T[]> {
    return this.findSync<T>(collection, filter, options);
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const { sql, params } = this.select(collection, filter, {}, 'COUNT(*) AS n');
    return (this.statement(sql).get(...params) as { n: number }).n;
  }

  private write(name: string, doc: Doc): void {
    this.statement(`INSERT INTO ${name} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`).run(doc._id, JSON.stringify(doc));
  }

  private insert(name: string, doc: Doc): void {
    this.statement(`INSERT INTO ${name} (id, doc) VALUES (?, ?)`).run(doc._id, JSON.stringify(doc));
  }

  /** The batch's copy of the document `id` of the table, read from the table the first time. */
  private batched(name: string, id: string): { doc: Doc | null; dirty: boolean } {
    let docs = this.batch!.get(name);
    if (!docs) this.batch!.set(name, (docs = new Map()));
    let entry = docs.get(id);
    if (!entry) {
      const row = this.statement(`SELECT doc FROM ${name} WHERE id = ?`).get(id) as { doc: string } | undefined;
      docs.set(id, (entry = { doc: row ? (JSON.parse(row.doc) as Doc) : null, dirty: false }));
    }
    return entry;
  }

  /** Writes the batch's changed documents of one table (or of all), and forgets them. */
  private flush(name?: string): void {
    for (const [table, docs] of this.batch ?? []) {
      if (name !== undefined && table !== name) continue;
      for (const entry of docs.values()) if (entry.dirty && entry.doc) this.write(table, entry.doc);
      this.batch!.delete(table);
    }
  }

  private updateMatching(collection: string, filter: Filter, update: Update, limit: number | undefined, upsert: boolean): void {
    const name = this.ensureCollection(collection);
    const id = limit === 1 ? idOf(filter) : null;
    if (this.batch && id !== null) {
      const entry = this.batched(name, id);
      // A document that exists but does not match an upsert's filter is SQLite's to refuse (a duplicate id).
      const matches = entry.doc ? matchesInMemory(entry.doc, filter) : upsert;
      if (matches === false && !(upsert && entry.doc)) return;
      if (matches === true) {
        entry.doc = applyUpdate(entry.doc ?? upsertSeed(filter, randomUUID), update, !entry.doc);
        entry.dirty = true;
        return;
      }
    }
    this.flush(name);
    const found = this.findSync(collection, filter, limit === undefined ? {} : { limit });
    if (found.length === 0 && upsert) {
      this.insert(name, applyUpdate(upsertSeed(filter, randomUUID), update, true));
      return;
    }
    for (const doc of found) this.write(name, applyUpdate(doc, update));
  }

  private apply(op: WriteOp): void {
    if ('insertOne' in op) {
      const name = this.ensureCollection(op.insertOne.collection);
      this.flush(name);
      this.insert(name, op.insertOne.document);
    } else if ('replaceOne' in op) {
      const { collection, filter, replacement, upsert } = op.replaceOne;
      const name = this.ensureCollection(collection);
      if (this.batch && idOf(filter) === replacement._id && Object.keys(filter).length === 1) {
        const entry = this.batched(name, replacement._id);
        if (entry.doc || upsert) Object.assign(entry, { doc: structuredClone(replacement), dirty: true });
        return;
      }
      this.flush(name);
      const [existing] = this.findSync(collection, filter, { limit: 1 });
      if (existing) {
        if (existing._id !== replacement._id) this.statement(`DELETE FROM ${name} WHERE id = ?`).run(existing._id);
        this.write(name, replacement);
      } else if (upsert) this.insert(name, replacement);
    } else if ('updateOne' in op) {
      this.updateMatching(op.updateOne.collection, op.updateOne.filter, op.updateOne.update, 1, op.updateOne.upsert ?? false);
    } else if ('updateMany' in op) {
      this.updateMatching(op.updateMany.collection, op.updateMany.filter, op.updateMany.update, undefined, false);
    } else {
      const { collection, filter } = 'deleteOne' in op ? op.deleteOne : op.deleteMany;
      const limit = 'deleteOne' in op ? ' LIMIT 1' : '';
      const params: Param[] = [];
      const where = compileFilter(filter, params);
      const name = this.ensureCollection(collection);
      this.flush(name);
      this.statement(`DELETE FROM ${name} WHERE id IN (SELECT id FROM ${name} WHERE ${where}${limit})`).run(...params);
    }
  }

  async bulkWrite(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
    const write = this.db.transaction(() => {
      this.batch = new Map();
      for (const op of ops) this.apply(op);
      this.flush();
      for (const checkpoint of checkpoints) {
        this.statement('INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position').run(
          checkpoint.projection,
          encodePosition(checkpoint.position),
        );
      }
    });
    try {
      write();
    } catch (error) {
      this.batch = null;
      // The rollback also undid any CREATE TABLE of the write: forget which tables are known to exist.
      this.known.clear();
      throw error;
    }
    this.batch = null;
  }

  async getCheckpoint(projection: string): Promise<Position | null> {
    const row = this.statement('SELECT position FROM checkpoints WHERE projection = ?').get(projection) as { position: string } | undefined;
    return row ? decodePosition(row.position) : null;
  }

  async reset(projection: string, collections: string[]): Promise<void> {
    this.db.transaction(() => {
      for (const collection of collections) this.statement(`DELETE FROM ${this.ensureCollection(collection)}`).run();
      this.statement('DELETE FROM checkpoints WHERE projection = ?').run(projection);
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
