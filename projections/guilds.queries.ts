// Reads of the guilds projection's collections: guilds and roles.
import type { ReadStore } from '../ports/readStore.js';
import { GUILDS, ROLES } from './collections.js';
import type { GuildDoc, RoleDoc } from './guilds.js';

export const guildById = (read: Pick<ReadStore, 'findOne'>, guildId: string) => read.findOne<GuildDoc>(GUILDS, { _id: guildId });

/** Guilds by id, in id order. */
export const guildsByIds = (read: Pick<ReadStore, 'find'>, guildIds: string[]) => read.find<GuildDoc>(GUILDS, { _id: { $in: guildIds } }, { sort: { _id: 1 } });

export const guildByVanityCode = (read: Pick<ReadStore, 'findOne'>, code: string) => read.findOne<GuildDoc>(GUILDS, { vanity_url_code: code });

/** A guild's roles in position order. */
export const rolesOfGuild = (read: Pick<ReadStore, 'find'>, guildId: string) => read.find<RoleDoc>(ROLES, { guild_id: guildId }, { sort: { position: 1 } });

/** A guild's roles in the store's order, as the gateway's guild payloads have always listed them. */
export const rolesOfGuildUnordered = (read: Pick<ReadStore, 'find'>, guildId: string) => read.find<RoleDoc>(ROLES, { guild_id: guildId });

export const roleById = (read: Pick<ReadStore, 'findOne'>, roleId: string) => read.findOne<RoleDoc>(ROLES, { _id: roleId });

/** A role of this guild (null for a role of another guild). */
export const roleOfGuild = (read: Pick<ReadStore, 'findOne'>, guildId: string, roleId: string) =>
  read.findOne<RoleDoc>(ROLES, { _id: roleId, guild_id: guildId });
