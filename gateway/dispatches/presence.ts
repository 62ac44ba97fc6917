import type { Audience, Dispatch } from '../dispatch.js';
import { type Shown, presenceObject } from '../presence.js';
import { Intent } from '../protocol.js';
import { dispatch } from './deriver.js';

/** PRESENCE_UPDATE comes from hints, not from the log: presence is not state. By default to the whole guild. */
export function presenceDispatch(guildId: string, userId: string, presence: Shown, audience: Audience = { guildId }): Dispatch {
  return dispatch('PRESENCE_UPDATE', { ...presenceObject(userId, presence), guild_id: guildId }, { intent: Intent.GUILD_PRESENCES, audience });
}

/**
 * After a user joined a guild (its GUILD_CREATE routed): the guild learns the new member's presence, and the new
 * member the presences of the members its GUILD_CREATE listed.
 */
export function presencesOnJoin(guildCreate: Dispatch, presenceOf: (userId: string) => Shown): Dispatch[] {
  if (guildCreate.t !== 'GUILD_CREATE' || !guildCreate.join) return [];
  const { guildId, userId } = guildCreate.join;
  const listed = guildCreate.d.members ?? [];
  const all = [userId, ...listed.map((member) => member.user.id).filter((id) => id !== userId)];
  return all.flatMap((id) => {
    const presence = presenceOf(id);
    if (presence.status === 'offline') return [];
    return [presenceDispatch(guildId, id, presence, id === userId ? { guildId } : { users: [userId] })];
  });
}
