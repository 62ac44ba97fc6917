// Auto-moderation in the command path of a member's send or edit, before anything is appended. The rules come with the
// guild state the send has already loaded for its permissions, compiled once per rule version (domain/
// autoModerationMatch.ts), so checking them costs no read. A rule that blocks answers 400 AUTOMOD_BLOCKED, and the log
// then holds the rule's executions and its alerts, not the message.
// Webhook executions and interaction responses are not members' sends: the widely used API does not moderate them,
// and they do not come through here. Bots' sends do, like anyone's (exempt them by role).
// SPAM's recent sends and the mention raid detector's watches are kept in each process's memory, bounded, and only for
// guilds with such a rule: after a restart (or across processes) a window starts empty, which can only let a message
// through, never block one that would not have been.
import { LRUCache } from 'lru-cache';
import { ActionType } from '../../domain/autoModeration.js';
import { type AutoModerationExecution, autoModerationExecutionDecider } from '../../domain/autoModerationExecution.js';
import {
  type RecentSend,
  type SendPlace,
  type Trigger,
  ruleApplies,
  spamText,
  SPAM_RULES,
  triggeredRules,
  watchesSpam,
} from '../../domain/autoModerationMatch.js';
import { NO_MENTION_RAID, inMentionRaid, mentionCount, mentionRaidRule, noteMentionSend } from '../../domain/autoModerationMentionRaid.js';
import type { MentionRaidWatch } from '../../domain/autoModerationMentionRaid.js';
import { DomainError } from '../../domain/errors.js';
import { guildDecider } from '../../domain/guild.js';
import { type MessageFields, type MessageUser, MessageType, messageDecider } from '../../domain/message.js';
import { snowflakeTimestamp } from '../../domain/snowflake.js';
import type { Position } from '../../ports/eventStore.js';
import type { MessageChannelAccess } from '../access.js';
import { type ActorMeta, type Uses, lastPosition, metadata } from '../deps.js';
import type { CommandHandler } from '../handle.js';
import { autoModerationExecutionStream, guildStream, messageStream } from '../streams.js';

/**
 * The refusal of a blocked message, with the explanation its rules give members (BLOCK_MESSAGE's custom_message) after
 * the widely used API's words: what the author's client shows them.
 */
export function automodBlocked(moderation: Moderation): DomainError {
  const explained = moderation.triggers.flatMap(({ rule }) =>
    rule.actions.flatMap((action) => (action.type === ActionType.BLOCK_MESSAGE && action.metadata?.custom_message ? [action.metadata.custom_message] : [])),
  );
  const because = [...new Set(explained)].join(' ');
  return new DomainError('invalid', 'AUTOMOD_BLOCKED', `Message was blocked by automatic moderation${because ? `: ${because}` : ''}`);
}

/** A memory of each runtime (keyed by its command handler, so that each test server or spec has its own), of at most `max` entries. */
function perRuntime<V extends object>(max: number): (deps: Uses<'commands'>) => LRUCache<string, V> {
  const caches = new WeakMap<CommandHandler, LRUCache<string, V>>();
  return (deps) => {
    let cache = caches.get(deps.commands);
    if (!cache) caches.set(deps.commands, (cache = new LRUCache({ max })));
    return cache;
  };
}

/** Recent sends by guild and author, for SPAM: kept only in guilds with an enabled SPAM rule. */
const recentOf = perRuntime<RecentSend[]>(50_000);
/** The mention raid detector's watch by rule (a new rule starts afresh): at most MENTION_RAID.sends sends each. */
const raidWatchOf = perRuntime<MentionRaidWatch>(10_000);

/**
 * Notes a send for the guild's raid protection, when it has a rule with it that looks at this send and the send mentions
 * someone, and tells whether the guild is in a mention raid with it. Attempts count, blocked ones too: a raid that goes
 * on keeps the guild held. Guilds without such a rule do no work here.
 */
function inRaidWith(deps: Uses<'commands'>, place: SendPlace, content: string, now: number): boolean {
  const rule = mentionRaidRule(place.guild);
  if (!rule || !ruleApplies(rule, place) || mentionCount(content) === 0) return false;
  const watches = raidWatchOf(deps);
  const watch = noteMentionSend(watches.get(rule.id) ?? NO_MENTION_RAID, place.authorId, now);
  watches.set(rule.id, watch);
  return inMentionRaid(watch, now);
}

export interface Moderation {
  triggers: Trigger[];
  /** Some rule triggered blocks the message. */
  blocks: boolean;
}

const NONE: Moderation = { triggers: [], blocks: false };

/**
 * The rules `content` triggers, by `authorId` in the channel of `access`: none outside guilds. `send` is true for a new
 * message (SPAM and mention raids count sends, not edits).
 */
export function moderate(deps: Uses<'commands' | 'clock'>, access: MessageChannelAccess, authorId: string, content: string, send: boolean): Moderation {
  const guild = access.guild;
  if (!guild || guild.autoModerationRules.size === 0) return NONE;
  const now = deps.clock.now();
  const recent = send && watchesSpam(guild) ? (recentOf(deps).get(`${guild.id}:${authorId}`) ?? []) : [];
  const place: SendPlace = { guild, channelId: access.channelId, parentId: guild.channels.get(access.channelId)?.parent_id ?? null, authorId };
  const mentionRaid = send && inRaidWith(deps, place, content, now);
  const triggers = triggeredRules({ ...place, content, recent, mentionRaid, now });
  if (triggers.length === 0) return NONE;
  return { triggers, blocks: triggers.some((t) => t.rule.actions.some((a) => a.type === ActionType.BLOCK_MESSAGE)) };
}

/** Notes a send that went through, for the guild's SPAM rule (only while it has one): older entries drop out. */
export function rememberSend(deps: Uses<'commands' | 'clock'>, access: MessageChannelAccess, authorId: string, content: string): void {
  if (!access.guild || !watchesSpam(access.guild)) return;
  const now = deps.clock.now();
  const key = `${access.guild.id}:${authorId}`;
  const recent = recentOf(deps);
  const kept = (recent.get(key) ?? []).filter((s) => now - s.at <= SPAM_RULES.repeatWindowMs);
  recent.set(key, [...kept, { at: now, text: spamText(content) }]);
}

/** The alert a SEND_ALERT_MESSAGE action posts: the widely used API's auto-moderation system message and its embed. */
function alertMessage(
  id: string,
  channelId: string,
  guildId: string,
  author: MessageUser,
  execution: AutoModerationExecution,
  blocked: boolean,
  decisionId: string,
): MessageFields {
  const field = (name: string, value: string) => ({ name, value, inline: true });
  return {
    id,
    channel_id: channelId,
    guild_id: guildId,
    author,
    webhook_id: null,
    type: MessageType.AUTO_MODERATION_ACTION,
    content: '',
    tts: false,
    embeds: [
      {
        type: 'auto_moderation_message',
        description: execution.content,
        fields: [
          field('rule_name', execution.ruleName),
          field('channel_id', execution.channelId),
          field('decision_id', decisionId),
          field('decision_outcome', blocked ? 'blocked' : 'flagged'),
          ...(execution.matchedKeyword !== null ? [field('keyword', execution.matchedKeyword)] : []),
          ...(execution.matchedContent !== null ? [field('keyword_matched_content', execution.matchedContent)] : []),
        ],
      },
    ],
    attachments: [],
    components: [],
    flags: 0,
    nonce: null,
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    mention_channels: [],
    message_reference: null,
    timestamp: new Date(snowflakeTimestamp(id)).toISOString(),
    edited_timestamp: null,
  };
}

/**
 * Records what the triggered rules do: one execution event per action, then the alerts in their channels (a channel
 * deleted since the rule was made gets none). `messageId` is the message when it went through. TIMEOUT is recorded
 * with the time it lasts until, and the author is timed out by the rule on the guild's stream (`TimeOutByRule`).
 */
export async function executeActions(
  deps: Uses<'commands' | 'ids' | 'clock' | 'settle'>,
  meta: ActorMeta,
  access: MessageChannelAccess,
  author: MessageUser,
  content: string,
  moderation: Moderation,
  messageId: string | null,
): Promise<void> {
  const guild = access.guild!;
  const decisionId = deps.ids.next();
  const now = deps.clock.now();
  const alerts: MessageFields[] = [];
  const executions = moderation.triggers.flatMap(({ rule, matchedKeyword, matchedContent }) =>
    rule.actions.map((action): AutoModerationExecution => {
      const alertChannel =
        action.type === ActionType.SEND_ALERT_MESSAGE && action.metadata.channel_id ? guild.channels.get(action.metadata.channel_id) : undefined;
      const execution: AutoModerationExecution = {
        guildId: guild.id,
        ruleId: rule.id,
        ruleName: rule.name,
        ruleTriggerType: rule.trigger_type,
        action,
        userId: author.id,
        channelId: access.channelId,
        messageId,
        alertSystemMessageId: alertChannel ? deps.ids.next() : null,
        content,
        matchedKeyword,
        matchedContent,
        timeoutUntil: action.type === ActionType.TIMEOUT ? new Date(now + (action.metadata.duration_seconds ?? 0) * 1000).toISOString() : null,
      };
      if (alertChannel) alerts.push(alertMessage(execution.alertSystemMessageId!, alertChannel.id, guild.id, author, execution, moderation.blocks, decisionId));
      return execution;
    }),
  );
  const positions: (Position | null)[] = [];
  const executed = await deps.commands.handle(
    autoModerationExecutionStream(decisionId),
    autoModerationExecutionDecider,
    { type: 'ExecuteAutoModerationActions', executions },
    metadata(meta, deps.clock),
    { newStream: true },
  );
  positions.push(executed.position);
  // TIMEOUT: the author is timed out by the rule, no member acting (audit entry 145 is the execution's).
  const until = executions.reduce<string | null>((latest, e) => (e.timeoutUntil && (!latest || e.timeoutUntil > latest) ? e.timeoutUntil : latest), null);
  if (until) {
    const timedOut = await deps.commands.handle(
      guildStream(guild.id),
      guildDecider,
      { type: 'TimeOutByRule', userId: author.id, until },
      metadata({ ...meta, actorId: null }, deps.clock),
    );
    positions.push(timedOut.position);
  }
  for (const message of alerts) {
    const posted = await deps.commands.handle(messageStream(message.id), messageDecider, { type: 'CreateMessage', message }, metadata(meta, deps.clock), {
      newStream: true,
    });
    positions.push(posted.position);
  }
  await deps.settle(lastPosition(...positions));
}
