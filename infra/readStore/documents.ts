// MongoDB's update operators and filter matching on plain documents, for read stores that keep JSON documents
// without a document engine of their own.
import { isDeepStrictEqual } from 'node:util';
import type { Comparable, Doc, FieldCondition, Filter, Update, WriteOp } from '../../ports/readStore.js';

const PATH = /^[A-Za-z_$][\w$]*(\.[\w$]+)*$/;

export function assertPath(path: string): void {
  if (!PATH.test(path)) throw new Error(`Unsupported field path: ${path}`);
}

export function getPath(doc: unknown, path: string): unknown {
  let value: unknown = doc;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function parentOf(doc: Record<string, unknown>, path: string, create: boolean): [Record<string, unknown>, string] | null {
  const keys = path.split('.');
  let target: Record<string, unknown> = doc;
  for (const key of keys.slice(0, -1)) {
    let next = target[key];
    if (next === undefined || next === null) {
      if (!create) return null;
      next = {};
      target[key] = next;
    }
    if (typeof next !== 'object') throw new Error(`Cannot descend into ${key} of ${path}`);
    target = next as Record<string, unknown>;
  }
  return [target, keys[keys.length - 1]];
}

function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const [parent, key] = parentOf(doc, path, true)!;
  parent[key] = value;
}

function arrayAt(doc: Record<string, unknown>, path: string): unknown[] {
  const current = getPath(doc, path);
  if (current === undefined || current === null) {
    const created: unknown[] = [];
    setPath(doc, path, created);
    return created;
  }
  if (!Array.isArray(current)) throw new Error(`${path} is not an array`);
  return current;
}

function pullMatches(element: unknown, condition: unknown): boolean {
  if (condition !== null && typeof condition === 'object' && !Array.isArray(condition)) {
    if (element === null || typeof element !== 'object') return false;
    return Object.entries(condition).every(([k, v]) => isDeepStrictEqual(getPath(element, k), v));
  }
  return isDeepStrictEqual(element, condition);
}

function eachOf(value: unknown): unknown[] {
  if (value !== null && typeof value === 'object' && '$each' in value) return (value as { $each: unknown[] }).$each;
  return [value];
}

/** Whether $max replaces `current` by the string `value`: a missing, null or number value, or a string sorting before it. */
export function isBelow(current: unknown, value: string): boolean {
  if (current === undefined || current === null || typeof current === 'number') return true;
  return typeof current === 'string' && utf8Below(current, value);
}

/**
 * Whether `a` sorts before `b` by their UTF-8 bytes. Below U+D800 a UTF-16 code unit orders as its UTF-8 bytes do, so
 * the first differing unit decides without encoding either string (a batch's merged raises compare one per message);
 * a surrogate or a unit above it there is left to the bytes themselves.
 */
function utf8Below(a: string, b: string): boolean {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x < y;
    return Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;
  }
  return a.length < b.length;
}

/** The operators a run of updates of one document may be merged over. */
type MergedUpdate = Pick<Update, '$set' | '$inc' | '$max'>;
type UpdateOne = Extract<WriteOp, { updateOne: unknown }>;

/**
 * The operations with each run of updates of one document by _id merged into the first of the run, when no other
 * operation on its collection comes between them and the run's updates only $set, $inc (by whole numbers) or $max
 * top-level fields, each field by one operator: the batch of a busy channel's messages sets its last_message_id, and
 * counts them in its thread, once instead of once per message. The same writes, in fewer statements.
 */
export function mergeUpdateRuns(ops: WriteOp[]): WriteOp[] {
  const merged: WriteOp[] = [];
  /** By collection: the run its last operation opened, when a later update of the same document may join it. */
  const open = new Map<string, Run | null>();
  for (const op of ops) {
    const collection = collectionOf(op);
    const run = open.get(collection);
    const id = 'updateOne' in op ? idAlone(op.updateOne) : null;
    if (id !== null) {
      if (run && run.id === id && run.join((op as UpdateOne).updateOne.update)) continue;
      merged.push(op);
      open.set(collection, new Run(id, op as UpdateOne, merged, merged.length - 1));
    } else {
      merged.push(op);
      if (run) open.set(collection, null);
    }
  }
  return merged;
}

/** The _id of an update that names its document by _id alone and does not upsert; null for any other. */
function idAlone({ filter, upsert }: UpdateOne['updateOne']): string | null {
  if (upsert || typeof filter._id !== 'string') return null;
  for (const field in filter) if (field !== '_id') return null;
  return filter._id;
}

/**
 * A run of updates of one document: its first operation, replaced in `into` by a merged copy once a second joins (the
 * caller's operations are left as they were).
 */
class Run {
  private update: MergedUpdate | null = null;
  /** Whether the first update may be merged at all: known at the first join. */
  private first: boolean | null = null;

  constructor(
    readonly id: string,
    private readonly op: UpdateOne,
    private readonly into: WriteOp[],
    private readonly at: number,
  ) {}

  /** Joins `next` to the run, unless it cannot be merged into it (then nothing changes). */
  join(next: Update): boolean {
    this.first ??= mergeableUpdate(this.op.updateOne.update);
    if (!this.first || !mergeableUpdate(next)) return false;
    const current = this.update ?? (this.op.updateOne.update as MergedUpdate);
    // A field written by another operator in the run: the two would not commute.
    if (next.$set && (sharesField(next.$set, current.$inc) || sharesField(next.$set, current.$max))) return false;
    if (next.$inc && (sharesField(next.$inc, current.$set) || sharesField(next.$inc, current.$max))) return false;
    if (next.$max && (sharesField(next.$max, current.$set) || sharesField(next.$max, current.$inc))) return false;
    if (next.$inc) for (const field in next.$inc) if (!Number.isSafeInteger((current.$inc?.[field] ?? 0) + next.$inc[field])) return false;
    if (!this.update) {
      const { $set, $inc, $max } = current;
      const update: MergedUpdate = {};
      if ($set) update.$set = { ...$set };
      if ($inc) update.$inc = { ...$inc };
      if ($max) update.$max = { ...$max };
      this.update = update;
      this.into[this.at] = { updateOne: { collection: this.op.updateOne.collection, filter: { _id: this.id }, update } };
    }
    const update = this.update;
    if (next.$set) {
      const set = (update.$set ??= {});
      for (const field in next.$set) set[field] = next.$set[field];
    }
    if (next.$inc) {
      const inc = (update.$inc ??= {});
      for (const field in next.$inc) inc[field] = (inc[field] ?? 0) + next.$inc[field];
    }
    if (next.$max) {
      const max = (update.$max ??= {});
      for (const field in next.$max) if (isBelow(max[field], next.$max[field])) max[field] = next.$max[field];
    }
    return true;
  }
}

/** Whether `other` has a field `fields` names. */
function sharesField(fields: Record<string, unknown>, other: Record<string, unknown> | undefined): boolean {
  if (other) for (const field in fields) if (Object.hasOwn(other, field)) return true;
  return false;
}

/** Whether an update only $sets, $incs (by whole numbers) or $maxes top-level fields, each by one operator. */
function mergeableUpdate(update: Update): boolean {
  for (const operator in update) {
    if (operator !== '$set' && operator !== '$inc' && operator !== '$max') return false;
    const fields = update[operator]!;
    for (const field in fields) {
      if (field === '_id' || field.includes('.')) return false;
      // Whole numbers add up exactly in any order (within 2^53), as a run of single increments does.
      if (operator === '$inc' && !Number.isSafeInteger(fields[field])) return false;
    }
  }
  const { $set, $inc, $max } = update;
  return !($set && (sharesField($set, $inc) || sharesField($set, $max))) && !($inc && sharesField($inc, $max));
}

/** Returns a new document with the update applied; `inserting` enables $setOnInsert. */
export function applyUpdate<T extends Doc>(original: T, update: Update, inserting = false): T {
  const doc = structuredClone(original) as Record<string, unknown>;
  for (const [path, value] of Object.entries(update.$set ?? {})) setPath(doc, path, structuredClone(value));
  if (inserting) for (const [path, value] of Object.entries(update.$setOnInsert ?? {})) setPath(doc, path, structuredClone(value));
  for (const path of Object.keys(update.$unset ?? {})) {
    const found = parentOf(doc, path, false);
    if (found) delete found[0][found[1]];
  }
  for (const [path, by] of Object.entries(update.$inc ?? {})) {
    const current = getPath(doc, path);
    setPath(doc, path, (typeof current === 'number' ? current : 0) + by);
  }
  for (const [path, value] of Object.entries(update.$max ?? {})) if (isBelow(getPath(doc, path), value)) setPath(doc, path, value);
  for (const [path, value] of Object.entries(update.$push ?? {})) arrayAt(doc, path).push(...structuredClone(eachOf(value)));
  for (const [path, value] of Object.entries(update.$addToSet ?? {})) {
    const array = arrayAt(doc, path);
    for (const item of eachOf(value)) if (!array.some((e) => isDeepStrictEqual(e, item))) array.push(structuredClone(item));
  }
  for (const [path, condition] of Object.entries(update.$pull ?? {})) {
    const current = getPath(doc, path);
    if (Array.isArray(current))
      setPath(
        doc,
        path,
        current.filter((e) => !pullMatches(e, condition)),
      );
  }
  return doc as T;
}

function isOperatorObject(condition: FieldCondition): condition is Exclude<FieldCondition, Comparable> {
  return condition !== null && typeof condition === 'object' && Object.keys(condition).every((k) => k.startsWith('$'));
}

/** The fields a filter pins to one value: what an upsert starts its new document from. */
export function equalityFields(filter: Filter): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [path, condition] of Object.entries(filter)) {
    if (!isOperatorObject(condition)) fields[path] = condition;
    else if (condition.$eq !== undefined) fields[path] = condition.$eq;
  }
  return fields;
}

/** The collection a write operation writes to. */
export function collectionOf(op: WriteOp): string {
  if ('updateOne' in op) return op.updateOne.collection;
  if ('replaceOne' in op) return op.replaceOne.collection;
  return (Object.values(op)[0] as { collection: string }).collection;
}

export function upsertSeed(filter: Filter, newId: () => string): Doc {
  const doc: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(equalityFields(filter))) setPath(doc, path, value);
  if (typeof doc._id !== 'string') doc._id = newId();
  return doc as Doc;
}

export { isOperatorObject };
