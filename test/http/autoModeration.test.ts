// Auto-moderation through the real API: rules CRUD with the widely used API's limits and field paths, MANAGE_GUILD,
// enforcement on sends and edits (a blocked send appends only its executions and alert), the alert message, the
// gateway's AUTO_MODERATION_* dispatches by intent and permission, the audit entries 140-145, and mention raid protection.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MENTION_RAID } from '../../domain/autoModerationMentionRaid.js';
import { Intent } from '../../gateway/protocol.js';
import type { RecordedEvent } from '../../ports/eventStore.js';
import { gatewayClients } from '../support/gateway.js';
import { type ApiResponse, type TestServer, type TestUser, fileServer, expectNothingAppendedSince, appendedBy } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

let server: TestServer;
const clients = gatewayClients(() => server);
beforeAll(async () => {
  server = await fileServer();
});
afterEach(() => {
  clients.closeAll();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

const rulesPath = (guild: TestGuild) => `/guilds/${guild.id}/auto-moderation/rules`;

const withAppended = (request: () => Promise<ApiResponse>) => appendedBy(server, request);

/** A guild with a member and an alert channel. */
async function setUp(): Promise<{ guild: TestGuild; member: TestUser; alerts: string }> {
  const guild = await createGuild(server);
  const member = await newMember(server, guild);
  const alerts = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'mod-alerts' } })).body.id;
  return { guild, member, alerts };
}

const keywordRule = (over: object = {}) => ({
  name: 'No cats',
  event_type: 1,
  trigger_type: 1,
  trigger_metadata: { keyword_filter: ['cat*'] },
  actions: [{ type: 1 }],
  enabled: true,
  ...over,
});

/** Block with `customMessage`, alert in `alerts`, time the author out for a minute. */
const blockAlertTimeout = (customMessage: string, alerts: string) => [
  { type: 1, metadata: { custom_message: customMessage } },
  { type: 2, metadata: { channel_id: alerts } },
  { type: 3, metadata: { duration_seconds: 60 } },
];

/** A send a blockAlertTimeout rule caught: refused with its message, having appended the three executions, the author's timeout and the alert. */
function expectBlockedSend(response: ApiResponse, appended: RecordedEvent[], customMessage: string) {
  expectError(response, 400, 'AUTOMOD_BLOCKED');
  expect(response.body.message).toBe(`Message was blocked by automatic moderation: ${customMessage}`);
  expect(appended.map((e) => e.type)).toEqual([
    'AutoModerationActionExecuted',
    'AutoModerationActionExecuted',
    'AutoModerationActionExecuted',
    'MemberUpdated',
    'MessageCreated',
  ]);
}

async function createRule(guild: TestGuild, body: object) {
  const response = await server.api('POST', rulesPath(guild), { token: guild.owner.token, body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe('auto-moderation rules', () => {
  it('creates, lists, reads, changes and deletes a rule, each change in the audit log', async () => {
    const { guild } = await setUp();
    const created = await createRule(guild, keywordRule({ exempt_channels: [guild.channelId] }));
    expect(created).toMatchObject({
      guild_id: guild.id,
      name: 'No cats',
      creator_id: guild.owner.id,
      event_type: 1,
      trigger_type: 1,
      trigger_metadata: { keyword_filter: ['cat*'], regex_patterns: [], allow_list: [] },
      actions: [{ type: 1, metadata: {} }],
      enabled: true,
      exempt_roles: [],
      exempt_channels: [guild.channelId],
    });
    const list = await server.api('GET', rulesPath(guild), { token: guild.owner.token });
    expect(list.body).toEqual([created]);
    expect((await server.api('GET', `${rulesPath(guild)}/${created.id}`, { token: guild.owner.token })).body).toEqual(created);

    const patched = await server.api('PATCH', `${rulesPath(guild)}/${created.id}`, {
      token: guild.owner.token,
      body: { name: 'Still no cats', enabled: false },
    });
    expect(patched.body).toMatchObject({ id: created.id, name: 'Still no cats', enabled: false, trigger_metadata: created.trigger_metadata });

    expect((await server.api('DELETE', `${rulesPath(guild)}/${created.id}`, { token: guild.owner.token })).status).toBe(204);
    expectError(await server.api('GET', `${rulesPath(guild)}/${created.id}`, { token: guild.owner.token }), 404, 'UNKNOWN_AUTO_MODERATION_RULE');

    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token });
    const entries = audit.body.audit_log_entries.filter((e: { target_id: string }) => e.target_id === created.id);
    expect(entries.map((e: { action_type: number }) => e.action_type)).toEqual([142, 141, 140]);
    expect(entries[1].changes).toEqual(expect.arrayContaining([{ key: 'name', old_value: 'No cats', new_value: 'Still no cats' }]));
  });

  it('refuses members without MANAGE_GUILD with 403 and appends nothing', async () => {
    const { guild, member } = await setUp();
    const rule = await createRule(guild, keywordRule());
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', rulesPath(guild), { token: member.token, body: keywordRule() }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(server, () => server.api('GET', rulesPath(guild), { token: member.token }), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `${rulesPath(guild)}/${rule.id}`, { token: member.token, body: { enabled: false } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', `${rulesPath(guild)}/${rule.id}`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
  });

  it('holds rules to the widely used API’s limits, naming each field', async () => {
    const { guild, alerts } = await setUp();
    const refused = async (body: object, path: string) => {
      const before = await server.runtime.store.headPosition();
      const response = await server.api('POST', rulesPath(guild), { token: guild.owner.token, body });
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      await expectNothingAppendedSince(server, before);
    };
    await refused(keywordRule({ trigger_metadata: { keyword_filter: ['x'.repeat(61)] } }), 'trigger_metadata.keyword_filter.0');
    await refused(keywordRule({ trigger_metadata: { keyword_filter: Array.from({ length: 1001 }, (_, i) => `w${i}`) } }), 'trigger_metadata.keyword_filter');
    await refused(keywordRule({ trigger_metadata: { regex_patterns: Array.from({ length: 11 }, (_, i) => `r${i}`) } }), 'trigger_metadata.regex_patterns');
    await refused(
      keywordRule({ trigger_metadata: { keyword_filter: ['a'], allow_list: Array.from({ length: 101 }, (_, i) => `a${i}`) } }),
      'trigger_metadata.allow_list',
    );
    await refused(keywordRule({ actions: [{ type: 1, metadata: { custom_message: 'x'.repeat(151) } }] }), 'actions.0.metadata.custom_message');
    await refused(keywordRule({ actions: [{ type: 3, metadata: { duration_seconds: 2419201 } }] }), 'actions.0.metadata.duration_seconds');
    await refused(keywordRule({ actions: [{ type: 2, metadata: { channel_id: '1' } }] }), 'actions.0.metadata.channel_id');
    await refused({ ...keywordRule(), trigger_type: 3, trigger_metadata: {}, actions: [{ type: 3, metadata: { duration_seconds: 60 } }] }, 'actions.0.type');
    await refused({ ...keywordRule(), trigger_type: 4, trigger_metadata: { presets: [] } }, 'trigger_metadata.presets');
    await refused({ ...keywordRule(), trigger_type: 5, trigger_metadata: { mention_total_limit: 51 } }, 'trigger_metadata.mention_total_limit');
    await refused(keywordRule({ exempt_roles: Array.from({ length: 21 }, (_, i) => String(1000 + i)) }), 'exempt_roles');
    // Catastrophic backtracking, and a pattern that does not compile, each at its own path.
    await refused(keywordRule({ trigger_metadata: { regex_patterns: ['^ok$', '(a+)+$'] } }), 'trigger_metadata.regex_patterns.1');
    await refused(keywordRule({ trigger_metadata: { regex_patterns: ['(unclosed'] } }), 'trigger_metadata.regex_patterns.0');

    for (let i = 0; i < 6; i++) await createRule(guild, keywordRule({ name: `k${i}` }));
    await refused(keywordRule(), 'trigger_type');
    await createRule(guild, { ...keywordRule(), trigger_type: 3, trigger_metadata: {}, actions: [{ type: 2, metadata: { channel_id: alerts } }] });
    await refused({ ...keywordRule(), trigger_type: 3, trigger_metadata: {} }, 'trigger_type');
  });

  it('sends AUTO_MODERATION_RULE_* to sessions that manage the guild and asked for the intent', async () => {
    const { guild, member } = await setUp();
    const owner = await clients.session(guild.owner.token, Intent.AUTO_MODERATION_CONFIGURATION);
    const withoutIntent = await clients.session(guild.owner.token, Intent.GUILDS);
    const plain = await clients.session(member.token, Intent.AUTO_MODERATION_CONFIGURATION);
    const rule = await createRule(guild, keywordRule());
    expect((await owner.dispatch('AUTO_MODERATION_RULE_CREATE')).d).toEqual(rule);
    await server.api('DELETE', `${rulesPath(guild)}/${rule.id}`, { token: guild.owner.token });
    expect((await owner.dispatch('AUTO_MODERATION_RULE_DELETE')).d.id).toBe(rule.id);
    expect([...withoutIntent.received, ...plain.received].filter((p) => p.t?.startsWith('AUTO_MODERATION'))).toEqual([]);
  });
});

describe('auto-moderation of sends', () => {
  it('blocks a send with 400 AUTOMOD_BLOCKED, appending only the executions and the alert', async () => {
    const { guild, member, alerts } = await setUp();
    const rule = await createRule(guild, keywordRule({ actions: blockAlertTimeout('Please keep it civil', alerts) }));
    const manager = await clients.session(guild.owner.token, Intent.AUTO_MODERATION_EXECUTION | Intent.MESSAGE_CONTENT | Intent.GUILD_MEMBERS);
    const bystander = await clients.session(member.token, Intent.AUTO_MODERATION_EXECUTION | Intent.MESSAGE_CONTENT);

    const { response, appended } = await withAppended(() =>
      server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: 'look at my Catapult!' } }),
    );
    expectBlockedSend(response, appended, 'Please keep it civil');
    const executions = appended.slice(0, 3).map((e) => (e.data as { execution: Record<string, unknown> }).execution);
    expect(executions.map((e) => (e.action as { type: number }).type)).toEqual([1, 2, 3]);
    expect(executions[2].timeoutUntil).toEqual(expect.any(String));
    // The TIMEOUT action: the author is timed out until then, by no member, and can no longer send.
    expect(appended[3].metadata.actorId).toBeNull();
    const timedOut = await server.api('GET', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token });
    expect(Date.parse(timedOut.body.communication_disabled_until)).toBe(Date.parse(executions[2].timeoutUntil as string));
    const update = await manager.next((p) => p.t === 'GUILD_MEMBER_UPDATE' && p.d.user.id === member.id);
    expect(Date.parse(update.d.communication_disabled_until)).toBe(Date.parse(executions[2].timeoutUntil as string));
    const silenced = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: 'hello?' } });
    expectError(silenced, 403, 'MISSING_ACCESS');
    const alert = appended[4].data as { channelId: string; message: { type: number; embeds: { type: string; fields: { name: string; value: string }[] }[] } };
    expect(alert.channelId).toBe(alerts);

    // The alert, as a client reads it in the alert channel.
    const alertsPage = await server.api('GET', `/channels/${alerts}/messages`, { token: guild.owner.token });
    expect(alertsPage.body[0]).toMatchObject({ type: 24, author: { id: member.id }, content: '' });
    expect(alertsPage.body[0].embeds[0]).toMatchObject({ type: 'auto_moderation_message', description: 'look at my Catapult!' });
    expect(alertsPage.body[0].embeds[0].fields).toEqual(
      expect.arrayContaining([
        { name: 'rule_name', value: 'No cats', inline: true },
        { name: 'keyword', value: 'cat*', inline: true },
        { name: 'keyword_matched_content', value: 'Catapult', inline: true },
      ]),
    );
    // Nothing reached the channel the message was sent to.
    const general = await server.api('GET', `/channels/${guild.channelId}/messages`, { token: guild.owner.token });
    expect(general.body.some((m: { content: string }) => m.content.includes('Catapult'))).toBe(false);

    const execution = await manager.dispatch('AUTO_MODERATION_ACTION_EXECUTION');
    expect(execution.d).toEqual({
      guild_id: guild.id,
      action: { type: 1, metadata: { custom_message: 'Please keep it civil' } },
      rule_id: rule.id,
      rule_trigger_type: 1,
      user_id: member.id,
      channel_id: guild.channelId,
      content: 'look at my Catapult!',
      matched_keyword: 'cat*',
      matched_content: 'Catapult',
    });
    const alertExecution = await manager.next((p) => p.t === 'AUTO_MODERATION_ACTION_EXECUTION' && p.d.action.type === 2);
    expect(alertExecution.d.alert_system_message_id).toBe(alertsPage.body[0].id);
    expect(bystander.received.filter((p) => p.t === 'AUTO_MODERATION_ACTION_EXECUTION')).toEqual([]);

    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token });
    const forMember = audit.body.audit_log_entries.filter((e: { target_id: string }) => e.target_id === member.id);
    expect(forMember.map((e: { action_type: number }) => e.action_type).sort()).toEqual([143, 144, 145]);
    expect(forMember[0]).toMatchObject({
      user_id: member.id,
      options: { auto_moderation_rule_name: 'No cats', auto_moderation_rule_trigger_type: '1', channel_id: guild.channelId },
    });
  });

  it('answers the widely used API’s code 200000 under /api/v10', async () => {
    const { guild, member } = await setUp();
    await createRule(guild, keywordRule());
    const response = await server.call('POST', `/api/v10/channels/${guild.channelId}/messages`, { token: member.token, body: { content: 'cats' } });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 400, code: 200000 });
  });

  it('blocks text that only looks like a keyword or a regex (decomposed, another case, zero-width or soft hyphens), and allows alike', async () => {
    const { guild, member } = await setUp();
    const trigger_metadata = { keyword_filter: ['école', 'straße'], regex_patterns: ['οδος\\d'], allow_list: ['grande école'] };
    await createRule(guild, keywordRule({ trigger_metadata }));
    const send = (content: string) => server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content } });
    for (const content of ['une e\u0301cole', 'UNE ÉCOLE', 'une é\u200bcole', 'une éc\u00adole', 'ｅ\u0301ｃｏｌｅ', 'die STRASSE', 'ΟΔΟΣ1']) {
      expectError(await send(content), 400, 'AUTOMOD_BLOCKED');
    }
    expect((await send('la grande e\u0301cole')).status).toBe(200);
    expect((await send('les écoliers')).status).toBe(200);
  });

  it('lets through what the rules do not match, and exempt roles, channels, managers and disabled rules', async () => {
    const { guild, member, alerts } = await setUp();
    const exempt = await newMember(server, guild);
    const role = await grantRole(server, guild, exempt, 0n, 'trusted');
    const rule = await createRule(
      guild,
      keywordRule({ trigger_metadata: { keyword_filter: ['*cat*'], allow_list: ['location'] }, exempt_roles: [role], exempt_channels: [alerts] }),
    );
    const send = (user: TestUser, content: string, channel = guild.channelId) =>
      server.api('POST', `/channels/${channel}/messages`, { token: user.token, body: { content } });
    expect((await send(member, 'a nice location')).status).toBe(200);
    expect((await send(member, 'dogs only')).status).toBe(200);
    expect((await send(exempt, 'education')).status).toBe(200);
    expect((await send(member, 'education', alerts)).status).toBe(200);
    expect((await send(guild.owner, 'education')).status).toBe(200);
    expectError(await send(member, 'education'), 400, 'AUTOMOD_BLOCKED');
    await server.api('PATCH', `${rulesPath(guild)}/${rule.id}`, { token: guild.owner.token, body: { enabled: false } });
    expect((await send(member, 'education')).status).toBe(200);
  });

  it('flags without blocking: the message is sent and the alert posted; an edit that matches is blocked', async () => {
    const { guild, member, alerts } = await setUp();
    await createRule(guild, {
      ...keywordRule(),
      trigger_type: 5,
      trigger_metadata: { mention_total_limit: 2 },
      actions: [{ type: 2, metadata: { channel_id: alerts } }],
    });
    const mentions = `<@${guild.owner.id}> <@${member.id}> <@&${guild.id}>`;
    const { response, appended } = await withAppended(() =>
      server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: mentions } }),
    );
    expect(response.status).toBe(200);
    expect(appended.map((e) => e.type)).toEqual(['MessageCreated', 'AutoModerationActionExecuted', 'MessageCreated']);
    expect((appended[1].data as { execution: { messageId: string } }).execution.messageId).toBe(response.body.id);

    await createRule(guild, keywordRule());
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: 'hello' } });
    const edit = await withAppended(() =>
      server.api('PATCH', `/channels/${guild.channelId}/messages/${sent.body.id}`, { token: member.token, body: { content: 'hello cats' } }),
    );
    expectError(edit.response, 400, 'AUTOMOD_BLOCKED');
    expect(edit.appended.map((e) => e.type)).toEqual(['AutoModerationActionExecuted']);
    expect((await server.api('GET', `/channels/${guild.channelId}/messages/${sent.body.id}`, { token: member.token })).body.content).toBe('hello');
  });

  it('blocks the third copy of a message within 30 seconds under a SPAM rule, and preset words under KEYWORD_PRESET', async () => {
    const { guild, member } = await setUp();
    await createRule(guild, { ...keywordRule(), trigger_type: 3, trigger_metadata: {} });
    await createRule(guild, { ...keywordRule(), trigger_type: 4, trigger_metadata: { presets: [1], allow_list: ['bullshit'] } });
    const send = (content: string) => server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content } });
    expect((await send('buy now')).status).toBe(200);
    expect((await send('Buy  NOW')).status).toBe(200);
    expectError(await send('buy now'), 400, 'AUTOMOD_BLOCKED');
    expectError(await send('what the fuck'), 400, 'AUTOMOD_BLOCKED');
    expect((await send('total bullshit')).status).toBe(200);
  });
});

describe('mention raid protection', () => {
  const mentionRule = (raidProtection: boolean, over: object = {}) => ({
    ...keywordRule({ name: 'No mention raids' }),
    trigger_type: 5,
    trigger_metadata: { mention_total_limit: 5, mention_raid_protection_enabled: raidProtection },
    ...over,
  });
  const send = (user: TestUser, content: string, channel: string) =>
    server.api('POST', `/channels/${channel}/messages`, { token: user.token, body: { content } });
  /** The sends that make a raid but for its last: `MENTION_RAID.sends - 1` pings of the owner by the members in turn. */
  async function raidUpTo(guild: TestGuild, members: TestUser[], channel = guild.channelId) {
    for (let i = 0; i < MENTION_RAID.sends - 1; i++) {
      const sent = await send(members[i % members.length], `hey <@${guild.owner.id}>`, channel);
      expect(sent.status, sent.text).toBe(200);
    }
  }

  it('blocks mention-bearing sends once several members mention-bomb, with the rule’s error, alert, timeouts and audit entries', async () => {
    const { guild, member, alerts } = await setUp();
    const raiders = [member, await newMember(server, guild), await newMember(server, guild)];
    const rule = await createRule(guild, mentionRule(true, { actions: blockAlertTimeout('Mentions are paused', alerts) }));
    const manager = await clients.session(guild.owner.token, Intent.AUTO_MODERATION_EXECUTION | Intent.MESSAGE_CONTENT);
    await raidUpTo(guild, raiders);

    // The tenth within 30 seconds, by the third author: the raid is seen, and this send is its first caught.
    const ping = `<@${guild.owner.id}> <@${raiders[0].id}>`;
    const { response, appended } = await withAppended(() => send(raiders[0], ping, guild.channelId));
    expectBlockedSend(response, appended, 'Mentions are paused');
    const execution = await manager.dispatch('AUTO_MODERATION_ACTION_EXECUTION');
    expect(execution.d).toMatchObject({ rule_id: rule.id, rule_trigger_type: 5, user_id: raiders[0].id, content: ping, action: { type: 1 } });
    const timedOut = await server.api('GET', `/guilds/${guild.id}/members/${raiders[0].id}`, { token: guild.owner.token });
    expect(timedOut.body.communication_disabled_until).toEqual(expect.any(String));
    const alertsPage = await server.api('GET', `/channels/${alerts}/messages`, { token: guild.owner.token });
    expect(alertsPage.body[0]).toMatchObject({ type: 24, author: { id: raiders[0].id } });
    expect(alertsPage.body[0].embeds[0].fields).toContainEqual({ name: 'rule_name', value: 'No mention raids', inline: true });

    // Held: another member's single mention is caught too (and they are timed out); a message mentioning no one is not.
    expectError(await send(raiders[1], `hi <@${guild.owner.id}>`, guild.channelId), 400, 'AUTOMOD_BLOCKED');
    expect((await send(raiders[2], 'what is happening?', guild.channelId)).status).toBe(200);
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token });
    for (const raider of raiders.slice(0, 2)) {
      const entries = audit.body.audit_log_entries.filter((e: { target_id: string }) => e.target_id === raider.id);
      expect(entries.map((e: { action_type: number }) => e.action_type).sort()).toEqual([143, 144, 145]);
      expect(entries[0].options).toMatchObject({ auto_moderation_rule_name: 'No mention raids', auto_moderation_rule_trigger_type: '5' });
    }

    // Five minutes after the raid was last seen, mentions go through again.
    vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + MENTION_RAID.lockdownMs + 1000);
    expect((await send(raiders[2], `hi <@${guild.owner.id}>`, guild.channelId)).status).toBe(200);
  });

  it('leaves a guild whose rule does not protect against raids alone', async () => {
    const { guild, member } = await setUp();
    const members = [member, await newMember(server, guild), await newMember(server, guild)];
    await createRule(guild, mentionRule(false));
    await raidUpTo(guild, members);
    for (const user of members) expect((await send(user, `hey <@${guild.owner.id}>`, guild.channelId)).status).toBe(200);
  });

  it('neither counts nor catches exempt roles, exempt channels and members who manage the guild', async () => {
    const { guild, member, alerts } = await setUp();
    const trusted = await newMember(server, guild);
    const role = await grantRole(server, guild, trusted, 0n, 'trusted');
    const members = [member, await newMember(server, guild), await newMember(server, guild)];
    await createRule(guild, mentionRule(true, { exempt_roles: [role], exempt_channels: [alerts] }));
    // A raid's worth in the exempt channel, and by the exempt role and the owner: none of it counts.
    await raidUpTo(guild, members, alerts);
    expect((await send(members[0], `hey <@${guild.owner.id}>`, alerts)).status).toBe(200);
    await raidUpTo(guild, [trusted, guild.owner]);
    // So the raid in #general is caught at its own tenth send, not before.
    await raidUpTo(guild, members);
    expectError(await send(members[0], `hey <@${guild.owner.id}>`, guild.channelId), 400, 'AUTOMOD_BLOCKED');
    // And while it is held, they still pass.
    expect((await send(trusted, `hey <@${guild.owner.id}>`, guild.channelId)).status).toBe(200);
    expect((await send(guild.owner, `hey <@${trusted.id}>`, guild.channelId)).status).toBe(200);
    expect((await send(members[1], `hey <@${guild.owner.id}>`, alerts)).status).toBe(200);
  });
});
