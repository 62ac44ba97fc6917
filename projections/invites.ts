// Read model of invites: live invites with their use counts. Revoked invites and those of deleted channels and guilds
// leave; expired and used-up ones stay until then, and readers skip them (isInviteUsable).
import { type InviteData, inviteExpiresAt } from '../domain/invite.js';
import { INVITES } from './collections.js';
import { projection } from './projection.js';

export interface InviteDoc extends InviteData {
  /** The code. */
  _id: string;
  expires_at: string | null;
  [key: string]: unknown;
}

export const invitesProjection = projection({
  name: 'invites',
  handles: ['InviteCreated', 'InviteAccepted', 'MemberJoined', 'InviteDeleted', 'ChannelDeleted', 'GuildDeleted'],
  collections: [INVITES],
  indexes: [
    { collection: INVITES, keys: { channel_id: 1 } },
    { collection: INVITES, keys: { guild_id: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'InviteCreated': {
        const { invite } = e.data;
        const expiresAt = inviteExpiresAt(invite);
        const doc: InviteDoc = { _id: invite.code, ...invite, expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString() };
        return [{ replaceOne: { collection: INVITES, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
      }
      case 'InviteAccepted':
        return [{ updateOne: { collection: INVITES, filter: { _id: e.data.code }, update: { $set: { uses: e.data.uses } } } }];
      // A guild invite's uses are counted with the joins (domain/member.ts).
      case 'MemberJoined': {
        const { inviteCode, inviteUses } = e.data;
        return inviteUses !== undefined && inviteCode
          ? [{ updateOne: { collection: INVITES, filter: { _id: inviteCode }, update: { $set: { uses: inviteUses } } } }]
          : [];
      }
      case 'InviteDeleted':
        return [{ deleteOne: { collection: INVITES, filter: { _id: e.data.invite.code } } }];
      case 'ChannelDeleted':
        return [{ deleteMany: { collection: INVITES, filter: { channel_id: e.data.channel.id } } }];
      case 'GuildDeleted':
        return [{ deleteMany: { collection: INVITES, filter: { guild_id: e.data.guildId } } }];
    }
  },
});
