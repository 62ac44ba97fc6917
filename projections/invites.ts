// Read model of invites: live invites with their use counts. Revoked invites and those of deleted channels and guilds
// leave; expired and used-up ones stay until then, and readers skip them (isInviteUsable).
import type { ChannelDeleted } from '../domain/channel.js';
import type { GuildDeleted } from '../domain/guild.js';
import { type InviteData, type InviteEvent, inviteExpiresAt } from '../domain/invite.js';
import type { MemberJoined } from '../domain/member.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { WriteOp } from '../ports/readStore.js';
import { INVITES } from './collections.js';
import { type Projection, is } from './projection.js';

export interface InviteDoc extends InviteData {
  /** The code. */
  _id: string;
  expires_at: string | null;
  [key: string]: unknown;
}

type Event = InviteEvent | MemberJoined | ChannelDeleted | GuildDeleted;

function projectInvite(e: RecordedEvent): WriteOp[] {
  if (is<Event, 'InviteCreated'>(e, 'InviteCreated')) {
    const { invite } = e.data;
    const expiresAt = inviteExpiresAt(invite);
    const doc: InviteDoc = { _id: invite.code, ...invite, expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString() };
    return [{ replaceOne: { collection: INVITES, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
  }
  if (is<Event, 'InviteAccepted'>(e, 'InviteAccepted')) return [{ updateOne: { collection: INVITES, filter: { _id: e.data.code }, update: { $set: { uses: e.data.uses } } } }];
  // A guild invite's uses are counted with the joins (domain/member.ts).
  if (is<Event, 'MemberJoined'>(e, 'MemberJoined') && e.data.inviteUses !== undefined && e.data.inviteCode) {
    return [{ updateOne: { collection: INVITES, filter: { _id: e.data.inviteCode }, update: { $set: { uses: e.data.inviteUses } } } }];
  }
  if (is<Event, 'InviteDeleted'>(e, 'InviteDeleted')) return [{ deleteOne: { collection: INVITES, filter: { _id: e.data.invite.code } } }];
  if (is<Event, 'ChannelDeleted'>(e, 'ChannelDeleted')) return [{ deleteMany: { collection: INVITES, filter: { channel_id: e.data.channel.id } } }];
  if (is<Event, 'GuildDeleted'>(e, 'GuildDeleted')) return [{ deleteMany: { collection: INVITES, filter: { guild_id: e.data.guildId } } }];
  return [];
}

export const invitesProjection: Projection = {
  name: 'invites',
  collections: [INVITES],
  indexes: [
    { collection: INVITES, keys: { channel_id: 1 } },
    { collection: INVITES, keys: { guild_id: 1 } },
  ],
  project: projectInvite,
};
