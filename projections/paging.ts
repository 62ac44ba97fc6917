// Snowflake pagination over one collection, for the queries beside each projection.
import { snowflakeSortKey } from '../domain/snowflake.js';
import type { Doc, Filter, ReadStore } from '../ports/readStore.js';

export interface PageQuery {
  after?: string;
  before?: string;
  limit: number;
}

/**
 * One page of documents ordered by a snowflake field, in ascending order. `after` and `before` bound it; with only
 * `before` (or with no bound when `fromEnd`) the page is the one just below the upper bound.
 */
export async function findPage<T extends Doc>(
  read: Pick<ReadStore, 'find'>,
  collection: string,
  filter: Filter,
  field: string,
  page: PageQuery,
  fromEnd = false,
): Promise<T[]> {
  const range: Record<string, string> = {};
  if (page.after) range.$gt = snowflakeSortKey(page.after);
  if (page.before) range.$lt = snowflakeSortKey(page.before);
  const downwards = !page.after && (Boolean(page.before) || fromEnd);
  const docs = await read.find<T>(
    collection,
    { ...filter, ...(Object.keys(range).length ? { [field]: range } : {}) },
    { sort: { [field]: downwards ? -1 : 1 }, limit: page.limit },
  );
  return downwards ? docs.reverse() : docs;
}
