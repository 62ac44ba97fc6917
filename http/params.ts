// Path parameters and snowflake pagination shared by the guild-side routes.
import { snowflakeSortKey } from '../domain/snowflake.js';
import type { Doc, Filter, ReadStore } from '../ports/readStore.js';
import { snowflakeSchema } from './validation.js';

export const guildParams = { type: 'object', properties: { guildId: snowflakeSchema }, required: ['guildId'] } as const;
export const channelParams = { type: 'object', properties: { channelId: snowflakeSchema }, required: ['channelId'] } as const;

export interface PageQuery {
  after?: string;
  before?: string;
  limit: number;
}

/**
 * One page of documents ordered by a snowflake field, in ascending order. `after` and `before` bound it; with only
 * `before` (or with no bound when `fromEnd`) the page is the one just below the upper bound.
 */
export async function findPage<T extends Doc>(readStore: ReadStore, collection: string, filter: Filter, field: string, page: PageQuery, fromEnd = false): Promise<T[]> {
  const range: Record<string, string> = {};
  if (page.after) range.$gt = snowflakeSortKey(page.after);
  if (page.before) range.$lt = snowflakeSortKey(page.before);
  const downwards = !page.after && (Boolean(page.before) || fromEnd);
  const docs = await readStore.find<T>(collection, { ...filter, ...(Object.keys(range).length ? { [field]: range } : {}) }, { sort: { [field]: downwards ? -1 : 1 }, limit: page.limit });
  return downwards ? docs.reverse() : docs;
}
