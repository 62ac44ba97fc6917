// Embedded read store: each collection is a SQLite table of JSON documents; filters become SQL over json_extract,
// declared indexes become expression indexes on the same expressions, and a bulk write commits together with the
// projector checkpoints in one transaction. Read models can always be rebuilt from the log, so commits are not
// fsync'd one by one (synchronous=NORMAL): after a crash the checkpoint rolls back with the writes it covers.
// Documents parsed once are kept with the text they came from: a row read again with the same text (a page of
// messages is mostly the page before) gives the same, frozen, object instead of being parsed again. A query's result
// is kept until the next write to its table (this store is the read models' one writer, the projectors': a write
// through it is the only way they change), so a page read again between writes costs no query at all. Both are
// dropped by the write that changes or deletes their rows, so no copy of a deleted document stays in memory either.
// Text a write removed or replaced does not linger (docs/privacy.md): secure_delete zeroes what a write frees, and a
// TRUNCATE checkpoint soon after writes empties the WAL, whose frames keep every page as it was before. Checkpoints and
// that scrub run on a thread of their own (walKeeper.ts): their copying and fsync stalled this one, the requests'.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { createPrivateDatabaseFile } from '../dataDir.js';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import { deepFreeze } from '../frozen.js';
import { applyUpdate, assertPath, collectionOf, isOperatorObject, mergeUpdateRuns, upsertSeed } from './documents.js';
import { WalKeeper } from './walKeeper.js';
import type { Checkpoint, Comparable, Doc, Filter, FindOptions, IndexSpec, ReadStore, Update, WriteOp } from '../../ports/readStore.js';

type Param = string | number | null;

/** The page cache during a bulk load (64 MiB). */
const BULK_CACHE = -65_536;

/** A field json_set can name as it is: not _id, not a dotted path. */
const TOP_LEVEL_FIELD = /^(?!_id$)[A-Za-z_]\w*$/;

/** How much document text the parsed documents kept in memory may stand for (the objects take a few times more). */
const PARSED_TEXT = 8 * 2 ** 20;

/** How soon after a write the WAL's old page images are gone, by default (READ_MODEL_SCRUB_MS). */
export const SCRUB_AFTER_MS = 1000;

function sqlValue(value: Comparable): Param {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * Whole documents upserted by one statement (upsertRun): a row's statement costs about a quarter more than its share
 * of one writing 32 (measured with 620-byte documents, a created message's).
 */
const UPSERT_ROWS = 32;

/** Whether a replacement names its document by the document's own _id and nothing else. */
const byOwnId = ({ filter, replacement }: { filter: Filter; replacement: Doc }) => Object.keys(filter).length === 1 && filter._id === replacement._id;

/** By collection: its table's name (checked once: a bulk write names one for each of its operations). */
const tables = new Map<string, string>();

function table(collection: string): string {
  let name = tables.get(collection);
  if (name === undefined) {
    if (!/^[a-z][a-z0-9_]*$/.test(collection)) throw new Error(`Unsupported collection name: ${collection}`);
    name = `c_${collection}`;
    tables.set(collection, name);
  }
  return name;
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

/** A filter's WHERE clause, its parameters pushed onto `params` in the order of its placeholders. */
function compileWhere(filter: Filter, params: Param[]): string {
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
          // A null in the list stands for a null or missing field (json_extract's NULL), as in MongoDB: SQL's IN never
          // matches NULL, so it is tested apart.
          const values = (operand as Comparable[]).filter((value) => value !== null);
          const withNull = values.length < (operand as Comparable[]).length;
          params.push(...values.map(sqlValue));
          const listed = values.length === 0 ? '0' : `${col} IN (${values.map(() => '?').join(', ')})`;
          if (op === '$in') clauses.push(withNull ? `(${col} IS NULL OR ${listed})` : listed);
          else clauses.push(withNull ? `(${col} IS NOT NULL AND NOT ${listed})` : `(${col} IS NULL OR NOT ${listed})`);
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

/** Compiled statements kept by shape (compiledSql): filters and sorts come from code, but a path may hold an id. */
const COMPILED_SHAPES = 10_000;

/**
 * SQL by shape (shapeOf): a query of a shape seen before reuses it, with only its values collected anew. Its `key`, a
 * short name of the SQL, keys a query's kept result, which a key of the whole SQL would make longer to look up.
 */
const compiledSql = new Map<string, { sql: string; key: string }>();
let compiledCount = 0;

function rememberSql(shape: string, sql: string): { sql: string; key: string } {
  if (compiledSql.size >= COMPILED_SHAPES) compiledSql.clear();
  const compiled = { sql, key: `q${++compiledCount}` };
  compiledSql.set(shape, compiled);
  return compiled;
}

/**
 * What compileWhere's SQL depends on besides the values: each path with its operators, whether an equality is with null,
 * how many values a list holds and whether null is one, an $exists's truth. Pushes the filter's parameters onto
 * `params` in compileWhere's order, so the SQL of the shape takes them as they are.
 */
function shapeOf(filter: Filter, params: Param[]): string {
  let shape = '';
  for (const path in filter) {
    const condition = filter[path];
    shape += `${path}\u0001`;
    if (!isOperatorObject(condition)) {
      if (condition === null) shape += 'null';
      else params.push(sqlValue(condition));
    } else {
      for (const op in condition) {
        const operand = (condition as Record<string, unknown>)[op];
        shape += op;
        if (op === '$in' || op === '$nin' || op === '$all') {
          const values = operand as Comparable[];
          for (const value of values) {
            if (value === null && op !== '$all') shape += 'n';
            else {
              shape += 'v';
              params.push(sqlValue(value));
            }
          }
        } else if (op === '$exists') shape += operand ? '1' : '0';
        else params.push(sqlValue(operand as Comparable));
      }
    }
    shape += '\u0002';
  }
  return shape;
}

/** The filter's WHERE clause, compiled once for its shape; its parameters pushed onto `params`. */
function compileFilter(filter: Filter, params: Param[]): string {
  const shape = `where\u0003${shapeOf(filter, params)}`;
  return (compiledSql.get(shape) ?? rememberSql(shape, compileWhere(filter, []))).sql;
}

export class SqliteReadStore implements ReadStore {
  private readonly db: Database.Database;
  private readonly known = new Set<string>();
  /** By table being bulk loaded: the secondary indexes (name, CREATE statement) to build when the load ends. */
  private readonly loading = new Map<string, Map<string, string>>();
  private readonly statements = new Map<string, Database.Statement>();
  /** By table: its upsert of a whole document (every created message's write), not looked up by its SQL each time. */
  private readonly upserts = new Map<string, Database.Statement>();
  /** By table: its upsert of UPSERT_ROWS whole documents (upsertRun). */
  private readonly upsertRuns = new Map<string, Database.Statement>();
  /** Results by query (SQL and parameters), with the table they were read from; 100,000 documents at most. */
  private readonly results = new LRUCache<string, { table: string; docs: Doc[] }>({
    maxSize: 100_000,
    sizeCalculation: (result) => result.docs.length + 1,
    dispose: (result, key) => this.resultKeys.get(result.table)?.delete(key),
  });
  /** By table: the keys of its results in `results`, which the next write to the table drops. */
  private readonly resultKeys = new Map<string, Set<string>>();
  /** By table and id: a document as parsed, and the text it was parsed from. */
  private readonly parsed = new LRUCache<string, { text: string; doc: Doc }>({ maxSize: PARSED_TEXT, sizeCalculation: (entry) => entry.text.length || 1 });

  /** Checkpoints and scrubs the WAL on a thread of its own; none for an in-memory database, or once it failed. */
  private keeper: WalKeeper | null = null;
  /** Only while the keeper is gone: the pending scrub (scrub()), armed by the first write after the last one. */
  private scrubTimer: NodeJS.Timeout | null = null;

  /** `scrubAfterMs`: how long after a write its WAL frames may remain (the bound docs/privacy.md gives). */
  constructor(
    private readonly file: string,
    private readonly scrubAfterMs = SCRUB_AFTER_MS,
  ) {
    if (file !== ':memory:') createPrivateDatabaseFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Deleted rows, a document's text before an update, freed pages: overwritten with zeros, not left in free space.
    this.db.pragma('secure_delete = ON');
    this.db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL)');
    // The keeper also scrubs at once the WAL a killed process left, which holds the old images of its last writes.
    if (file !== ':memory:') {
      this.keeper = new WalKeeper(file, scrubAfterMs, () => this.keeperFailed());
      this.db.pragma('wal_autocheckpoint = 0');
    }
  }

  /** Without its keeper, this thread checkpoints (automatically, as SQLite does by default) and scrubs again. */
  private keeperFailed(): void {
    this.keeper = null;
    if (!this.db.open) return;
    this.db.pragma('wal_autocheckpoint = 1000');
    this.scheduleScrub();
  }

  /** After every commit: the WAL's new frames are checkpointed and scrubbed soon. */
  private committed(): void {
    if (this.keeper) this.keeper.written();
    else this.scheduleScrub();
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
      const sql = `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${indexName} ON ${name} (${columns})`;
      const deferred = this.loading.get(name);
      if (deferred && !index.unique) deferred.set(indexName, sql);
      else this.db.exec(sql);
    }
  }

  /**
   * Keeping secondary indexes up to date row by row costs about as much as writing the rows: the loaded tables' are
   * dropped, and built once at the end by a sort. Unique indexes stay, so a load refuses what a write would. The page
   * cache is enlarged meanwhile, and the keeper holds its scrubs (its checkpoints go on, on another core). A crash
   * before the end leaves the indexes missing and nothing else wrong: ensureIndexes at the next start creates them.
   */
  async bulkLoad<T>(collections: string[], load: () => Promise<T>): Promise<T> {
    const names = [...new Set(collections.map((collection) => this.ensureCollection(collection)))];
    const busy = names.find((name) => this.loading.has(name));
    if (busy) throw new Error(`${busy} is already being loaded`);
    const indexSql = this.db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?");
    for (const name of names) {
      const deferred = new Map<string, string>();
      for (const index of this.db.prepare(`PRAGMA index_list(${name})`).all() as { name: string; unique: number; origin: string }[]) {
        if (index.unique || index.origin !== 'c') continue;
        deferred.set(index.name, indexSql.get(index.name)!.sql);
        this.db.exec(`DROP INDEX ${index.name}`);
      }
      this.loading.set(name, deferred);
    }
    // A TRUNCATE would make the load's writes wait for it: the load's end arms one instead.
    this.keeper?.holdScrubs(true);
    this.cancelScrub();
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma(`cache_size = ${BULK_CACHE}`);
    try {
      return await load();
    } finally {
      for (const name of names) {
        for (const sql of this.loading.get(name)!.values()) this.db.exec(sql);
        this.loading.delete(name);
      }
      this.db.pragma(`cache_size = ${cacheSize}`);
      this.keeper?.holdScrubs(false);
      this.committed();
    }
  }

  /**
   * Only while the keeper is gone (it failed): a write's old page images stay in the WAL until a checkpoint copies the
   * pages and the WAL is written over, which a quiet server may never do: the first write after a scrub arms one, so
   * at most one runs per interval (about 15 ms of this thread with its fsync after a busy second) and none while idle.
   * Not during a bulk load, whose writes the TRUNCATE would make wait: its end arms one.
   */
  private scheduleScrub(): void {
    if (this.scrubTimer || this.file === ':memory:' || this.loading.size > 0) return;
    this.scrubTimer = setTimeout(() => this.scrub(), this.scrubAfterMs);
    this.scrubTimer.unref();
  }

  private cancelScrub(): void {
    if (this.scrubTimer) clearTimeout(this.scrubTimer);
    this.scrubTimer = null;
  }

  /**
   * Copies every page into the database file (where secure_delete already zeroed what was freed) and truncates the
   * WAL to nothing. Never waits on another connection's read (the main thread would stall): a busy WAL is tried again
   * one interval later.
   */
  private scrub(): void {
    this.scrubTimer = null;
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result.busy) this.scheduleScrub();
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  private select(collection: string, filter: Filter, options: FindOptions = {}, what = 'id, doc'): { sql: string; key: string; params: Param[] } {
    const params: Param[] = [];
    const name = this.ensureCollection(collection);
    const limited = options.limit !== undefined || options.skip !== undefined;
    let shape = `${name}\u0003${what}\u0003${shapeOf(filter, params)}\u0003${limited ? 'limit' : ''}`;
    for (const path in options.sort) shape += `\u0003${path}\u0001${options.sort[path]}`;
    if (limited) params.push(options.limit ?? -1, options.skip ?? 0);
    const { sql, key } = compiledSql.get(shape) ?? rememberSql(shape, this.selectSql(name, filter, options, what));
    return { sql, key, params };
  }

  private selectSql(name: string, filter: Filter, options: FindOptions, what: string): string {
    let sql = `SELECT ${what} FROM ${name} WHERE ${compileWhere(filter, [])}`;
    const sort = Object.entries(options.sort ?? {});
    if (sort.length) sql += ` ORDER BY ${sort.map(([k, d]) => `${column(k)} ${d === 1 ? 'ASC' : 'DESC'}`).join(', ')}`;
    if (options.limit !== undefined || options.skip !== undefined) sql += ' LIMIT ? OFFSET ?';
    return sql;
  }

  private findSync<T extends Doc>(collection: string, filter: Filter, options?: FindOptions): T[] {
    const { sql, key: compiled, params } = this.select(collection, filter, options);
    const name = table(collection);
    const key = `${compiled}\n${JSON.stringify(params)}`;
    let result = this.results.get(key);
    if (!result) {
      result = { table: name, docs: (this.statement(sql).all(...params) as { id: string; doc: string }[]).map((row) => this.parse(name, row)) };
      this.results.set(key, result);
      let keys = this.resultKeys.get(name);
      if (!keys) this.resultKeys.set(name, (keys = new Set()));
      keys.add(key);
    }
    // The caller's own array: sorting or reversing it leaves the kept result as it is.
    return result.docs.slice() as T[];
  }

  /**
   * Called after every write to a table, even one that failed: the results read from it before, inside the write's
   * transaction too (which a failure rolls back), are no longer its contents.
   */
  private written(collection: string): void {
    const keys = this.resultKeys.get(table(collection));
    if (keys) for (const key of [...keys]) this.results.delete(key);
  }

  /** The rows a write changed or deleted: their parsed documents go, so memory keeps no text the file no longer has. */
  private forgetParsed(name: string, ids: Iterable<string>): void {
    for (const id of ids) this.forgetOne(name, id);
  }

  /** Forgets one parsed document: a write of one document by id (every created message's) makes no list of ids. */
  private forgetOne(name: string, id: string): void {
    this.parsed.delete(`${name}/${id}`);
  }

  /** Runs a statement ending in RETURNING id, and forgets the parsed documents of the rows it returns. */
  private runForgetting(name: string, sql: string, params: Param[]): void {
    this.forgetParsed(
      name,
      (this.statement(sql).all(...params) as { id: string }[]).map((row) => row.id),
    );
  }

  /** The row's document: the one parsed before while the row still holds the same text. */
  private parse<T extends Doc>(name: string, row: { id: string; doc: string }): T {
    const key = `${name}/${row.id}`;
    const known = this.parsed.get(key);
    if (known?.text === row.doc) return known.doc as T;
    const doc = deepFreeze(JSON.parse(row.doc) as Doc);
    this.parsed.set(key, { text: row.doc, doc });
    return doc as T;
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
    this.forgetOne(name, doc._id);
    let upsert = this.upserts.get(name);
    if (!upsert) {
      upsert = this.statement(`INSERT INTO ${name} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`);
      this.upserts.set(name, upsert);
    }
    upsert.run(doc._id, JSON.stringify(doc));
  }

  private insert(name: string, doc: Doc): void {
    this.statement(`INSERT INTO ${name} (id, doc) VALUES (?, ?)`).run(doc._id, JSON.stringify(doc));
  }

  private updateMatching(collection: string, filter: Filter, update: Update, limit: number | undefined, upsert: boolean): void {
    if (!upsert && this.setInPlace(collection, filter, update, limit)) return;
    const name = this.ensureCollection(collection);
    // By _id alone (what projections mostly update by, often a document that is not there): one row looked up by its key.
    const byId = Object.keys(filter).length === 1 && typeof filter._id === 'string' ? filter._id : null;
    const found =
      byId !== null
        ? (this.statement(`SELECT id, doc FROM ${name} WHERE id = ?`).all(byId) as { id: string; doc: string }[]).map((row) => this.parse<Doc>(name, row))
        : this.findSync(collection, filter, limit === undefined ? {} : { limit });
    if (found.length === 0 && upsert) {
      this.insert(name, applyUpdate(upsertSeed(filter, randomUUID), update, true));
      return;
    }
    for (const doc of found) this.write(name, applyUpdate(doc, update));
  }

  /**
   * An update that only sets top-level fields, or raises one by $max (a channel's last_message_id), is one statement:
   * SQLite's json_set writes the fields into the stored text, which it leaves as JSON.stringify wrote it, so nothing is
   * read, parsed and written back. Only where the filter pins the document when one is updated: SQLite would pick the
   * first of several matches by another plan than a find's. False when the update needs the general path.
   */
  private setInPlace(collection: string, filter: Filter, update: Update, limit: number | undefined): boolean {
    const max = Object.entries(update.$max ?? {});
    const fields = update.$max ? max : Object.entries(update.$set ?? {});
    if (Object.keys(update).length !== 1 || fields.length === 0 || max.length > 1 || (limit !== undefined && typeof filter._id !== 'string')) return false;
    const values = fields.map(([, value]) => JSON.stringify(value) as string | undefined);
    if (fields.some(([path], i) => !TOP_LEVEL_FIELD.test(path) || values[i] === undefined)) return false;
    const params: Param[] = [];
    let where = compileFilter(filter, params);
    for (const [path, value] of max) {
      // isBelow (documents.ts) in SQL: TEXT compares by its UTF-8 bytes.
      const type = `json_type(doc, '$.${path}')`;
      where += ` AND (${type} IS NULL OR ${type} IN ('null', 'integer', 'real') OR (${type} = 'text' AND json_extract(doc, '$.${path}') < ?))`;
      params.push(value);
    }
    const name = this.ensureCollection(collection);
    const sets = fields.map(([path]) => `'$.${path}', json(?)`).join(', ');
    // By _id, the row is named outright: the IN (subquery) form that pins one of several matches costs half as much again.
    const byId = Object.keys(filter).length === 1 && typeof filter._id === 'string';
    const matching = byId ? where : `id IN (SELECT id FROM ${name} WHERE ${where}${limit === undefined ? '' : ` LIMIT ${limit}`})`;
    this.runForgetting(name, `UPDATE ${name} SET doc = json_set(doc, ${sets}) WHERE ${matching} RETURNING id`, [...(values as string[]), ...params]);
    return true;
  }

  private apply(op: WriteOp): void {
    try {
      this.applyOne(op);
    } finally {
      this.written(collectionOf(op));
    }
  }

  /**
   * When `ops` from `at` begin with UPSERT_ROWS upserts of whole documents by their own _id into one collection (a
   * batch's created messages), writes them with one statement and returns how many; 0 otherwise. SQLite upserts the
   * rows of one statement in turn, so an id given twice ends as its last document, as one statement a row would leave it.
   */
  private upsertRun(ops: WriteOp[], at: number): number {
    if (ops.length - at < UPSERT_ROWS) return 0;
    const first = ops[at];
    if (!('replaceOne' in first)) return 0;
    const { collection } = first.replaceOne;
    for (let i = at; i < at + UPSERT_ROWS; i++) {
      const op = ops[i];
      if (!('replaceOne' in op) || !op.replaceOne.upsert || op.replaceOne.collection !== collection || !byOwnId(op.replaceOne)) return 0;
    }
    const name = this.ensureCollection(collection);
    let upsert = this.upsertRuns.get(name);
    if (!upsert) {
      const rows = Array.from({ length: UPSERT_ROWS }, () => '(?, ?)').join(', ');
      upsert = this.statement(`INSERT INTO ${name} (id, doc) VALUES ${rows} ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`);
      this.upsertRuns.set(name, upsert);
    }
    const params: string[] = [];
    for (let i = at; i < at + UPSERT_ROWS; i++) {
      const { replacement } = (ops[i] as Extract<WriteOp, { replaceOne: unknown }>).replaceOne;
      this.forgetOne(name, replacement._id);
      params.push(replacement._id, JSON.stringify(replacement));
    }
    try {
      upsert.run(...params);
    } finally {
      this.written(collection);
    }
    return UPSERT_ROWS;
  }

  private applyOne(op: WriteOp): void {
    if ('insertOne' in op) {
      this.insert(this.ensureCollection(op.insertOne.collection), op.insertOne.document);
    } else if ('replaceOne' in op) {
      const { collection, filter, replacement, upsert } = op.replaceOne;
      const name = this.ensureCollection(collection);
      // A document replaced by its own _id (what projections do) is written by one statement, with nothing read first.
      if (byOwnId(op.replaceOne)) {
        if (upsert) this.write(name, replacement);
        else {
          this.forgetParsed(name, [replacement._id]);
          this.statement(`UPDATE ${name} SET doc = ? WHERE id = ?`).run(JSON.stringify(replacement), replacement._id);
        }
        return;
      }
      const [existing] = this.findSync(collection, filter, { limit: 1 });
      if (existing) {
        if (existing._id !== replacement._id) this.runForgetting(name, `DELETE FROM ${name} WHERE id = ? RETURNING id`, [existing._id]);
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
      this.runForgetting(name, `DELETE FROM ${name} WHERE id IN (SELECT id FROM ${name} WHERE ${where}${limit}) RETURNING id`, params);
    }
  }

  async bulkWrite(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
    const write = this.db.transaction(() => {
      const merged = mergeUpdateRuns(ops);
      for (let i = 0; i < merged.length;) {
        const upserted = this.upsertRun(merged, i);
        if (upserted > 0) i += upserted;
        else this.apply(merged[i++]);
      }
      // One statement for the batch's checkpoints (every projection's, on each batch the projectors write), not one each.
      if (checkpoints.length > 0) {
        const rows = checkpoints.map(() => '(?, ?)').join(', ');
        this.statement(`INSERT INTO checkpoints (projection, position) VALUES ${rows} ON CONFLICT (projection) DO UPDATE SET position = excluded.position`).run(
          ...checkpoints.flatMap((checkpoint) => [checkpoint.projection, encodePosition(checkpoint.position)]),
        );
      }
    });
    try {
      // IMMEDIATE: the write lock taken before the first read. In a deferred transaction that reads first, the keeper's
      // TRUNCATE between that read and the first write would leave a snapshot SQLite refuses to write on (SQLITE_BUSY
      // at once, the busy timeout not waited): IMMEDIATE waits for the TRUNCATE instead.
      write.immediate();
    } catch (error) {
      // The rollback also undid any CREATE TABLE of the write: forget which tables are known to exist.
      this.known.clear();
      throw error;
    }
    this.committed();
  }

  async getCheckpoint(projection: string): Promise<Position | null> {
    const row = this.statement('SELECT position FROM checkpoints WHERE projection = ?').get(projection) as { position: string } | undefined;
    return row ? decodePosition(row.position) : null;
  }

  async getCheckpoints(projections: readonly string[]): Promise<Map<string, Position | null>> {
    const rows = this.db
      .prepare(`SELECT projection, position FROM checkpoints WHERE projection IN (${projections.map(() => '?').join(',')})`)
      .all(...projections) as { projection: string; position: string }[];
    const found = new Map(rows.map((row) => [row.projection, decodePosition(row.position)]));
    return new Map(projections.map((name) => [name, found.get(name) ?? null]));
  }

  async reset(projection: string, collections: string[]): Promise<void> {
    const clear = this.db.transaction(() => {
      for (const collection of collections) {
        const name = this.ensureCollection(collection);
        this.statement(`DELETE FROM ${name}`).run();
        for (const key of [...this.parsed.keys()]) if (key.startsWith(`${name}/`)) this.parsed.delete(key);
        this.written(collection);
      }
      this.statement('DELETE FROM checkpoints WHERE projection = ?').run(projection);
    });
    // IMMEDIATE, as bulkWrite's.
    clear.immediate();
    this.committed();
  }

  /** Closing the last connection (the keeper's first) checkpoints and removes the WAL: nothing for a pending scrub to do. */
  async close(): Promise<void> {
    await this.keeper?.stop();
    this.cancelScrub();
    this.db.close();
  }
}
