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
  return typeof current === 'string' && Buffer.compare(Buffer.from(current), Buffer.from(value)) < 0;
}

/**
 * The operations with each run of $max-only updates of one document (by _id) merged into the first of the run, when no
 * other operation on its collection comes between them: the batch of a busy channel's messages sets its
 * last_message_id once instead of once per message. The same writes, in fewer statements.
 */
export function mergeMaxUpdates(ops: WriteOp[]): WriteOp[] {
  const merged: WriteOp[] = [];
  /** By collection: the last operation on it, when a later $max update of the same document may join it. */
  const open = new Map<string, { id: string; max: Record<string, string> } | null>();
  for (const op of ops) {
    const collection = collectionOf(op);
    const update = 'updateOne' in op && !op.updateOne.upsert && maxOnly(op.updateOne.filter, op.updateOne.update);
    const last = open.get(collection);
    if (update && last?.id === update.id) {
      for (const [path, value] of Object.entries(update.max)) if (isBelow(last.max[path], value)) last.max[path] = value;
      continue;
    }
    if (update) {
      const max = { ...update.max };
      merged.push({ updateOne: { collection, filter: { _id: update.id }, update: { $max: max } } });
      open.set(collection, { id: update.id, max });
    } else {
      merged.push(op);
      open.set(collection, null);
    }
  }
  return merged;
}

/** The document and fields of an update that is a $max of one document by its _id and nothing else. */
function maxOnly(filter: Filter, update: Update): { id: string; max: Record<string, string> } | null {
  const keys = Object.keys(update);
  if (keys.length !== 1 || !update.$max || Object.keys(filter).length !== 1 || typeof filter._id !== 'string') return null;
  return { id: filter._id, max: update.$max };
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
export const collectionOf = (op: WriteOp): string => (Object.values(op)[0] as { collection: string }).collection;

export function upsertSeed(filter: Filter, newId: () => string): Doc {
  const doc: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(equalityFields(filter))) setPath(doc, path, value);
  if (typeof doc._id !== 'string') doc._id = newId();
  return doc as Doc;
}

export { isOperatorObject };
