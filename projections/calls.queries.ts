// Reads of DM and group DM calls.
import type { ReadStore } from '../ports/readStore.js';
import type { CallDoc } from './calls.js';
import { CALLS } from './collections.js';

/** The channel's call (going on or not), or null when it never had one. */
export const callById = (read: Pick<ReadStore, 'findOne'>, channelId: string) => read.findOne<CallDoc>(CALLS, { _id: channelId });

/** The call whose voice the user is in (at most one). */
export const callOfVoiceUser = (read: Pick<ReadStore, 'findOne'>, userId: string) => read.findOne<CallDoc>(CALLS, { voice_user_ids: { $all: [userId] } });

/** The calls going on: someone is rung or in voice. */
export const activeCalls = (read: Pick<ReadStore, 'find'>) => read.find<CallDoc>(CALLS, { active: true });
