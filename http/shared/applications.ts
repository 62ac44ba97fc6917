// What the application and account routes share: an application presented (the developer portal's object), and the
// redirect URIs an application's OAuth2 settings take.
import { ensureApplicationKey } from '../../commands/interactionEndpoint.js';
import { notFound } from '../../domain/errors.js';
import type { ApplicationDoc } from '../../projections/applications.js';
import { applicationById } from '../../projections/applications.queries.js';
import { membershipCount } from '../../projections/members.queries.js';
import { applicationObject } from '../../presenters/applications.js';
import { usersById } from '../actor.js';
import type { HttpDeps } from '../context.js';

/** Absolute https URLs, or http on loopback; the domain checks each (domain/oauth2.ts). */
export const redirectUrisSchema = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 2048 }, maxItems: 10 } as const;

/**
 * Application objects for read-model documents, with their owners, bots and the bots' guild counts. An application
 * made before keys gets its key pair here, the first time its object is shown.
 */
export async function presentApplications(deps: HttpDeps, applications: ApplicationDoc[]) {
  for (const application of applications) application.verify_key ??= (await ensureApplicationKey(deps, application._id)).verifyKey;
  const users = await usersById(
    deps.readStore,
    applications.flatMap((a) => [a.owner_id, a.bot_user_id]),
  );
  return Promise.all(applications.map(async (a) => applicationObject(a, users, a.bot_user_id ? await membershipCount(deps.readStore, a.bot_user_id) : 0)));
}

export async function fetchApplicationObject(deps: HttpDeps, applicationId: string) {
  const application = await applicationById(deps.readStore, applicationId);
  if (!application) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
  const [object] = await presentApplications(deps, [application]);
  return object;
}
