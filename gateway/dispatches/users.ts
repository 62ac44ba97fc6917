// Dispatches of account events.
import type { RecordedEvent } from '../../ports/eventStore.js';
import type { GatewayDeps } from '../deps.js';
import { userById } from '../../projections/users.queries.js';
import { userObject } from '../../presenters/users.js';
import type { Dispatch } from '../dispatch.js';

export async function userDispatches(event: RecordedEvent, runtime: GatewayDeps): Promise<Dispatch[]> {
  if (event.type !== 'UserProfileUpdated') return [];
  const { userId } = event.data as { userId: string };
  const user = await userById(runtime.readStore, userId);
  return user ? [{ t: 'USER_UPDATE', d: userObject(user, true), intent: null, audience: { users: [userId] } }] : [];
}
