// Which of a guild's auto-moderation rules a message triggers. Pure and fast enough for every send: each rule version
// is compiled once (cached by the rule object, which an update replaces) into one keyword automaton (Aho-Corasick:
// one pass over the content whatever the number of keywords) and its few regexes, whose safety was checked when the
// rule was saved.
import { type AutoModerationRuleData, TriggerType } from './autoModeration.js';
import { mentionCount } from './autoModerationMentionRaid.js';
import { PRESET_WORDS } from './autoModerationPresets.js';
import { type GuildState, guildPermissions } from './guildState.js';
import { Permission, hasPermission } from './permissions.js';

/** A keyword of keyword_filter, allow_list or a preset: `*` at either end lets the word go on past the text on that side. */
interface Keyword {
  source: string;
  text: string;
  openStart: boolean;
  openEnd: boolean;
}

export function parseKeyword(source: string): Keyword {
  const lower = lowerCase(source.trim());
  const openStart = lower.startsWith('*');
  const openEnd = lower.length > 1 && lower.endsWith('*');
  return { source, text: lower.slice(openStart ? 1 : 0, openEnd ? -1 : undefined), openStart, openEnd };
}

/** Lower case that keeps every index in place (a few characters lengthen under toLowerCase: those stay as they are). */
export function lowerCase(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let kept = '';
  for (const char of text) {
    const one = char.toLowerCase();
    kept += one.length === char.length ? one : char;
  }
  return kept;
}

const WORD = /[\p{L}\p{N}_]/u;
/** Letters, digits and underscores make words; anything else (whitespace, punctuation, the ends) separates them. */
function isWordChar(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
  return WORD.test(text[i]);
}

export interface KeywordMatch {
  keyword: string;
  /** The words the keyword matched in, as written: the whole word for a wildcard side. */
  start: number;
  end: number;
}

/** Many keywords, matched in one pass (Aho-Corasick); each occurrence is then held to its keyword's word boundaries. */
export class KeywordMatcher {
  /** Every node's transitions in one map, keyed node * 2^16 + UTF-16 code unit: no map per node to build or walk. */
  private readonly next = new Map<number, number>();
  private readonly fail: number[] = [0];
  /** The keywords that end at each node (most nodes: none). */
  private readonly ends: (number[] | undefined)[] = [undefined];
  /** The nearest node down the failure chain where keywords end (0: none), so a scan visits only real outputs. */
  private readonly outputLink: number[] = [0];
  private readonly keywords: Keyword[];

  constructor(sources: readonly string[]) {
    this.keywords = sources.map(parseKeyword).filter((k) => k.text.length > 0);
    const children: [number, number][][] = [[]];
    this.keywords.forEach((keyword, index) => {
      let node = 0;
      for (let i = 0; i < keyword.text.length; i++) {
        const c = keyword.text.charCodeAt(i);
        let child = this.next.get(node * 0x10000 + c);
        if (child === undefined) {
          child = this.fail.push(0) - 1;
          this.ends.push(undefined);
          this.outputLink.push(0);
          children.push([]);
          children[node].push([c, child]);
          this.next.set(node * 0x10000 + c, child);
        }
        node = child;
      }
      (this.ends[node] ??= []).push(index);
    });
    // Failure links breadth first, each from its parent's.
    const queue = children[0].map(([, child]) => child);
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head];
      for (const [c, child] of children[node]) {
        let fallback = this.fail[node];
        let target = node === 0 ? undefined : this.next.get(fallback * 0x10000 + c);
        while (target === undefined && fallback !== 0) {
          fallback = this.fail[fallback];
          target = this.next.get(fallback * 0x10000 + c);
        }
        const f = (this.fail[child] = target ?? 0);
        this.outputLink[child] = this.ends[f] ? f : this.outputLink[f];
        queue.push(child);
      }
    }
  }

  get size(): number {
    return this.keywords.length;
  }

  /**
   * Visits the occurrences that keep to their keyword's boundaries, in order of where they end, until `visit` returns
   * true (then so does scan); `lower` is lowerCase(content).
   */
  scan(content: string, lower: string, visit: (match: KeywordMatch) => boolean): boolean {
    let node = 0;
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      let target = this.next.get(node * 0x10000 + c);
      while (target === undefined && node !== 0) {
        node = this.fail[node];
        target = this.next.get(node * 0x10000 + c);
      }
      node = target ?? 0;
      for (let out = this.ends[node] ? node : this.outputLink[node]; out !== 0; out = this.outputLink[out]) {
        for (const index of this.ends[out]!) {
          const keyword = this.keywords[index];
          let start = i + 1 - keyword.text.length;
          let end = i + 1;
          if (!keyword.openStart && isWordChar(content, start - 1)) continue;
          if (!keyword.openEnd && isWordChar(content, end)) continue;
          while (keyword.openStart && isWordChar(content, start - 1)) start--;
          while (keyword.openEnd && isWordChar(content, end)) end++;
          if (visit({ keyword: keyword.source, start, end })) return true;
        }
      }
    }
    return false;
  }

  /** Every occurrence scan visits. */
  matches(content: string, lower: string): KeywordMatch[] {
    const found: KeywordMatch[] = [];
    this.scan(content, lower, (match) => {
      found.push(match);
      return false;
    });
    return found;
  }
}

/** A rule version, ready to match. */
interface CompiledRule {
  keywords: KeywordMatcher | null;
  regexes: RegExp[];
  allow: KeywordMatcher | null;
}

/** The flags regex_patterns are compiled (and checked for backtracking) with: case-insensitive, like keywords. */
export const REGEX_FLAGS = 'iu';

const compiled = new WeakMap<AutoModerationRuleData, CompiledRule>();

/** Compiles a rule version once (its writer calls it, so that the first send it checks finds it ready). */
export function compile(rule: AutoModerationRuleData): CompiledRule {
  let done = compiled.get(rule);
  if (done) return done;
  const meta = rule.trigger_metadata;
  const words = rule.trigger_type === TriggerType.KEYWORD_PRESET ? (meta.presets ?? []).flatMap((p) => PRESET_WORDS[p] ?? []) : (meta.keyword_filter ?? []);
  const keywords = new KeywordMatcher(words);
  const allow = new KeywordMatcher(meta.allow_list ?? []);
  done = {
    keywords: keywords.size ? keywords : null,
    regexes: (meta.regex_patterns ?? []).map((source) => new RegExp(source, REGEX_FLAGS)),
    allow: allow.size ? allow : null,
  };
  compiled.set(rule, done);
  return done;
}

export interface Trigger {
  rule: AutoModerationRuleData;
  matchedKeyword: string | null;
  matchedContent: string | null;
}

/** A send as auto-moderation sees it. */
export interface ModeratedSend {
  guild: GuildState;
  channelId: string;
  /** The channel's parent (a thread's channel, a channel's category): exempting it exempts the channel. */
  parentId: string | null;
  authorId: string;
  content: string;
  /** The author's earlier sends in the guild, newest last, for SPAM (see isSpam). */
  recent: readonly RecentSend[];
  /** The guild is in a mention raid, counting this send (domain/autoModerationMentionRaid.ts); never for an edit. */
  mentionRaid: boolean;
  now: number;
}

/** Where a send is made and by whom: what decides whether a rule looks at it. */
export type SendPlace = Pick<ModeratedSend, 'guild' | 'channelId' | 'parentId' | 'authorId'>;

export interface RecentSend {
  at: number;
  /** The content as isSpam compares it. */
  text: string;
}

/**
 * SPAM, as Parley defines it: a message is spam when its author already sent the same text (case and spacing aside,
 * not empty) twice in this guild within the last 30 seconds — the third copy is blocked — or when it would be their
 * sixth message in the guild within 5 seconds (a flood).
 */
export const SPAM_RULES = { repeatWindowMs: 30_000, repeats: 2, floodWindowMs: 5_000, floodCount: 5 } as const;

export const spamText = (content: string) => lowerCase(content).replace(/\s+/g, ' ').trim();

export function isSpam(recent: readonly RecentSend[], content: string, now: number): boolean {
  const text = spamText(content);
  let repeats = 0;
  let flood = 0;
  for (const send of recent) {
    if (text && send.text === text && now - send.at <= SPAM_RULES.repeatWindowMs) repeats++;
    if (now - send.at <= SPAM_RULES.floodWindowMs) flood++;
  }
  return repeats >= SPAM_RULES.repeats || flood >= SPAM_RULES.floodCount;
}

/** Whether a keyword or regex match is covered by one of the allow list's. */
function allowed(rule: CompiledRule, content: string, lower: string, start: number, end: number): boolean {
  return rule.allow !== null && rule.allow.scan(content, lower, (allow) => allow.start <= start && allow.end >= end);
}

function contentTrigger(rule: CompiledRule, content: string, lower: string): Omit<Trigger, 'rule'> | null {
  let found: KeywordMatch | undefined;
  rule.keywords?.scan(content, lower, (match) => {
    if (allowed(rule, content, lower, match.start, match.end)) return false;
    found = match;
    return true;
  });
  if (found) return { matchedKeyword: found.keyword, matchedContent: content.slice(found.start, found.end) };
  for (const regex of rule.regexes) {
    const match = regex.exec(content);
    if (match && !allowed(rule, content, lower, match.index, match.index + match[0].length)) return { matchedKeyword: regex.source, matchedContent: match[0] };
  }
  return null;
}

/** Whom a rule leaves alone: an exempt role, an exempt channel (or its parent). */
function exempt(rule: AutoModerationRuleData, send: SendPlace, roles: readonly string[]): boolean {
  return (
    rule.exempt_channels.includes(send.channelId) ||
    (send.parentId !== null && rule.exempt_channels.includes(send.parentId)) ||
    rule.exempt_roles.some((id) => roles.includes(id))
  );
}

/** Members with MANAGE_GUILD are never moderated. */
const managesGuild = (send: SendPlace) => hasPermission(guildPermissions(send.guild, send.authorId), Permission.MANAGE_GUILD);
const rolesOf = (send: SendPlace) => send.guild.members.get(send.authorId)?.roles ?? [];

/** Whether `rule` looks at the send at all: not when its author manages the guild, has an exempt role, or writes in an exempt channel. */
export const ruleApplies = (rule: AutoModerationRuleData, send: SendPlace): boolean => !managesGuild(send) && !exempt(rule, send, rolesOf(send));

/** The enabled rules the send triggers, each with what it matched. Members with MANAGE_GUILD are never moderated. */
export function triggeredRules(send: ModeratedSend): Trigger[] {
  const { guild } = send;
  if (guild.autoModerationRules.size === 0) return [];
  if (managesGuild(send)) return [];
  const roles = rolesOf(send);
  let lower: string | null = null;
  const triggers: Trigger[] = [];
  for (const rule of guild.autoModerationRules.values()) {
    if (!rule.enabled || exempt(rule, send, roles)) continue;
    switch (rule.trigger_type) {
      case TriggerType.KEYWORD:
      case TriggerType.KEYWORD_PRESET: {
        const found = contentTrigger(compile(rule), send.content, (lower ??= lowerCase(send.content)));
        if (found) triggers.push({ rule, ...found });
        break;
      }
      case TriggerType.MENTION_SPAM: {
        const raid = send.mentionRaid && rule.trigger_metadata.mention_raid_protection_enabled === true;
        if (raid || mentionCount(send.content) > (rule.trigger_metadata.mention_total_limit ?? Infinity)) {
          triggers.push({ rule, matchedKeyword: null, matchedContent: null });
        }
        break;
      }
      case TriggerType.SPAM:
        if (isSpam(send.recent, send.content, send.now)) triggers.push({ rule, matchedKeyword: null, matchedContent: null });
        break;
    }
  }
  return triggers;
}

/** Whether the guild has an enabled SPAM rule: only then are its sends remembered for it. */
export const watchesSpam = (guild: GuildState) => [...guild.autoModerationRules.values()].some((r) => r.enabled && r.trigger_type === TriggerType.SPAM);
