// The read side port, shaped after MongoDB collections (the production read store): documents keyed by _id,
// query filters and update operators of MongoDB's language (the subset the projections use), and bulk writes that
// carry the projector's checkpoint in the same atomic write.
import type { Position } from './eventStore.js';

export type Doc = { _id: string } & Record<string, unknown>;

export type Comparable = string | number | boolean | null;
export type FieldCondition =
  | Comparable
  | {
      $eq?: Comparable;
      $ne?: Comparable;
      $in?: Comparable[];
      $nin?: Comparable[];
      $gt?: Comparable;
      $gte?: Comparable;
      $lt?: Comparable;
      $lte?: Comparable;
      $exists?: boolean;
      /** The field is an array holding every one of these values (the way to ask for containment). */
      $all?: Comparable[];
    };
/**
 * Field paths may be dotted. Equality compares whole values; use $all to ask whether an array contains values. Null
 * means null or missing, as in MongoDB: `null`, `{$eq: null}` and an `$in` list holding null match a field that is
 * null or absent; `{$ne: null}` and a `$nin` list holding null match neither. `$ne` and `$nin` without null match a
 * missing field.
 */
export type Filter = Record<string, FieldCondition>;

export interface Update {
  $set?: Record<string, unknown>;
  $unset?: Record<string, '' | true | 1>;
  $inc?: Record<string, number>;
  $push?: Record<string, unknown>;
  /** Removes array elements equal to the value, or (for an object) elements whose listed fields are all equal. */
  $pull?: Record<string, unknown>;
  $addToSet?: Record<string, unknown>;
  $setOnInsert?: Record<string, unknown>;
  /**
   * Sets the field to the string when it is missing, null or a number, or a string that sorts before it (by UTF-8 bytes,
   * as MongoDB compares strings); anything else is left as it is.
   */
  $max?: Record<string, string>;
}

export type WriteOp =
  | { insertOne: { collection: string; document: Doc } }
  | { replaceOne: { collection: string; filter: Filter; replacement: Doc; upsert?: boolean } }
  | { updateOne: { collection: string; filter: Filter; update: Update; upsert?: boolean } }
  | { updateMany: { collection: string; filter: Filter; update: Update } }
  | { deleteOne: { collection: string; filter: Filter } }
  | { deleteMany: { collection: string; filter: Filter } };

export interface FindOptions {
  sort?: Record<string, 1 | -1>;
  limit?: number;
  skip?: number;
}

export interface IndexSpec {
  collection: string;
  keys: Record<string, 1 | -1>;
  unique?: boolean;
}

export interface Checkpoint {
  projection: string;
  position: Position;
}

export interface ReadStore {
  /** Declares indexes (created if missing); called by each projection at start. */
  ensureIndexes(indexes: IndexSpec[]): Promise<void>;
  findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null>;
  find<T extends Doc = Doc>(collection: string, filter: Filter, options?: FindOptions): Promise<T[]>;
  count(collection: string, filter: Filter): Promise<number>;
  /** Applies the operations in order, atomically together with the checkpoints given. */
  bulkWrite(ops: WriteOp[], checkpoints?: Checkpoint[]): Promise<void>;
  getCheckpoint(projection: string): Promise<Position | null>;
  /** The checkpoints of several projections in one query (null where one has none). */
  getCheckpoints(projections: readonly string[]): Promise<Map<string, Position | null>>;
  /** Empties the collections and forgets the checkpoint, so the projection rebuilds from the start of the log. */
  reset(projection: string, collections: string[]): Promise<void>;
  /**
   * Optional: runs `load`, which writes the collections from empty (a rebuild), with the store set up for writing many
   * documents at once, and puts it back as it was when `load` settles, whether it resolves or throws. Queries stay
   * correct meanwhile, possibly slower. A process that dies during the load leaves a store that the next start
   * (ensureIndexes, then the projections' own checkpoints) makes complete again. Without it a rebuild just runs `load`.
   */
  bulkLoad?<T>(collections: string[], load: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
