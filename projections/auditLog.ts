// The audit log, derived from events only: each audited event becomes one entry of its guild's log. The actor, the
// reason (X-Audit-Log-Reason) and the time come from the event's metadata; what changed comes from its data. Entry ids
// are snowflakes of the event's time and log position, so a rebuild from the log writes the very same entries.
import { ActionType, type AutoModerationEvent } from '../domain/autoModeration.js';
import type { AutoModerationActionExecuted } from '../domain/autoModerationExecution.js';
import type { ChannelEvent } from '../domain/channel.js';
import type { GuildEvent } from '../domain/guild.js';
import type { GuildExpressionEvent, StickerData } from '../domain/guildExpressions.js';
import type { Change } from '../domain/guildState.js';
import type { InviteData, InviteEvent } from '../domain/invite.js';
import type { MemberEvent } from '../domain/member.js';
import type { ModerationEvent } from '../domain/moderation.js';
import type { RoleEvent } from '../domain/role.js';
import type { ThreadData, ThreadEvent } from '../domain/thread.js';
import type { VoiceEvent } from '../domain/voiceState.js';
import { WEBHOOK_TYPE_INCOMING, type WebhookData, type WebhookEvent } from '../domain/webhook.js';
import { SERVICE_EPOCH } from '../domain/snowflake.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { WriteOp } from '../ports/readStore.js';
import { AUDIT_LOG_ENTRIES } from './collections.js';
import { projection } from './projection.js';

/** The spec's action types. */
export const AuditLogAction = {
  GUILD_UPDATE: 1,
  CHANNEL_CREATE: 10,
  CHANNEL_UPDATE: 11,
  CHANNEL_DELETE: 12,
  MEMBER_KICK: 20,
  MEMBER_PRUNE: 21,
  MEMBER_BAN_ADD: 22,
  MEMBER_BAN_REMOVE: 23,
  MEMBER_UPDATE: 24,
  MEMBER_DISCONNECT: 25,
  /** Not in the spec's list: the widely used API's number for a moderator moving a member to another voice channel. */
  MEMBER_MOVE: 26,
  /** Not in the spec's list ("the list may grow"): the widely used API's number for a bot added through OAuth2. */
  BOT_ADD: 28,
  ROLE_CREATE: 30,
  ROLE_UPDATE: 31,
  ROLE_DELETE: 32,
  INVITE_CREATE: 40,
  INVITE_UPDATE: 41,
  INVITE_DELETE: 42,
  WEBHOOK_CREATE: 50,
  WEBHOOK_UPDATE: 51,
  WEBHOOK_DELETE: 52,
  EMOJI_CREATE: 72,
  EMOJI_UPDATE: 73,
  EMOJI_DELETE: 74,
  STICKER_CREATE: 90,
  STICKER_UPDATE: 91,
  STICKER_DELETE: 92,
  THREAD_CREATE: 110,
  THREAD_UPDATE: 111,
  THREAD_DELETE: 112,
  AUTO_MODERATION_RULE_CREATE: 140,
  AUTO_MODERATION_RULE_UPDATE: 141,
  AUTO_MODERATION_RULE_DELETE: 142,
  AUTO_MODERATION_BLOCK_MESSAGE: 143,
  AUTO_MODERATION_FLAG_TO_CHANNEL: 144,
  AUTO_MODERATION_USER_COMMUNICATION_DISABLED: 145,
} as const;

/** Actions whose target is a user: their users are embedded in the audit log response. */
export const USER_TARGETED_ACTIONS: readonly number[] = [
  AuditLogAction.MEMBER_KICK,
  AuditLogAction.MEMBER_BAN_ADD,
  AuditLogAction.MEMBER_BAN_REMOVE,
  AuditLogAction.MEMBER_UPDATE,
  AuditLogAction.MEMBER_DISCONNECT,
  AuditLogAction.MEMBER_MOVE,
  AuditLogAction.BOT_ADD,
  AuditLogAction.AUTO_MODERATION_BLOCK_MESSAGE,
  AuditLogAction.AUTO_MODERATION_FLAG_TO_CHANNEL,
  AuditLogAction.AUTO_MODERATION_USER_COMMUNICATION_DISABLED,
];
export const WEBHOOK_ACTIONS: readonly number[] = [AuditLogAction.WEBHOOK_CREATE, AuditLogAction.WEBHOOK_UPDATE, AuditLogAction.WEBHOOK_DELETE];

export interface AuditEntryDoc {
  /** The entry id (a snowflake). */
  _id: string;
  guild_id: string;
  action_type: number;
  target_id: string | null;
  user_id: string | null;
  changes: Change[];
  options: Record<string, string> | null;
  reason: string | null;
  timestamp: string;
  [key: string]: unknown;
}

/** What an audited event says about itself; the rest of the entry comes from its metadata. */
export interface AuditFacts {
  guildId: string;
  actionType: number;
  targetId: string | null;
  changes?: Change[];
  options?: Record<string, string>;
}

/** The fields of a created entity as changes with only new values (a deleted one's: only old values). */
const created = (entity: object, skip: string[] = ['id']): Change[] =>
  Object.entries(entity).flatMap(([key, value]) => (skip.includes(key) ? [] : [{ key, new_value: value }]));
const deleted = (entity: object, skip: string[] = ['id']): Change[] =>
  Object.entries(entity).flatMap(([key, value]) => (skip.includes(key) ? [] : [{ key, old_value: value }]));

const INVITE_SKIP: (keyof InviteData)[] = ['guild_id', 'created_at'];
/** The audit log names image hashes `icon_hash`, `avatar_hash`, `banner_hash` and so on. */
const IMAGE_KEYS = ['icon', 'avatar', 'banner', 'splash', 'discovery_splash'];
const auditKey = (change: Change): Change => (IMAGE_KEYS.includes(change.key) ? { ...change, key: `${change.key}_hash` } : change);
/** A webhook as the widely used API's audit entries describe it: type, channel, name and avatar hash. */
const auditedWebhook = ({ channel_id, name, avatar, interaction_url }: WebhookData) => ({
  type: WEBHOOK_TYPE_INCOMING,
  channel_id,
  name,
  avatar,
  interaction_url,
});
/**
 * The spec numbers emoji entries 72-74, which the widely used API gives to message deletes and pins: discord.js then
 * reads `options.channel_id` and fails when there are no options, so emoji entries carry empty ones (discord.py skips
 * empty options as it skips absent ones).
 */
const emojiEntry = { options: {} };
/** An emoji as the widely used API's audit entries describe it: by its name. */
const auditedEmoji = ({ name }: { name: string }) => ({ name });
/** A sticker as the widely used API's audit entries describe it (tags as the one string clients send). */
const auditedSticker = ({ name, description, tags }: StickerData) => ({ name, description, tags: tags.join(',') });
/** A sticker's changes that a client made, in the same terms: the stored image's details and the time are the service's own. */
const auditedStickerChanges = (changes: Change[]): Change[] =>
  changes.flatMap((c) => {
    if (c.key === 'tags') return [{ key: 'tags', old_value: (c.old_value as string[]).join(','), new_value: (c.new_value as string[]).join(',') }];
    return c.key === 'name' || c.key === 'description' ? [c] : [];
  });
/** A thread's fields as its audit entries name them: not its ids or times, which the entry's target and time say. */
const THREAD_SKIP: (keyof ThreadData)[] = ['id', 'guild_id', 'parent_id', 'owner_id', 'archive_timestamp', 'create_timestamp'];
const threadChanges = (changes: Change[]) => changes.filter((c) => !THREAD_SKIP.includes(c.key as keyof ThreadData));
const THREAD_ACTIONS = [AuditLogAction.THREAD_CREATE, AuditLogAction.THREAD_UPDATE, AuditLogAction.THREAD_DELETE];
const overwriteOptions = (o: { id: string; type: number }) => ({ id: o.id, type: String(o.type) });
/** An auto-moderation action's entry by action type; its target is the member whose message the rule acted on. */
const AUTO_MODERATION_ACTION_ENTRIES: Record<number, number> = {
  [ActionType.BLOCK_MESSAGE]: AuditLogAction.AUTO_MODERATION_BLOCK_MESSAGE,
  [ActionType.SEND_ALERT_MESSAGE]: AuditLogAction.AUTO_MODERATION_FLAG_TO_CHANNEL,
  [ActionType.TIMEOUT]: AuditLogAction.AUTO_MODERATION_USER_COMMUNICATION_DISABLED,
};

/** An audit-log action by the spec's name. */
export type AuditActionName = keyof typeof AuditLogAction;

/**
 * The actions an event type's entries record, and the entry of one event (null: this event of an audited type is not
 * audited, as a member joining by invite, where a bot added is).
 */
interface Auditing<D> {
  actions: readonly AuditActionName[];
  describe(event: RecordedEvent<D>): AuditFacts | null;
}

/** Entries of one action, which `describe` is handed as its number. */
function audits<D>(name: AuditActionName, describe: (event: RecordedEvent<D>, action: number) => AuditFacts | null): Auditing<D> {
  const action = AuditLogAction[name];
  return { actions: [name], describe: (event) => describe(event, action) };
}

/** Entries of one of several actions, which `describe` picks. */
const auditsOneOf = <D>(actions: readonly AuditActionName[], describe: (event: RecordedEvent<D>) => AuditFacts | null): Auditing<D> => ({ actions, describe });

type DataOf<T, K> = T extends { type: K; data: infer D } ? D : never;
type Audited<T extends { type: string }> = { [K in T['type']]?: Auditing<DataOf<T, K>> };

/**
 * The audited event types, the actions each records and the entry each makes: the one declaration of which event records
 * which action (a route's `audit` field is held to it by test/http/auditActions.test.ts).
 */
const auditedEvents: Audited<
  | GuildEvent
  | RoleEvent
  | MemberEvent
  | ModerationEvent
  | ChannelEvent
  | InviteEvent
  | WebhookEvent
  | GuildExpressionEvent
  | VoiceEvent
  | AutoModerationEvent
  | AutoModerationActionExecuted
  | ThreadEvent
> = {
  GuildUpdated: audits('GUILD_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.guildId,
    changes: data.changes.map(auditKey),
  })),
  VanityCodeSet: audits('GUILD_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.guildId,
    changes: [{ key: 'vanity_url_code', old_value: data.previousCode, new_value: data.code }],
  })),
  ChannelCreated: audits('CHANNEL_CREATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.channel.id,
    changes: created(data.channel),
  })),
  ChannelUpdated: audits('CHANNEL_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.channelId,
    changes: data.changes,
  })),
  ChannelDeleted: audits('CHANNEL_DELETE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.channel.id,
    changes: deleted(data.channel),
  })),
  // A webhook's post is its message's side, and a webhook's messages make no entry.
  ThreadCreated: audits('THREAD_CREATE', ({ data }, action) =>
    data.byWebhook ? null : { guildId: data.guildId, actionType: action, targetId: data.thread.id, changes: created(data.thread, THREAD_SKIP) },
  ),
  ThreadUpdated: audits('THREAD_UPDATE', ({ data }, action) =>
    data.byMessage ? null : { guildId: data.guildId, actionType: action, targetId: data.threadId, changes: threadChanges(data.changes) },
  ),
  ThreadDeleted: audits('THREAD_DELETE', ({ data }, action) =>
    data.withParent ? null : { guildId: data.guildId, actionType: action, targetId: data.thread.id, changes: deleted(data.thread, THREAD_SKIP) },
  ),
  ChannelOverwriteSet: audits('CHANNEL_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.channelId,
    changes: (['allow', 'deny'] as const).map((key) => ({ key, old_value: data.previous?.[key], new_value: data.overwrite[key] })),
    options: overwriteOptions(data.overwrite),
  })),
  ChannelOverwriteDeleted: audits('CHANNEL_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.channelId,
    changes: deleted(data.overwrite, []),
    options: overwriteOptions(data.overwrite),
  })),
  MemberJoined: audits('BOT_ADD', ({ data }, action) => (data.botAdd ? { guildId: data.guildId, actionType: action, targetId: data.userId } : null)),
  MemberKicked: audits('MEMBER_KICK', ({ data }, action) => ({ guildId: data.guildId, actionType: action, targetId: data.userId })),
  // One entry for the whole prune (its first event), with the spec's "prune day counts" and how many it removed, as
  // strings, as the widely used API gives them.
  MembersPruned: audits('MEMBER_PRUNE', ({ data }, action) =>
    data.part === 0
      ? {
          guildId: data.guildId,
          actionType: action,
          targetId: null,
          options: { delete_member_days: String(data.days), members_removed: String(data.total) },
        }
      : null,
  ),
  MemberBanned: audits('MEMBER_BAN_ADD', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.userId,
    options: { delete_message_days: String(Math.floor(data.deleteMessageSeconds / 86400)), delete_message_seconds: String(data.deleteMessageSeconds) },
  })),
  MemberUnbanned: audits('MEMBER_BAN_REMOVE', ({ data }, action) => ({ guildId: data.guildId, actionType: action, targetId: data.userId })),
  // A timeout no member made (an auto-moderation rule's) is recorded by its execution's entry 145, not again here.
  MemberUpdated: audits('MEMBER_UPDATE', ({ data, metadata }, action) =>
    metadata.actorId === null
      ? null
      : {
          guildId: data.guildId,
          actionType: action,
          targetId: data.userId,
          changes: data.changes.map(auditKey),
        },
  ),
  // As the widely used API: options name the channel moved to and how many members (here always one entry per member).
  VoiceChannelMoved: audits('MEMBER_MOVE', ({ data }, action) =>
    data.movedBy ? { guildId: data.guildId, actionType: action, targetId: data.userId, options: { channel_id: data.channelId, count: '1' } } : null,
  ),
  VoiceChannelLeft: audits('MEMBER_DISCONNECT', ({ data }, action) =>
    data.reason === 'disconnected' ? { guildId: data.guildId, actionType: action, targetId: data.userId, options: { count: '1' } } : null,
  ),
  RoleCreated: audits('ROLE_CREATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.role.id,
    changes: created(data.role, ['id', 'position', 'tags']),
  })),
  RoleUpdated: audits('ROLE_UPDATE', ({ data }, action) => ({ guildId: data.guildId, actionType: action, targetId: data.roleId, changes: data.changes })),
  RoleDeleted: audits('ROLE_DELETE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.role.id,
    changes: deleted(data.role, ['id', 'position', 'tags']),
  })),
  InviteCreated: audits('INVITE_CREATE', ({ data }, action) => ({
    guildId: data.invite.guild_id,
    actionType: action,
    targetId: null,
    changes: created(data.invite, INVITE_SKIP),
  })),
  InviteDeleted: audits('INVITE_DELETE', ({ data }, action) => ({
    guildId: data.invite.guild_id,
    actionType: action,
    targetId: null,
    changes: deleted(data.invite, INVITE_SKIP),
  })),
  WebhookCreated: audits('WEBHOOK_CREATE', ({ data }, action) => ({
    guildId: data.webhook.guild_id,
    actionType: action,
    targetId: data.webhook.id,
    changes: created(auditedWebhook(data.webhook), []).map(auditKey),
  })),
  WebhookUpdated: audits('WEBHOOK_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.webhookId,
    changes: data.changes.map(auditKey),
  })),
  WebhookDeleted: audits('WEBHOOK_DELETE', ({ data }, action) => ({
    guildId: data.webhook.guild_id,
    actionType: action,
    targetId: data.webhook.id,
    changes: deleted(auditedWebhook(data.webhook), []).map(auditKey),
  })),
  EmojiCreated: audits('EMOJI_CREATE', ({ data }, action) => ({
    ...emojiEntry,
    guildId: data.guildId,
    actionType: action,
    targetId: data.emoji.id,
    changes: created(auditedEmoji(data.emoji)),
  })),
  EmojiUpdated: audits('EMOJI_UPDATE', ({ data }, action) => ({
    ...emojiEntry,
    guildId: data.guildId,
    actionType: action,
    targetId: data.emojiId,
    changes: data.changes,
  })),
  EmojiDeleted: audits('EMOJI_DELETE', ({ data }, action) => ({
    ...emojiEntry,
    guildId: data.guildId,
    actionType: action,
    targetId: data.emoji.id,
    changes: deleted(auditedEmoji(data.emoji)),
  })),
  StickerCreated: audits('STICKER_CREATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.sticker.id,
    changes: created(auditedSticker(data.sticker)),
  })),
  StickerUpdated: audits('STICKER_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.stickerId,
    changes: auditedStickerChanges(data.changes),
  })),
  StickerDeleted: audits('STICKER_DELETE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.sticker.id,
    changes: deleted(auditedSticker(data.sticker)),
  })),
  AutoModerationRuleCreated: audits('AUTO_MODERATION_RULE_CREATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.rule.id,
    changes: created(data.rule, ['id', 'guild_id', 'creator_id']),
  })),
  AutoModerationRuleUpdated: audits('AUTO_MODERATION_RULE_UPDATE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.ruleId,
    changes: data.changes,
  })),
  AutoModerationRuleDeleted: audits('AUTO_MODERATION_RULE_DELETE', ({ data }, action) => ({
    guildId: data.guildId,
    actionType: action,
    targetId: data.rule.id,
    changes: deleted(data.rule, ['id', 'guild_id', 'creator_id']),
  })),
  AutoModerationActionExecuted: auditsOneOf(
    ['AUTO_MODERATION_BLOCK_MESSAGE', 'AUTO_MODERATION_FLAG_TO_CHANNEL', 'AUTO_MODERATION_USER_COMMUNICATION_DISABLED'],
    ({ data: { execution } }) => ({
      guildId: execution.guildId,
      actionType: AUTO_MODERATION_ACTION_ENTRIES[execution.action.type],
      targetId: execution.userId,
      options: {
        auto_moderation_rule_name: execution.ruleName,
        auto_moderation_rule_trigger_type: String(execution.ruleTriggerType),
        channel_id: execution.channelId,
      },
    }),
  ),
};

/** A snowflake of the event's time whose low 22 bits are its log position's (prepare positions are unique per event). */
export function auditEntryId(event: RecordedEvent): string {
  const ms = BigInt(Date.parse(event.metadata.createdAt)) - SERVICE_EPOCH;
  return ((ms << 22n) | (event.position.prepare & 0x3fffffn)).toString();
}

/** A member's nickname and guild images are their user's: erased with the account, as they read in the log then. */
const MEMBER_PERSONAL_KEYS = ['nick', 'avatar_hash', 'banner_hash'];

/** The event types that make an audit entry. */
export const AUDITED_EVENT_TYPES = Object.keys(auditedEvents) as (keyof typeof auditedEvents)[];

/** Each audited event type and the actions its entries record. */
export const AUDIT_ACTIONS_BY_EVENT: ReadonlyMap<string, readonly AuditActionName[]> = new Map(
  Object.entries(auditedEvents as Record<string, Auditing<unknown>>).map(([type, auditing]) => [type, auditing.actions]),
);

/** The entry an audited event makes (null for an event of those types that records none); the gateway pushes the same. */
export function auditEntryOf(event: RecordedEvent): AuditEntryDoc | null {
  const auditing = (auditedEvents as Record<string, Auditing<unknown> | undefined>)[event.type];
  const facts = auditing?.describe(event);
  if (!facts) return null;
  return {
    _id: auditEntryId(event),
    guild_id: facts.guildId,
    action_type: facts.actionType,
    target_id: facts.targetId,
    user_id: event.metadata.actorId,
    changes: facts.changes ?? [],
    options: facts.options ?? null,
    reason: event.metadata.reason ?? null,
    timestamp: event.metadata.createdAt,
  };
}

export const auditLogProjection = projection({
  name: 'auditLog',
  handles: ['GuildDeleted', 'UserErased', ...AUDITED_EVENT_TYPES],
  collections: [AUDIT_LOG_ENTRIES],
  indexes: [
    { collection: AUDIT_LOG_ENTRIES, keys: { guild_id: 1, _id: -1 } },
    { collection: AUDIT_LOG_ENTRIES, keys: { guild_id: 1, action_type: 1 } },
    { collection: AUDIT_LOG_ENTRIES, keys: { user_id: 1 } },
    { collection: AUDIT_LOG_ENTRIES, keys: { target_id: 1 } },
  ],
  project(event) {
    if (event.type === 'GuildDeleted') return [{ deleteMany: { collection: AUDIT_LOG_ENTRIES, filter: { guild_id: event.data.guildId } } }];
    // A deleted account's entries stay (who did what, when), without the reasons it wrote, which were sealed with its key.
    if (event.type === 'UserErased') {
      const { userId } = event.data;
      const memberUpdates = { action_type: AuditLogAction.MEMBER_UPDATE, target_id: userId };
      return [
        { updateMany: { collection: AUDIT_LOG_ENTRIES, filter: { user_id: userId }, update: { $set: { reason: null } } } },
        ...MEMBER_PERSONAL_KEYS.map((key): WriteOp => ({
          updateMany: { collection: AUDIT_LOG_ENTRIES, filter: memberUpdates, update: { $pull: { changes: { key } } } },
        })),
      ];
    }
    const entry = auditEntryOf(event);
    const entered: WriteOp[] = entry ? [{ replaceOne: { collection: AUDIT_LOG_ENTRIES, filter: { _id: entry._id }, replacement: entry, upsert: true } }] : [];
    // A deleted thread's entries stay (who did what, when) without its names, which were sealed with its key: as a
    // rebuild reads them then, whether or not the key shredder got there before this entry was made.
    if (event.type === 'ThreadDeleted') {
      const filter = { target_id: event.data.thread.id, action_type: { $in: THREAD_ACTIONS } };
      return [...entered, { updateMany: { collection: AUDIT_LOG_ENTRIES, filter, update: { $pull: { changes: { key: 'name' } } } } }];
    }
    return entered;
  },
});
