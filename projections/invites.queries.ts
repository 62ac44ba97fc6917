// Reads of the invites projection. Expired and used-up invites stay in the collection: readers skip them (isInviteUsable).
import type { InviteData } from '../domain/invite.js';
import type { ReadStore } from '../ports/readStore.js';
import { INVITES } from './collections.js';
import type { InviteDoc } from './invites.js';

export const inviteByCode = (read: Pick<ReadStore, 'findOne'>, code: string) => read.findOne<InviteDoc>(INVITES, { _id: code });

/** Invites with exactly these terms (to reuse one instead of issuing another). */
export const invitesWithTerms = (
  read: Pick<ReadStore, 'find'>,
  terms: Pick<InviteData, 'guild_id' | 'channel_id' | 'pack_id' | 'inviter_id' | 'max_uses' | 'max_age' | 'temporary'>,
) => read.find<InviteDoc>(INVITES, terms);

/** Whose invites a list shows: a channel's, a guild's (not its packs'), or a pack's. */
export type InviteScope = { channel_id: string } | { guild_id: string; pack_id: null } | { pack_id: string };

/** The invites of a scope, oldest first. */
export const invitesOf = (read: Pick<ReadStore, 'find'>, of: InviteScope) => read.find<InviteDoc>(INVITES, of, { sort: { created_at: 1 } });
