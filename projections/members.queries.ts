// Reads of the members projection's collections: members (one per guild and user) and bans.
import type { ReadStore } from '../ports/readStore.js';
import { BANS, MEMBERS } from './collections.js';
import type { BanDoc, MemberDoc } from './members.js';
import { memberKey } from './members.js';
import { type PageQuery, findPage } from './paging.js';

export const memberOf = (read: Pick<ReadStore, 'findOne'>, guildId: string, userId: string) =>
  read.findOne<MemberDoc>(MEMBERS, { _id: memberKey(guildId, userId) });

/** Every member of a guild, in the store's order. */
export const membersOfGuild = (read: Pick<ReadStore, 'find'>, guildId: string) => read.find<MemberDoc>(MEMBERS, { guild_id: guildId });

/** One page of a guild's members in user id order. */
export const membersPage = (read: Pick<ReadStore, 'find'>, guildId: string, page: PageQuery) =>
  findPage<MemberDoc>(read, MEMBERS, { guild_id: guildId }, 'user_id', page);

/** The members a gateway request asks for (these users, or the whole guild), in user id order. */
export const requestedMembers = (read: Pick<ReadStore, 'find'>, guildId: string, userIds: readonly string[] | null | undefined) =>
  read.find<MemberDoc>(MEMBERS, userIds ? { _id: { $in: userIds.map((id) => memberKey(guildId, id)) } } : { guild_id: guildId }, { sort: { user_id: 1 } });

/** A user's memberships, in the store's order. */
export const membershipsOf = (read: Pick<ReadStore, 'find'>, userId: string) => read.find<MemberDoc>(MEMBERS, { user_id: userId });

/** One page of a user's memberships in guild id order. */
export const membershipsPage = (read: Pick<ReadStore, 'find'>, userId: string, page: PageQuery) =>
  findPage<MemberDoc>(read, MEMBERS, { user_id: userId }, 'guild_id', page);

/** A user's temporary memberships (joined through temporary invites). */
export const temporaryMembershipsOf = (read: Pick<ReadStore, 'find'>, userId: string) => read.find<MemberDoc>(MEMBERS, { user_id: userId, temporary: true });

/** In how many guilds the user is a member. */
export const membershipCount = (read: Pick<ReadStore, 'count'>, userId: string) => read.count(MEMBERS, { user_id: userId });

export const banOf = (read: Pick<ReadStore, 'findOne'>, guildId: string, userId: string) => read.findOne<BanDoc>(BANS, { _id: memberKey(guildId, userId) });

/** One page of a guild's bans in user id order. */
export const bansPage = (read: Pick<ReadStore, 'find'>, guildId: string, page: PageQuery) =>
  findPage<BanDoc>(read, BANS, { guild_id: guildId }, 'user_id', page);
