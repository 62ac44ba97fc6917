// Read models of guild members (one document per guild and user) and of bans.
import type { MemberData } from '../domain/guildState.js';
import type { WriteOp } from '../ports/readStore.js';
import { BANS, MEMBERS } from './collections.js';
import { projection } from './projection.js';

export interface MemberDoc extends MemberData {
  /** `${guild_id}:${user_id}` */
  _id: string;
  guild_id: string;
  [key: string]: unknown;
}

export interface BanDoc {
  /** `${guild_id}:${user_id}` */
  _id: string;
  guild_id: string;
  user_id: string;
  reason: string | null;
  /** Who banned: the reason is theirs, erased with their account. */
  banned_by: string | null;
  created_at: string;
  [key: string]: unknown;
}

export const memberKey = (guildId: string, userId: string) => `${guildId}:${userId}`;

const deleteMember = (guildId: string, userId: string): WriteOp => ({ deleteOne: { collection: MEMBERS, filter: { _id: memberKey(guildId, userId) } } });

export const membersProjection = projection({
  name: 'members',
  handles: [
    'MemberJoined',
    'MemberUpdated',
    'MemberLeft',
    'MemberKicked',
    'MembersPruned',
    'MemberBanned',
    'MemberUnbanned',
    'RoleDeleted',
    'UserErased',
    'GuildDeleted',
  ],
  collections: [MEMBERS, BANS],
  indexes: [
    { collection: MEMBERS, keys: { guild_id: 1, user_id: 1 } },
    { collection: MEMBERS, keys: { user_id: 1 } },
    { collection: BANS, keys: { guild_id: 1, user_id: 1 } },
    { collection: BANS, keys: { banned_by: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'MemberJoined': {
        const { guildId, userId, joinedAt, temporary } = e.data;
        const member: MemberDoc = {
          _id: memberKey(guildId, userId),
          guild_id: guildId,
          user_id: userId,
          nick: null,
          roles: [],
          joined_at: joinedAt,
          deaf: false,
          mute: false,
          temporary,
        };
        return [{ replaceOne: { collection: MEMBERS, filter: { _id: member._id }, replacement: member, upsert: true } }];
      }
      case 'MemberUpdated': {
        const filter = { _id: memberKey(e.data.guildId, e.data.userId) };
        return e.data.changes.flatMap((change): WriteOp[] => {
          if (!change.key.startsWith('$')) return [{ updateOne: { collection: MEMBERS, filter, update: { $set: { [change.key]: change.new_value } } } }];
          const ids = (change.new_value as { id: string }[]).map((r) => r.id);
          if (change.key === '$add') return [{ updateOne: { collection: MEMBERS, filter, update: { $addToSet: { roles: { $each: ids } } } } }];
          return ids.map((id) => ({ updateOne: { collection: MEMBERS, filter, update: { $pull: { roles: id } } } }));
        });
      }
      case 'MemberLeft':
      case 'MemberKicked':
        return [deleteMember(e.data.guildId, e.data.userId)];
      case 'MembersPruned':
        return [{ deleteMany: { collection: MEMBERS, filter: { guild_id: e.data.guildId, user_id: { $in: e.data.userIds } } } }];
      case 'MemberBanned': {
        const { guildId, userId, bannedAt } = e.data;
        // The ban's reason is the audit-log reason of the request that banned.
        const ban: BanDoc = {
          _id: memberKey(guildId, userId),
          guild_id: guildId,
          user_id: userId,
          reason: e.metadata.reason ?? null,
          banned_by: e.metadata.actorId,
          created_at: bannedAt,
        };
        return [deleteMember(guildId, userId), { replaceOne: { collection: BANS, filter: { _id: ban._id }, replacement: ban, upsert: true } }];
      }
      case 'MemberUnbanned':
        return [{ deleteOne: { collection: BANS, filter: { _id: memberKey(e.data.guildId, e.data.userId) } } }];
      case 'RoleDeleted': {
        const { guildId, role } = e.data;
        return [{ updateMany: { collection: MEMBERS, filter: { guild_id: guildId, roles: { $all: [role.id] } }, update: { $pull: { roles: role.id } } } }];
      }
      case 'UserErased':
        return [{ updateMany: { collection: BANS, filter: { banned_by: e.data.userId }, update: { $set: { reason: null } } } }];
      case 'GuildDeleted':
        return [MEMBERS, BANS].map((collection) => ({ deleteMany: { collection, filter: { guild_id: e.data.guildId } } }));
    }
  },
});
