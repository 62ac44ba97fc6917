// Which of a guild's auto-moderation rules a message triggers. Pure and fast enough for every send: each rule version
// is compiled once (cached by the rule object, which an update replaces) into one keyword automaton (Aho-Corasick:
// one pass over the content whatever the number of keywords) and its few regexes, whose safety was checked when the
// rule was saved. Keywords, allow lists and regexes all meet the content as foldText makes it, so that text which only
// looks different (decomposed accents, other cases, compatibility forms, invisible characters) is caught alike; the
// keywords are folded once, when the rule is compiled.
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
  const trimmed = source.trim();
  const openStart = trimmed.startsWith('*');
  const openEnd = trimmed.length > 1 && trimmed.endsWith('*');
  return { source, text: foldText(trimmed.slice(openStart ? 1 : 0, openEnd ? -1 : undefined)), openStart, openEnd };
}

const ASCII = /^[\x00-\x7f]*$/;
/** Characters that show nothing: soft hyphen, zero-width space, non-joiner and joiner, word joiner, zero-width no-break space. */
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;

/**
 * Text as auto-moderation compares it: without invisible characters, NFKC-normalised (a decomposed é is é, a
 * full-width ｃａｔ is cat) and case-folded (upper then lower case, so ß is ss; a final sigma ς is σ). ASCII text, most
 * messages, is only lower-cased: the rest changes nothing there.
 */
export function foldText(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  const normalised = text.replace(INVISIBLE, '').normalize('NFKC');
  return normalised.toUpperCase().toLowerCase().replaceAll('ς', 'σ').normalize('NFKC');
}

/** A character with the combining marks that follow it (or marks alone): the pieces writtenSpan folds one by one. */
const PIECE = /\P{M}\p{M}*|\p{M}+/gsu;

/**
 * What was written where [start, end) of foldText(content) is: the pieces of `content` whose folds cover it. Only a
 * match asks, so a send that triggers nothing never pays for it.
 */
export function writtenSpan(content: string, start: number, end: number): string {
  if (ASCII.test(content)) return content.slice(start, end);
  if (end <= start) return '';
  let folded = 0;
  let from = -1;
  for (const piece of content.matchAll(PIECE)) {
    folded += foldText(piece[0]).length;
    if (from < 0 && folded > start) from = piece.index;
    if (folded >= end) return content.slice(from, piece.index + piece[0].length);
  }
  return content.slice(Math.max(from, 0));
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
   * Visits the occurrences in `folded` (foldText of the content) that keep to their keyword's boundaries, in order of
   * where they end, until `visit` returns true (then so does scan).
   */
  scan(folded: string, visit: (match: KeywordMatch) => boolean): boolean {
    let node = 0;
    for (let i = 0; i < folded.length; i++) {
      const c = folded.charCodeAt(i);
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
          if (!keyword.openStart && isWordChar(folded, start - 1)) continue;
          if (!keyword.openEnd && isWordChar(folded, end)) continue;
          while (keyword.openStart && isWordChar(folded, start - 1)) start--;
          while (keyword.openEnd && isWordChar(folded, end)) end++;
          if (visit({ keyword: keyword.source, start, end })) return true;
        }
      }
    }
    return false;
  }

  /** Every occurrence scan visits. */
  matches(folded: string): KeywordMatch[] {
    const found: KeywordMatch[] = [];
    this.scan(folded, (match) => {
      found.push(match);
      return false;
    });
    return found;
  }
}

/** A rule version, ready to match. */
interface CompiledRule {
  keywords: KeywordMatcher | null;
  /** Each pattern as the rule has it, and compiled from regexSource. */
  regexes: { source: string; regex: RegExp }[];
  allow: KeywordMatcher | null;
}

/** The flags regex_patterns are compiled (and checked for backtracking) with: case-insensitive, like keywords. */
export const REGEX_FLAGS = 'iu';

/** An escape (a backslash and the character after it), a class's bracket, or a character with the marks that follow it. */
const PATTERN_TOKEN = /\\.|[[\]]|\P{M}\p{M}*|\p{M}+/gsu;
const escapeOutside = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const escapeInClass = (text: string) => text.replace(/[\\\]\-^]/g, '\\$&');

/**
 * A regex_patterns entry as it is compiled (and checked for backtracking): its non-ASCII characters folded as the
 * content is (foldText), so that `straße` or a decomposed é in a pattern meets the folded content. A character that
 * folds to several is one group of them (`ß+` is `(?:ss)+`), to nothing an empty group, to a syntax character that
 * character escaped. Escapes are left as written, and so is a character in a class that folds to several. An ASCII
 * pattern is as written.
 */
export function regexSource(pattern: string): string {
  if (ASCII.test(pattern)) return pattern;
  let out = '';
  let inClass = false;
  for (const [token] of pattern.matchAll(PATTERN_TOKEN)) {
    // In a class (without the v flag), a '[' is a character like any other: only ']' ends it.
    if (token === '[') inClass = true;
    else if (token === ']') inClass = false;
    if (token.startsWith('\\') || ASCII.test(token)) {
      out += token;
      continue;
    }
    const folded = foldText(token);
    const single = [...folded].length === 1;
    if (inClass) out += single ? escapeInClass(folded) : token;
    else out += single ? escapeOutside(folded) : `(?:${escapeOutside(folded)})`;
  }
  return out;
}

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
    regexes: (meta.regex_patterns ?? []).map((source) => ({ source, regex: new RegExp(regexSource(source), REGEX_FLAGS) })),
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

export const spamText = (content: string) => foldText(content).replace(/\s+/g, ' ').trim();

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

/** Whether a keyword or regex match in `folded` is covered by one of the allow list's. */
function allowed(rule: CompiledRule, folded: string, start: number, end: number): boolean {
  return rule.allow !== null && rule.allow.scan(folded, (allow) => allow.start <= start && allow.end >= end);
}

/** What the rule matches in the content (`folded` its foldText), reported as written. */
function contentTrigger(rule: CompiledRule, content: string, folded: string): Omit<Trigger, 'rule'> | null {
  let found: KeywordMatch | undefined;
  rule.keywords?.scan(folded, (match) => {
    if (allowed(rule, folded, match.start, match.end)) return false;
    found = match;
    return true;
  });
  if (found) return { matchedKeyword: found.keyword, matchedContent: writtenSpan(content, found.start, found.end) };
  for (const { source, regex } of rule.regexes) {
    const match = regex.exec(folded);
    if (!match) continue;
    const end = match.index + match[0].length;
    if (!allowed(rule, folded, match.index, end)) return { matchedKeyword: source, matchedContent: writtenSpan(content, match.index, end) };
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
  let folded: string | null = null;
  const triggers: Trigger[] = [];
  for (const rule of guild.autoModerationRules.values()) {
    if (!rule.enabled || exempt(rule, send, roles)) continue;
    switch (rule.trigger_type) {
      case TriggerType.KEYWORD:
      case TriggerType.KEYWORD_PRESET: {
        const found = contentTrigger(compile(rule), send.content, (folded ??= foldText(send.content)));
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
