// What a session starts from: READY's user, guild list and DM channels, and one GUILD_CREATE per guild, read from
// the read models at IDENTIFY time.
import type { ParleyReady } from '../presenters/differences.js';
import type { GatewayDeps } from './deps.js';
import { applicationById } from '../projections/applications.queries.js';
import { userById } from '../projections/users.queries.js';
import { userObject } from '../presenters/users.js';
import { guildCreatePayload, guildIdsOf } from './guilds.js';
import { privateChannelsOf } from './privateChannels.js';

export interface ReadySnapshot {
  user: ParleyReady['user'];
  guildIds: string[];
  privateChannels: Awaited<ReturnType<typeof privateChannelsOf>>;
  application: NonNullable<ParleyReady['application']> | null;
}

export interface Snapshots {
  ready(userId: string): Promise<ReadySnapshot>;
  /** `everyMember`: the session has GUILD_PRESENCES, without which GUILD_CREATE does not list the guild's members. */
  guildCreate(guildId: string, userId: string, options: { everyMember: boolean }): ReturnType<typeof guildCreatePayload>;
}

export function createSnapshots(runtime: GatewayDeps): Snapshots {
  return {
    async ready(userId) {
      const user = await userById(runtime.readStore, userId);
      if (!user) throw new Error(`identified user ${userId} has no user document`);
      const application = user.application_id ? await applicationById(runtime.readStore, user.application_id) : null;
      return {
        // READY's user is the account itself, never with a token.
        user: userObject(user, true),
        guildIds: await guildIdsOf(runtime, userId),
        privateChannels: await privateChannelsOf(runtime, userId),
        application: application ? { id: application._id, flags: application.flags ?? 0 } : null,
      };
    },
    guildCreate: (guildId, userId, options) => guildCreatePayload(runtime, guildId, userId, options),
  };
}
