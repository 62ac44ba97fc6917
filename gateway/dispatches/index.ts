import type { RecordedEvent } from '../../ports/eventStore.js';
import type { GatewayDeps } from '../deps.js';
import type { Dispatch } from '../dispatch.js';
import { callDispatches } from './calls.js';
import { expressionDispatches } from './expressions.js';
import { guildDispatches } from './guilds.js';
import { interactionDispatches } from './interactions.js';
import { messageDispatches } from './messages.js';
import { userDispatches } from './users.js';
import { voiceDispatches } from './voice.js';
import { webhookDispatches } from './webhooks.js';

const derivers: ((event: RecordedEvent, runtime: GatewayDeps) => Promise<Dispatch[]>)[] = [userDispatches, guildDispatches, expressionDispatches, messageDispatches, webhookDispatches, interactionDispatches, voiceDispatches, callDispatches];

/** Every dispatch an event causes, in the order clients should see them. */
export async function deriveDispatches(event: RecordedEvent, runtime: GatewayDeps): Promise<Dispatch[]> {
  const all: Dispatch[] = [];
  for (const derive of derivers) all.push(...(await derive(event, runtime)));
  return all;
}
