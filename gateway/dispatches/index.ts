import type { RecordedEvent } from '../../ports/eventStore.js';
import { byEventType } from '../../projections/projection.js';
import type { GatewayDeps } from '../deps.js';
import type { Dispatch } from '../dispatch.js';
import { auditLogDispatches } from './auditLog.js';
import { autoModerationDispatches } from './autoModeration.js';
import { callDispatches } from './calls.js';
import type { Listeners } from './deriver.js';
import { expressionDispatches } from './expressions.js';
import { guildDispatches } from './guilds.js';
import { interactionAnswerDispatches, interactionDispatches } from './interactions.js';
import { messageDispatches } from './messages.js';
import { threadListSyncDispatches } from './threadListSync.js';
import { threadDispatches } from './threads.js';
import { userDispatches } from './users.js';
import { voiceDispatches } from './voice.js';
import { webhookDispatches } from './webhooks.js';

/** In the order clients should see an event's dispatches. */
export const dispatchDerivers = [
  userDispatches,
  guildDispatches,
  expressionDispatches,
  threadDispatches,
  threadListSyncDispatches,
  messageDispatches,
  webhookDispatches,
  interactionDispatches,
  interactionAnswerDispatches,
  autoModerationDispatches,
  voiceDispatches,
  callDispatches,
  auditLogDispatches,
];

/** The derivers each event type goes to, built once: an event no deriver takes costs one lookup. */
const derivers = byEventType(dispatchDerivers, (deriver) => deriver.handles);

/** Every dispatch an event causes, in the order clients should see them. */
export async function deriveDispatches(event: RecordedEvent, runtime: GatewayDeps, listeners: Listeners): Promise<Dispatch[]> {
  const takers = derivers.get(event.type);
  if (!takers) return [];
  const all: Dispatch[] = [];
  for (const deriver of takers) all.push(...(await deriver.derive(event, runtime, listeners)));
  return all;
}
