// What the guild-side routes share: the authenticated actor as event metadata, and users looked up for embedding.
import type { Context } from 'koa';
import type { ActorMeta } from '../commands/deps.js';
import type { ReadStore } from '../ports/readStore.js';
import type { UserDoc } from '../projections/users.js';
import { usersByIds } from '../projections/users.queries.js';
import { requireAuth } from './auth.js';
import { requestMeta } from './context.js';

/** Event metadata for a request that needs an authenticated user (401 otherwise). */
export function actorMeta(ctx: Context): ActorMeta {
  return { ...requestMeta(ctx), actorId: requireAuth(ctx).userId };
}

export async function usersById(readStore: ReadStore, ids: Iterable<string | null>): Promise<Map<string, UserDoc>> {
  const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
  if (!wanted.length) return new Map();
  const users = await usersByIds(readStore, wanted);
  return new Map(users.map((u) => [u._id, u]));
}

/** Documents presented with the user who made each (their `user_id`) embedded, looked up at once. */
export async function withUploaders<D extends { user_id: string }, R>(
  readStore: ReadStore,
  docs: D[],
  present: (doc: D, uploader: UserDoc | undefined) => R,
): Promise<R[]> {
  const users = await usersById(
    readStore,
    docs.map((d) => d.user_id),
  );
  return docs.map((doc) => present(doc, users.get(doc.user_id)));
}
