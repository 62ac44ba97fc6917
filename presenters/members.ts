// Member and ban objects: a guild's people, each with its partial user embedded.
import type { APIBan, APIGuildMember } from 'discord-api-types/v10';
import type { MemberData } from '../domain/guildState.js';
import type { BanDoc } from '../projections/members.js';
import type { UserDoc } from '../projections/users.js';
import { NO_FLAGS } from './flags.js';
import { apiTimestamp } from './timestamps.js';
import { partialUser } from './users.js';

/** A member object: its avatar and banner always given, null when unset, as GUILD_MEMBER_UPDATE has them. */
export type MemberObject = APIGuildMember & Required<Pick<APIGuildMember, 'avatar' | 'banner'>>;

/** A member object without its user: what a guild message carries of its author and of each member it mentions. */
export type PartialMemberObject = Omit<MemberObject, 'user'>;

/** A member object, from the read model's document or the guild aggregate's member. */
export function memberObject(doc: MemberData, user: UserDoc): MemberObject {
  return { user: partialUser(user), ...partialMemberObject(doc) };
}

/** A member object without its user, from the read model's document or the guild aggregate's member. */
export function partialMemberObject(doc: MemberData): PartialMemberObject {
  return {
    nick: doc.nick,
    avatar: doc.avatar ?? null,
    banner: doc.banner ?? null,
    roles: doc.roles,
    joined_at: apiTimestamp(doc.joined_at),
    premium_since: null,
    deaf: doc.deaf,
    mute: doc.mute,
    flags: NO_FLAGS,
    pending: false,
    // As stored: an end already past stays until lifted, as the widely used API shows it (clients compare it with their clock).
    communication_disabled_until: apiTimestamp(doc.communication_disabled_until ?? null),
  };
}

export function banObject(doc: BanDoc, user: UserDoc): APIBan {
  return { reason: doc.reason, user: partialUser(user) };
}
