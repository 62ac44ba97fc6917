// Dispatches of account events.
import { userById } from '../../projections/users.queries.js';
import { userObject } from '../../presenters/users.js';
import { deriver, dispatch } from './deriver.js';

export const userDispatches = deriver({
  handles: ['UserProfileUpdated'],
  async derive(event, runtime) {
    const { userId } = event.data;
    const user = await userById(runtime.readStore, userId);
    return user ? [dispatch('USER_UPDATE', userObject(user, true), { intent: null, audience: { users: [userId] } })] : [];
  },
});
