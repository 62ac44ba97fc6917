// Histories of the specs, written as literal events (never produced by the deciders under test): one guild with its
// people and roles, their user accounts, and messages in its channels.
import type { GuildCreated, GuildEvent } from '../../domain/guild.js';
import type { MessageCreated, MessageDeleted, MessageFields, MessageUser } from '../../domain/message.js';
import type { MemberEvent } from '../../domain/member.js';
import { Permission } from '../../domain/permissions.js';
import type { MessagePinned, MessageUnpinned } from '../../domain/pins.js';
import type { ReactionEmoji, ReactionEvent } from '../../domain/reaction.js';
import type { RoleCreated } from '../../domain/role.js';
import type { ThreadData } from '../../domain/thread.js';
import type { UserRegistered } from '../../domain/user.js';
import { EARLIER } from './support.js';
import { messageFields as literalMessage } from '../support/messageFields.js';

export const G = '500';
/** #general: everyone may talk. */
export const GENERAL = '10';
/** #announcements: @everyone may read but not send. */
export const ANNOUNCEMENTS = '11';
export const MOD_ROLE = '600';
export const MEMBER_ROLE = '601';

export interface Person {
  id: string;
  username: string;
}
/** The owner. */
export const ada: Person = { id: '1', username: 'ada' };
/** A member with no role. */
export const bob: Person = { id: '2', username: 'bob' };
/** A moderator: role "mod" (position 2) with KICK, BAN, MANAGE_ROLES and MANAGE_MESSAGES. */
export const cy: Person = { id: '3', username: 'cy' };
/** Another moderator, as high as cy. */
export const eve: Person = { id: '5', username: 'eve' };
/** Has an account, never joined the guild. */
export const finn: Person = { id: '6', username: 'finn' };

export const EVERYONE_PERMISSIONS =
  Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.READ_MESSAGE_HISTORY | Permission.ADD_REACTIONS | Permission.ATTACH_FILES;
export const MOD_PERMISSIONS = Permission.KICK_MEMBERS | Permission.BAN_MEMBERS | Permission.MANAGE_ROLES | Permission.MANAGE_MESSAGES;

export const registered = (person: Person): UserRegistered => ({
  type: 'UserRegistered',
  data: { userId: person.id, username: person.username, discriminator: '0001', email: null, passwordHash: null, bot: false, applicationId: null },
});

/** [user-{id}, [UserRegistered]] for each person: the user documents commands look authors and ban targets up in. */
export const accounts = (...people: Person[]): [string, UserRegistered[]][] => people.map((p) => [`user-${p.id}`, [registered(p)]]);

/** As messages embed their author (the API's partial user). */
export const messageUser = (person: Person): MessageUser => ({
  id: person.id,
  username: person.username,
  discriminator: '0001',
  global_name: null,
  avatar: null,
  bot: false,
  public_flags: 0,
});

export const guildCreated: GuildCreated = {
  type: 'GuildCreated',
  data: {
    guildId: G,
    createdAt: EARLIER,
    settings: {
      name: 'Spec Guild',
      icon: null,
      description: null,
      owner_id: ada.id,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      afk_channel_id: null,
      afk_timeout: 300,
      system_channel_id: GENERAL,
      system_channel_flags: 0,
      preferred_locale: 'en-US',
    },
    everyoneRole: { id: G, name: '@everyone', color: 0, hoist: false, mentionable: false, permissions: EVERYONE_PERMISSIONS.toString(), position: 0 },
    channels: [
      { id: GENERAL, type: 0, name: 'general', position: 0, parent_id: null, permission_overwrites: [], topic: null, nsfw: false, rate_limit_per_user: 0 },
      {
        id: ANNOUNCEMENTS,
        type: 0,
        name: 'announcements',
        position: 1,
        parent_id: null,
        permission_overwrites: [{ id: G, type: 0, allow: '0', deny: Permission.SEND_MESSAGES.toString() }],
        topic: null,
        nsfw: false,
        rate_limit_per_user: 0,
      },
    ],
  },
};

export const joined = (person: Person, over: Partial<Extract<MemberEvent, { type: 'MemberJoined' }>['data']> = {}): GuildEvent => ({
  type: 'MemberJoined',
  data: { guildId: G, userId: person.id, joinedAt: EARLIER, inviteCode: 'spec', vanity: false, temporary: false, ...over },
});

export const roleCreated = (id: string, name: string, permissions: bigint, position: number): RoleCreated => ({
  type: 'RoleCreated',
  data: { guildId: G, role: { id, name, color: 0, hoist: false, mentionable: false, permissions: permissions.toString(), position } },
});

export const rolesAdded = (person: Person, ...roles: { id: string; name: string }[]): GuildEvent => ({
  type: 'MemberUpdated',
  data: { guildId: G, userId: person.id, changes: [{ key: '$add', new_value: roles }] },
});

export const mod = { id: MOD_ROLE, name: 'mod' };
export const memberRole = { id: MEMBER_ROLE, name: 'member' };

/** Stream guild-500: ada's guild, with bob, cy and eve; cy and eve moderate. */
export const guildHistory: GuildEvent[] = [
  guildCreated,
  { type: 'MemberJoined', data: { guildId: G, userId: ada.id, joinedAt: EARLIER, inviteCode: null, vanity: false, temporary: false } },
  roleCreated(MEMBER_ROLE, 'member', 0n, 1),
  roleCreated(MOD_ROLE, 'mod', MOD_PERMISSIONS, 2),
  joined(bob),
  joined(cy),
  joined(eve),
  rolesAdded(cy, mod),
  rolesAdded(eve, mod),
];

export const guildStream: [string, GuildEvent[]] = [`guild-${G}`, guildHistory];

export function messageFields(over: Partial<MessageFields> = {}): MessageFields {
  return literalMessage({ channel_id: GENERAL, guild_id: G, author: messageUser(ada), timestamp: EARLIER, ...over });
}

const idsOf = (m: MessageFields) => ({ messageId: m.id, channelId: m.channel_id, guildId: m.guild_id, authorId: m.author.id });

export const sent = (over: Partial<MessageFields> = {}): MessageCreated => {
  const message = messageFields(over);
  return { type: 'MessageCreated', data: { ...idsOf(message), message } };
};

export const deleted = (message: MessageFields, deletedBy: string): MessageDeleted => ({
  type: 'MessageDeleted',
  data: { ...idsOf(message), deletedBy, bulk: false, attachments: message.attachments },
});

export const thumbsUp: ReactionEmoji = { id: null, name: '👍', animated: false };
/** The read model's field for 👍 (`r` + the emoji's UTF-8 bytes in hex). */
export const THUMBS_UP_FIELD = 'rf09f918d';

export const reacted = (messageId: string, person: Person, count: number, emoji = thumbsUp): ReactionEvent => ({
  type: 'ReactionAdded',
  data: { messageId, channelId: GENERAL, guildId: G, messageAuthorId: ada.id, emoji, userId: person.id, count },
});

export const unreacted = (messageId: string, person: Person, count: number, emoji = thumbsUp): ReactionEvent => ({
  type: 'ReactionRemoved',
  data: { messageId, channelId: GENERAL, guildId: G, messageAuthorId: ada.id, emoji, userId: person.id, removedBy: person.id, count },
});

export const pinned = (messageId: string, pinnedAt: string, lastPinTimestamp = pinnedAt): MessagePinned => ({
  type: 'MessagePinned',
  data: { channelId: GENERAL, guildId: G, messageId, pinnedAt, pinnedBy: cy.id, lastPinTimestamp },
});

export const unpinned = (messageId: string, lastPinTimestamp: string | null, unpinnedBy: string | null = cy.id): MessageUnpinned => ({
  type: 'MessageUnpinned',
  data: { channelId: GENERAL, guildId: G, messageId, unpinnedBy, lastPinTimestamp },
});

/** A thread of GENERAL, made EARLIER: a public (11) or private (12) one, open or archived, owned by `ownerId`. */
export const threadData = (id: string, type: 11 | 12, archived: boolean, ownerId: string): ThreadData => ({
  id,
  type,
  guild_id: G,
  parent_id: GENERAL,
  owner_id: ownerId,
  name: `thread ${id}`,
  rate_limit_per_user: 0,
  archived,
  auto_archive_duration: 4320,
  archive_timestamp: EARLIER,
  locked: false,
  create_timestamp: EARLIER,
});
