// Reads of the interaction deliveries.
import { snowflakeSortKey } from '../domain/snowflake.js';
import type { ReadStore } from '../ports/readStore.js';
import { INTERACTIONS } from './collections.js';
import type { InteractionDoc } from './interactions.js';

/** A webhook's interactions, newest first, before an id if given. */
export function interactionsOfWebhook(read: Pick<ReadStore, 'find'>, webhookId: string, before: string | undefined, limit: number) {
  const filter = { webhook_id: webhookId, ...(before ? { _id: { $lt: snowflakeSortKey(before) } } : {}) };
  return read.find<InteractionDoc>(INTERACTIONS, filter, { sort: { _id: -1 }, limit });
}

/** The interactions whose delivery is in this state (the worker's queue after a restart). */
export const interactionsWithStatus = (read: Pick<ReadStore, 'find'>, status: InteractionDoc['status']) => read.find<InteractionDoc>(INTERACTIONS, { status });
