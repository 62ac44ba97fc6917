// Read models of guilds and their roles: the guild documents (settings, vanity code and its uses, member count) and
// one document per role.
import type { GuildSettings, RoleData } from '../domain/guildState.js';
import type { WriteOp } from '../ports/readStore.js';
import { changeSet } from './changes.js';
import { GUILDS, ROLES } from './collections.js';
import { projection } from './projection.js';

export interface GuildDoc extends GuildSettings {
  _id: string;
  vanity_url_code: string | null;
  vanity_url_uses: number;
  member_count: number;
  created_at: string;
  [key: string]: unknown;
}

export interface RoleDoc extends Omit<RoleData, 'id'> {
  /** The role id; the @everyone role's is the guild's. */
  _id: string;
  guild_id: string;
  [key: string]: unknown;
}

const roleDoc = (guildId: string, { id, ...role }: RoleData): RoleDoc => ({ _id: id, guild_id: guildId, ...role });
const countMembers = (guildId: string, by: number): WriteOp => ({
  updateOne: { collection: GUILDS, filter: { _id: guildId }, update: { $inc: { member_count: by } } },
});

export const guildsProjection = projection({
  name: 'guilds',
  handles: [
    'GuildCreated',
    'GuildUpdated',
    'GuildDeleted',
    'VanityCodeSet',
    'MemberJoined',
    'MemberLeft',
    'MemberKicked',
    'MembersPruned',
    'MemberBanned',
    'ChannelDeleted',
    'RoleCreated',
    'RoleUpdated',
    'RoleDeleted',
  ],
  collections: [GUILDS, ROLES],
  indexes: [
    { collection: GUILDS, keys: { vanity_url_code: 1 } },
    { collection: ROLES, keys: { guild_id: 1, position: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'GuildCreated': {
        const { guildId, settings, everyoneRole, createdAt } = e.data;
        const guild: GuildDoc = { _id: guildId, ...settings, vanity_url_code: null, vanity_url_uses: 0, member_count: 0, created_at: createdAt };
        return [
          { replaceOne: { collection: GUILDS, filter: { _id: guildId }, replacement: guild, upsert: true } },
          { replaceOne: { collection: ROLES, filter: { _id: everyoneRole.id }, replacement: roleDoc(guildId, everyoneRole), upsert: true } },
        ];
      }
      case 'GuildUpdated':
        return [{ updateOne: { collection: GUILDS, filter: { _id: e.data.guildId }, update: { $set: changeSet(e.data.changes) } } }];
      case 'GuildDeleted':
        return [
          { deleteOne: { collection: GUILDS, filter: { _id: e.data.guildId } } },
          { deleteMany: { collection: ROLES, filter: { guild_id: e.data.guildId } } },
        ];
      case 'VanityCodeSet':
        return [{ updateOne: { collection: GUILDS, filter: { _id: e.data.guildId }, update: { $set: { vanity_url_code: e.data.code, vanity_url_uses: 0 } } } }];
      case 'MemberJoined': {
        const ops = [countMembers(e.data.guildId, 1)];
        if (e.data.vanity) {
          ops.push({
            updateOne: { collection: GUILDS, filter: { _id: e.data.guildId, vanity_url_code: e.data.inviteCode }, update: { $inc: { vanity_url_uses: 1 } } },
          });
        }
        return ops;
      }
      case 'MemberLeft':
      case 'MemberKicked':
        return [countMembers(e.data.guildId, -1)];
      case 'MembersPruned':
        return [countMembers(e.data.guildId, -e.data.userIds.length)];
      case 'MemberBanned':
        return e.data.removedMember ? [countMembers(e.data.guildId, -1)] : [];
      case 'ChannelDeleted': {
        const { guildId, channel } = e.data;
        return (['afk_channel_id', 'system_channel_id'] as const).map((key) => ({
          updateOne: { collection: GUILDS, filter: { _id: guildId, [key]: channel.id }, update: { $set: { [key]: null } } },
        }));
      }
      case 'RoleCreated': {
        const { guildId, role } = e.data;
        return [
          { updateMany: { collection: ROLES, filter: { guild_id: guildId, position: { $gte: role.position } }, update: { $inc: { position: 1 } } } },
          { replaceOne: { collection: ROLES, filter: { _id: role.id }, replacement: roleDoc(guildId, role), upsert: true } },
        ];
      }
      case 'RoleUpdated':
        return [{ updateOne: { collection: ROLES, filter: { _id: e.data.roleId }, update: { $set: changeSet(e.data.changes) } } }];
      case 'RoleDeleted': {
        const { guildId, role } = e.data;
        return [
          { deleteOne: { collection: ROLES, filter: { _id: role.id } } },
          { updateMany: { collection: ROLES, filter: { guild_id: guildId, position: { $gt: role.position } }, update: { $inc: { position: -1 } } } },
        ];
      }
    }
  },
});
