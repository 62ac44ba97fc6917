// Dispatches of guild events: the guild, its roles, channels, members, bans and invites.
import type { ChannelDeleted } from '../../domain/channel.js';
import { inviteExpiresAt } from '../../domain/invite.js';
import type { GatewayDeps } from '../deps.js';
import { channelObject } from '../../presenters/channels.js';
import { apiTimestamp } from '../../presenters/timestamps.js';
import type { Dispatch } from '../dispatch.js';
import { deriver, dispatch } from './deriver.js';
import { channelPayload, guildCreatePayload, guildCreateWithoutPresences, guildPayload, memberPayload, rolePayload, userPartial } from '../guilds.js';
import { Intent, type DispatchData } from '../protocol.js';

/** The dispatches a member's departure causes: to the guild, and GUILD_DELETE to the one who left. */
async function departure(runtime: GatewayDeps, guildId: string, userId: string): Promise<Dispatch[]> {
  return [
    dispatch('GUILD_MEMBER_REMOVE', { guild_id: guildId, user: await userPartial(runtime, userId) }, { intent: Intent.GUILD_MEMBERS, audience: { guildId } }),
    dispatch('GUILD_DELETE', { id: guildId }, { intent: Intent.GUILDS, audience: { users: [userId] }, leave: { guildId, userId } }),
  ];
}

/**
 * GUILD_CREATE to the sessions of a user who joined the guild (or made it), by their intents as at IDENTIFY: every
 * member to those with GUILD_PRESENCES, to the others their own and those in voice channels. Built once for all.
 */
async function joinedGuildCreate(runtime: GatewayDeps, guildId: string, userId: string): Promise<Dispatch[]> {
  const payload = await guildCreatePayload(runtime, guildId, userId, { everyMember: true });
  if (!payload) return [];
  return [
    dispatch('GUILD_CREATE', payload, {
      intent: Intent.GUILDS,
      audience: { users: [userId] },
      join: { guildId, userId },
      withoutPresences: guildCreateWithoutPresences(payload, userId),
    }),
  ];
}

/** The deleted channel as it was: the read model no longer has it. */
function deletedChannel(guildId: string, channel: ChannelDeleted['data']['channel']) {
  const { id, ...fields } = channel;
  return channelObject({ _id: id, guild_id: guildId, ...fields });
}

export const guildDispatches = deriver({
  handles: [
    'GuildCreated',
    'GuildUpdated',
    'GuildDeleted',
    'RoleCreated',
    'RoleUpdated',
    'RoleDeleted',
    'ChannelCreated',
    'ChannelUpdated',
    'ChannelOverwriteSet',
    'ChannelOverwriteDeleted',
    'ChannelDeleted',
    'MemberJoined',
    'MemberUpdated',
    'MemberLeft',
    'MemberKicked',
    'MembersPruned',
    'MemberBanned',
    'MemberUnbanned',
    'InviteCreated',
    'InviteDeleted',
  ],
  async derive(event, runtime) {
    switch (event.type) {
      case 'GuildCreated':
        return joinedGuildCreate(runtime, event.data.guildId, event.data.settings.owner_id);
      case 'GuildUpdated': {
        const guild = await guildPayload(runtime, event.data.guildId);
        return guild ? [dispatch('GUILD_UPDATE', guild, { intent: Intent.GUILDS, audience: { guildId: event.data.guildId } })] : [];
      }
      case 'GuildDeleted':
        return [
          dispatch(
            'GUILD_DELETE',
            { id: event.data.guildId },
            { intent: Intent.GUILDS, audience: { guildId: event.data.guildId }, dissolve: event.data.guildId },
          ),
        ];
      case 'RoleCreated':
      case 'RoleUpdated': {
        const roleId = event.type === 'RoleCreated' ? event.data.role.id : event.data.roleId;
        const role = await rolePayload(runtime, roleId);
        const t = event.type === 'RoleCreated' ? 'GUILD_ROLE_CREATE' : 'GUILD_ROLE_UPDATE';
        return role ? [dispatch(t, { guild_id: event.data.guildId, role }, { intent: Intent.GUILDS, audience: { guildId: event.data.guildId } })] : [];
      }
      case 'RoleDeleted':
        return [
          dispatch(
            'GUILD_ROLE_DELETE',
            { guild_id: event.data.guildId, role_id: event.data.role.id },
            { intent: Intent.GUILDS, audience: { guildId: event.data.guildId } },
          ),
        ];
      case 'ChannelCreated': {
        const channel = await channelPayload(runtime, event.data.channel.id);
        return channel
          ? [dispatch('CHANNEL_CREATE', channel, { intent: Intent.GUILDS, audience: { guildId: event.data.guildId, channelId: event.data.channel.id } })]
          : [];
      }
      case 'ChannelUpdated':
      case 'ChannelOverwriteSet':
      case 'ChannelOverwriteDeleted': {
        const channel = await channelPayload(runtime, event.data.channelId);
        // Everyone in the guild hears of it: an overwrite may just have hidden the channel from some of them.
        return channel ? [dispatch('CHANNEL_UPDATE', channel, { intent: Intent.GUILDS, audience: { guildId: event.data.guildId } })] : [];
      }
      case 'ChannelDeleted':
        return [
          dispatch('CHANNEL_DELETE', deletedChannel(event.data.guildId, event.data.channel), {
            intent: Intent.GUILDS,
            audience: { guildId: event.data.guildId },
          }),
        ];
      case 'MemberJoined': {
        const { guildId, userId } = event.data;
        // The owner's join of the guild they create, the one join of no invite its user makes, is the guild's
        // GUILD_CREATE's; a bot added through the bot flow or a user added with guilds.join was added by another.
        if (event.data.inviteCode === null && event.metadata.actorId === userId) return [];
        const [member, guildCreate] = await Promise.all([memberPayload(runtime, guildId, userId), joinedGuildCreate(runtime, guildId, userId)]);
        if (!member || guildCreate.length === 0) return [];
        return [...guildCreate, dispatch('GUILD_MEMBER_ADD', member, { intent: Intent.GUILD_MEMBERS, audience: { guildId } })];
      }
      case 'MemberUpdated': {
        const { guildId, userId } = event.data;
        const member = await memberPayload(runtime, guildId, userId);
        return member ? [dispatch('GUILD_MEMBER_UPDATE', member, { intent: Intent.GUILD_MEMBERS, audience: { guildId, users: [userId] } })] : [];
      }
      case 'MemberLeft':
      case 'MemberKicked':
        return departure(runtime, event.data.guildId, event.data.userId);
      case 'MembersPruned': {
        // Each pruned member leaves as a kicked one does.
        const { guildId, userIds } = event.data;
        return (await Promise.all(userIds.map((userId) => departure(runtime, guildId, userId)))).flat();
      }
      case 'MemberBanned': {
        const { guildId, userId } = event.data;
        const ban = dispatch(
          'GUILD_BAN_ADD',
          { guild_id: guildId, user: await userPartial(runtime, userId) },
          { intent: Intent.GUILD_MODERATION, audience: { guildId } },
        );
        return event.data.removedMember ? [ban, ...(await departure(runtime, guildId, userId))] : [ban];
      }
      case 'MemberUnbanned':
        return [
          dispatch(
            'GUILD_BAN_REMOVE',
            { guild_id: event.data.guildId, user: await userPartial(runtime, event.data.userId) },
            { intent: Intent.GUILD_MODERATION, audience: { guildId: event.data.guildId } },
          ),
        ];
      case 'InviteCreated': {
        const invite = event.data.invite;
        if (!invite.channel_id) return [];
        const inviter = await userPartial(runtime, invite.inviter_id);
        const d = {
          channel_id: invite.channel_id,
          code: invite.code,
          created_at: apiTimestamp(invite.created_at),
          guild_id: invite.guild_id,
          // A user the read model lacks (not expected) goes unnamed, as the API's INVITE_CREATE may leave its inviter out.
          ...('username' in inviter ? { inviter } : {}),
          max_age: invite.max_age,
          max_uses: invite.max_uses,
          temporary: invite.temporary,
          uses: 0,
          expires_at: apiTimestamp(inviteExpiresAt(invite)),
        } satisfies DispatchData['INVITE_CREATE'];
        return [dispatch('INVITE_CREATE', d, { intent: Intent.GUILD_INVITES, audience: { guildId: invite.guild_id, channelId: invite.channel_id } })];
      }
      case 'InviteDeleted': {
        const invite = event.data.invite;
        if (!invite.channel_id) return [];
        return [
          dispatch(
            'INVITE_DELETE',
            { channel_id: invite.channel_id, guild_id: invite.guild_id, code: invite.code },
            { intent: Intent.GUILD_INVITES, audience: { guildId: invite.guild_id, channelId: invite.channel_id } },
          ),
        ];
      }
    }
  },
});
