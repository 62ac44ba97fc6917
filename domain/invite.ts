// The invite aggregate (stream invite-{code}): what an invite allows and how often it was used, so that max_uses holds
// under concurrent accepts (each accept appends on the revision it counted). Channel invites lead into a guild; pack
// invites (channel_id null, pack_id = the guild id) share a guild's sticker pack.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, notFound } from './errors.js';

export interface InviteData {
  code: string;
  guild_id: string;
  channel_id: string | null;
  pack_id: string | null;
  inviter_id: string;
  /** 0 is unlimited. */
  max_uses: number;
  /** Seconds; 0 never expires. */
  max_age: number;
  temporary: boolean;
  created_at: string;
  uses: number;
}

export type InviteCreated = DomainEvent<'InviteCreated', { invite: InviteData }>;
export type InviteAccepted = DomainEvent<'InviteAccepted', { code: string; guildId: string; userId: string; uses: number }>;
/** Carries the invite as it was, for the audit log's old values. */
export type InviteDeleted = DomainEvent<'InviteDeleted', { invite: InviteData }>;
export type InviteEvent = InviteCreated | InviteAccepted | InviteDeleted;

export interface InviteState {
  status: 'none' | 'active' | 'deleted';
  invite: InviteData | null;
}

export type InviteCommand =
  { type: 'CreateInvite'; invite: Omit<InviteData, 'uses'> } | { type: 'AcceptInvite'; userId: string; now: number } | { type: 'DeleteInvite' };

export const unknownInvite = () => notFound('UNKNOWN_INVITE', 'Unknown Invite');

/** When the invite stops working, as epoch milliseconds (null for never). */
export function inviteExpiresAt(invite: Pick<InviteData, 'max_age' | 'created_at'>): number | null {
  return invite.max_age > 0 ? Date.parse(invite.created_at) + invite.max_age * 1000 : null;
}

/** An invite works until it expires or its uses run out; after that it answers 404 as if it never existed. */
export function isInviteUsable(invite: Pick<InviteData, 'max_age' | 'created_at' | 'max_uses' | 'uses'>, now: number): boolean {
  const expiresAt = inviteExpiresAt(invite);
  return (expiresAt === null || now < expiresAt) && (invite.max_uses === 0 || invite.uses < invite.max_uses);
}

function usableInvite(state: InviteState, now: number): InviteData {
  if (state.status !== 'active' || !isInviteUsable(state.invite!, now)) throw unknownInvite();
  return state.invite!;
}

export const inviteDecider: Decider<InviteState, InviteCommand, InviteEvent> = {
  initialState: () => ({ status: 'none', invite: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateInvite':
        if (state.status !== 'none') throw new DomainError('conflict', 'INVITE_EXISTS', 'Invite code already in use');
        return [{ type: 'InviteCreated', data: { invite: { ...command.invite, uses: 0 } } }];
      case 'AcceptInvite': {
        const invite = usableInvite(state, command.now);
        return [{ type: 'InviteAccepted', data: { code: invite.code, guildId: invite.guild_id, userId: command.userId, uses: invite.uses + 1 } }];
      }
      case 'DeleteInvite':
        if (state.status !== 'active') throw unknownInvite();
        return [{ type: 'InviteDeleted', data: { invite: state.invite! } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'InviteCreated':
        return { status: 'active', invite: event.data.invite };
      case 'InviteAccepted':
        return { ...state, invite: { ...state.invite!, uses: event.data.uses } };
      case 'InviteDeleted':
        return { ...state, status: 'deleted' };
    }
  },
};
