// Mention raid protection (a MENTION_SPAM rule's `mention_raid_protection_enabled`): the widely used API documents only
// "Whether to automatically detect mention raids". Parley's definition, deterministic: a raid is many messages that
// mention someone, from several members, in a short time, across the guild; once one is seen, every further send that
// mentions someone triggers the rule until the guild has been quiet for a while. One member's burst is not a raid: the
// rule's own mention_total_limit and the SPAM rule deal with that.
import type { AutoModerationRuleData } from './autoModeration.js';
import { TriggerType } from './autoModeration.js';
import type { GuildState } from './guildState.js';
import { parseMentions } from './mentions.js';

/**
 * The widely used API does not publish its numbers; these are Parley's. Ten sends that mention someone within 30
 * seconds is one every three seconds, faster than people pick names from a mention list in a conversation (a reply
 * pings through its reference, not a mention in the text, so it does not count); three authors at least, because two
 * members pinging each other is a conversation and one is a flood the other rules see. Five minutes of lockdown from
 * the last time the threshold held outlasts the pause between a raid's waves, and costs a false alarm a few minutes of
 * blocked pings, not more; each caught send that still meets the threshold renews it, so a raid that goes on stays held.
 */
export const MENTION_RAID = { windowMs: 30_000, sends: 10, authors: 3, lockdownMs: 5 * 60_000 } as const;

/** A guild's recent mention-bearing sends, as the detector keeps them: bounded by MENTION_RAID.sends. */
export interface MentionRaidWatch {
  /** The last MENTION_RAID.sends sends that mentioned someone, oldest first (caught ones too: they are the raid's). */
  recent: readonly { at: number; authorId: string }[];
  /** Until when sends that mention someone are caught (0: no raid seen). */
  raidUntil: number;
}

export const NO_MENTION_RAID: MentionRaidWatch = { recent: [], raidUntil: 0 };

/** The guild's enabled MENTION_SPAM rule with raid protection on, if it has one (a guild has one MENTION_SPAM rule at most). */
export function mentionRaidRule(guild: GuildState): AutoModerationRuleData | undefined {
  for (const rule of guild.autoModerationRules.values()) {
    if (rule.enabled && rule.trigger_type === TriggerType.MENTION_SPAM && rule.trigger_metadata.mention_raid_protection_enabled) return rule;
  }
  return undefined;
}

/** The user and role mentions MENTION_SPAM counts in a message. */
export function mentionCount(content: string): number {
  const mentions = parseMentions(content);
  return mentions.users.length + mentions.roles.length;
}

/** The watch once `authorId` has sent a message that mentions someone at `now`. */
export function noteMentionSend(watch: MentionRaidWatch, authorId: string, now: number): MentionRaidWatch {
  const recent = [...watch.recent, { at: now, authorId }].slice(-MENTION_RAID.sends);
  const raid =
    recent.length === MENTION_RAID.sends &&
    now - recent[0].at <= MENTION_RAID.windowMs &&
    new Set(recent.map((send) => send.authorId)).size >= MENTION_RAID.authors;
  return { recent, raidUntil: raid ? now + MENTION_RAID.lockdownMs : watch.raidUntil };
}

export const inMentionRaid = (watch: MentionRaidWatch, now: number): boolean => now < watch.raidUntil;
