// Interaction (component click) records with their delivery attempts, for the webhook's managers to inspect.
import type { InteractionDoc } from '../projections/interactions.js';
import { apiTimestamp } from './timestamps.js';

/** A click with its delivery attempts, as the webhook's managers read them. */
export function interactionObject({ _id, clicked_at, next_attempt_at, attempts, ...fields }: InteractionDoc) {
  return {
    id: _id,
    ...fields,
    clicked_at: apiTimestamp(clicked_at),
    next_attempt_at: apiTimestamp(next_attempt_at),
    attempts: attempts.map((attempt) => ({ ...attempt, started_at: apiTimestamp(attempt.started_at), finished_at: apiTimestamp(attempt.finished_at) })),
  };
}
