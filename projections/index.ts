import { applicationsProjection } from './applications.js';
import type { Projection } from './projection.js';
import { usersProjection } from './users.js';

/** Every read model of the service, in the order their writes are applied within a batch. */
export const allProjections: Projection[] = [usersProjection, applicationsProjection];
