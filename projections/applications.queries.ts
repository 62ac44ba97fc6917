// Reads of the applications projection.
import type { ReadStore } from '../ports/readStore.js';
import type { ApplicationDoc } from './applications.js';
import { APPLICATIONS } from './collections.js';

export const applicationById = (read: Pick<ReadStore, 'findOne'>, applicationId: string) => read.findOne<ApplicationDoc>(APPLICATIONS, { _id: applicationId });

/**
 * The id of the application `id` names where a route takes an application's id: its own, or its bot user's. A bot
 * user has its application's id, but one created before that has its own, which code written for the widely used
 * API (where the two are one) passes as the application's. An id that names neither comes back as it is, for the
 * route to refuse as it refuses any unknown application.
 */
export async function applicationIdFor(read: Pick<ReadStore, 'findOne'>, id: string): Promise<string> {
  if (await applicationById(read, id)) return id;
  return (await read.findOne<ApplicationDoc>(APPLICATIONS, { bot_user_id: id }))?._id ?? id;
}

/** An owner's applications, oldest first. */
export const applicationsOwnedBy = (read: Pick<ReadStore, 'find'>, ownerId: string) =>
  read.find<ApplicationDoc>(APPLICATIONS, { owner_id: ownerId }, { sort: { created_at: 1 } });

/** The applications whose bots are among these users (a guild's members, say). */
export const applicationsOfBots = (read: Pick<ReadStore, 'find'>, userIds: string[]) =>
  read.find<ApplicationDoc>(APPLICATIONS, { bot_user_id: { $in: userIds } }, { sort: { _id: 1 } });
