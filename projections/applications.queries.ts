// Reads of the applications projection.
import type { ReadStore } from '../ports/readStore.js';
import type { ApplicationDoc } from './applications.js';
import { APPLICATIONS } from './collections.js';

export const applicationById = (read: Pick<ReadStore, 'findOne'>, applicationId: string) => read.findOne<ApplicationDoc>(APPLICATIONS, { _id: applicationId });

/** An owner's applications, oldest first. */
export const applicationsOwnedBy = (read: Pick<ReadStore, 'find'>, ownerId: string) =>
  read.find<ApplicationDoc>(APPLICATIONS, { owner_id: ownerId }, { sort: { created_at: 1 } });
