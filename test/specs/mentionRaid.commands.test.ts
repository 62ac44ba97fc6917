// Command specs of mention raid protection: given a guild whose MENTION_SPAM rule has mention_raid_protection_enabled
// → when its members send messages that mention someone → then the raid's first sends go through and, once the
// detector sees a raid, a send that mentions someone leaves only the rule's execution in the log.
import { describe, expect, it } from 'vitest';
import { sendMessage } from '../../commands/messages/send.js';
import type { AutoModerationRuleCreated, AutoModerationRuleData } from '../../domain/autoModeration.js';
import type { GuildEvent } from '../../domain/guild.js';
import type { AutoModerationExecution } from '../../domain/autoModerationExecution.js';
import { MENTION_RAID } from '../../domain/autoModerationMentionRaid.js';
import type { CommandDeps } from '../../commands/deps.js';
import { G, GENERAL, type Person, accounts, ada, bob, cy, eve, guildHistory } from './events.js';
import { type Appended, givenStreams } from './support.js';

const RULE_ID = '700';
const raidRule = (raidProtection: boolean): AutoModerationRuleData => ({
  id: RULE_ID,
  guild_id: G,
  name: 'No mention raids',
  creator_id: ada.id,
  event_type: 1,
  trigger_type: 5,
  trigger_metadata: { mention_total_limit: 5, mention_raid_protection_enabled: raidProtection },
  actions: [{ type: 1, metadata: { custom_message: 'Slow down' } }],
  enabled: true,
  exempt_roles: [],
  exempt_channels: [],
});
const ruleCreated = (rule: AutoModerationRuleData): AutoModerationRuleCreated => ({ type: 'AutoModerationRuleCreated', data: { guildId: G, rule } });
const guildWith = (rule: AutoModerationRuleData): [string, (GuildEvent | AutoModerationRuleCreated)[]] => [`guild-${G}`, [...guildHistory, ruleCreated(rule)]];

const PING = `hey <@${ada.id}>`;
/** bob, cy and eve in turn: the raid's authors (none of them manages the guild). */
const raiders: Person[] = Array.from({ length: MENTION_RAID.sends }, (_, i) => [bob, cy, eve][i % 3]);
const send = (deps: CommandDeps, person: Person, content = PING) =>
  sendMessage(deps, { actorId: person.id }, GENERAL, { content }, [], { userId: person.id, bot: false });
const created = (person: Person): Appended => ({
  stream: expect.stringMatching(/^message-/),
  type: 'MessageCreated',
  data: expect.objectContaining({ authorId: person.id, message: expect.objectContaining({ content: PING }) }),
});

describe('mention raid protection', () => {
  it('blocks the send that makes ten mentioning sends by three members within 30 seconds, appending only its execution', () => {
    const execution: AutoModerationExecution = {
      guildId: G,
      ruleId: RULE_ID,
      ruleName: 'No mention raids',
      ruleTriggerType: 5,
      action: { type: 1, metadata: { custom_message: 'Slow down' } },
      userId: bob.id,
      channelId: GENERAL,
      messageId: null,
      alertSystemMessageId: null,
      content: PING,
      matchedKeyword: null,
      matchedContent: null,
      timeoutUntil: null,
    };
    return givenStreams(...accounts(ada, bob, cy, eve), guildWith(raidRule(true)))
      .when(async (deps) => {
        for (const person of raiders.slice(0, -1)) await send(deps, person);
        await expect(send(deps, raiders.at(-1)!)).rejects.toMatchObject({ code: 'AUTOMOD_BLOCKED', message: expect.stringContaining('Slow down') });
        // Held from then on: another member's single ping is caught too, a message that mentions no one is not.
        await expect(send(deps, cy)).rejects.toMatchObject({ code: 'AUTOMOD_BLOCKED' });
        await send(deps, eve, 'what is going on?');
      })
      .then(
        ...raiders.slice(0, -1).map(created),
        { stream: expect.stringMatching(/^auto-moderation-execution-/), type: 'AutoModerationActionExecuted', data: { execution } },
        {
          stream: expect.stringMatching(/^auto-moderation-execution-/),
          type: 'AutoModerationActionExecuted',
          data: { execution: { ...execution, userId: cy.id } },
        },
        {
          stream: expect.stringMatching(/^message-/),
          type: 'MessageCreated',
          data: expect.objectContaining({ authorId: eve.id, message: expect.objectContaining({ content: 'what is going on?' }) }),
        },
      );
  });

  it('lets the same sends through when the rule does not protect against raids', () =>
    givenStreams(...accounts(ada, bob, cy, eve), guildWith(raidRule(false)))
      .when(async (deps) => {
        for (const person of raiders) await send(deps, person);
      })
      .then(...raiders.map(created)));

  it('sees no raid in one member’s mentions alone, however many', () =>
    givenStreams(...accounts(ada, bob, cy, eve), guildWith(raidRule(true)))
      .when(async (deps) => {
        for (let i = 0; i < MENTION_RAID.sends; i++) await send(deps, bob);
      })
      .then(...raiders.map(() => created(bob))));
});
