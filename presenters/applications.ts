// The application object: what a bot's token and a session's account routes answer about an application.
import type { ApplicationDoc } from '../projections/applications.js';
import type { UserDoc } from '../projections/users.js';
import type { ParleyApplication } from './differences.js';
import { partialUser } from './users.js';

/**
 * The application object in the widely used API's shape. `verify_key` is the public half of the application's Ed25519
 * key in hex (what bots verify the deliveries to their interactions endpoint with); the caller makes sure an
 * application made before keys has one (commands/interactionEndpoint.ts ensureApplicationKey).
 */
export function applicationObject(application: ApplicationDoc, users: Map<string, UserDoc>, guildCount: number): ParleyApplication {
  const owner = users.get(application.owner_id);
  const bot = application.bot_user_id ? users.get(application.bot_user_id) : undefined;
  return {
    id: application._id,
    name: application.name,
    icon: application.icon ?? null,
    description: application.description ?? '',
    summary: '',
    rpc_origins: [],
    bot_public: true,
    bot_require_code_grant: false,
    ...(bot ? { bot: partialUser(bot) } : {}),
    ...(owner ? { owner: partialUser(owner) } : {}),
    owner_id: application.owner_id,
    client_id: application._id,
    verify_key: application.verify_key ?? '',
    team: null,
    flags: application.flags ?? 0,
    approximate_guild_count: guildCount,
    redirect_uris: application.redirect_uris ?? [],
    interactions_endpoint_url: application.interactions_endpoint_url ?? null,
  };
}
