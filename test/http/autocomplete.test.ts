// Autocomplete over the real HTTPS API and gateway: options registered with `autocomplete: true` (never beside
// choices); a member's client sends the options typed so far with one focused (POST /interactions type 4, not
// rate-limited like invocations); the bot receives APPLICATION_COMMAND_AUTOCOMPLETE and answers only with choices
// (response 8), which reach the typing user's sessions alone as APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE. No message
// is ever made; every refusal appends nothing.
import { describe, expect, it } from 'vitest';
import { fileGateway } from '../support/gateway.js';
import { type ApiResponse, type TestBot, createBot, expectNothingAppendedSince } from '../support/server.js';
import { type InteractionWorld, callback, history, interactionWorld, invoked } from './commandInteractionSupport.js';
import { createGuild, expectError, expectRefusedWithoutEvents, join } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

const COMMANDS = [
  {
    name: 'fruit',
    description: 'Pick a fruit',
    options: [
      { type: 3, name: 'name', description: 'Which', required: true, autocomplete: true },
      { type: 4, name: 'count', description: 'How many', autocomplete: true },
      { type: 10, name: 'weight', description: 'In kg', autocomplete: true },
      { type: 3, name: 'note', description: 'Anything else' },
    ],
  },
];
const world = (): Promise<InteractionWorld> => interactionWorld(server, clients, COMMANDS);

/** The member's client asking for choices: the options typed so far. */
function autocomplete(w: InteractionWorld, options: unknown[], over: { type?: number } = {}) {
  const command = w.commands.fruit;
  return server.api('POST', '/interactions', {
    token: w.member.token,
    body: {
      type: over.type ?? 4,
      application_id: w.bot.applicationId,
      guild_id: w.guild.id,
      channel_id: w.guild.channelId,
      data: { id: command.id, name: command.name, type: 1, options },
      nonce: '42',
    },
  });
}

/** The member's autocomplete, accepted; resolves with the bot's interaction. */
async function asked(w: InteractionWorld, options: unknown[]) {
  const seen = new Set(w.botSession.received.filter((p) => p.t === 'INTERACTION_CREATE').map((p) => p.d.id));
  const response = await autocomplete(w, options);
  expect(response.status).toBe(204);
  return (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 4 && !seen.has(p.d.id))).d;
}

const paths = (response: ApiResponse) => (response.body.errors as { path: string }[]).map((e) => e.path).sort();

describe('autocomplete', () => {
  it('the bot gets the partial options with the focused one, and its choices reach the typing user alone; no message is made', async () => {
    const w = await world();
    const before = await history(server, w, w.member);
    const d = await asked(w, [
      { type: 4, name: 'count', value: 2 },
      { type: 3, name: 'name', value: 'ap', focused: true },
    ]);
    expect(d).toMatchObject({
      type: 4,
      member: { user: { id: w.member.id } },
      data: {
        id: w.commands.fruit.id,
        name: 'fruit',
        options: [
          { name: 'count', type: 4, value: 2 },
          { name: 'name', type: 3, value: 'ap', focused: true },
        ],
      },
    });
    const choices = [
      { name: 'Apple', value: 'apple' },
      { name: 'Apricot', value: 'apricot' },
    ];
    const answered = await server.api('POST', `/interactions/${d.id}/${d.token}/callback`, { body: { type: 8, data: { choices } } });
    expect(answered.status).toBe(204);
    const result = await w.memberSession.next((p) => p.t === 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE');
    expect(result.d).toEqual({ id: d.id, application_id: w.bot.applicationId, choices, nonce: '42' });
    const marker = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.member.token, body: { content: 'marker' } });
    for (const session of [w.otherSession, w.botSession]) {
      await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === marker.body.id);
      expect(session.received.some((p) => p.t === 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE')).toBe(false);
    }
    expect((await history(server, w, w.member)).slice(1)).toEqual(before);
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 8, data: { choices } }), 400, 'INTERACTION_ALREADY_ACKNOWLEDGED');
  });

  it('numbers are typed as text; choices must be of the focused option’s type, at most 25', async () => {
    const w = await world();
    const d = await asked(w, [{ type: 4, name: 'count', value: '1', focused: true }]);
    expect(d.data.options).toEqual([{ name: 'count', type: 4, value: '1', focused: true }]);
    const refused = async (data: object, expected: string[]) => {
      const before = await server.runtime.store.headPosition();
      const response = await callback(server, d, { type: 8, data });
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(paths(response)).toEqual(expected);
      await expectNothingAppendedSince(server, before);
    };
    await refused({ choices: [{ name: 'One', value: '1' }] }, ['data.choices.0.value']);
    await refused({ choices: [{ name: 'Half', value: 0.5 }] }, ['data.choices.0.value']);
    await refused({ choices: Array.from({ length: 26 }, (_, i) => ({ name: `n${i}`, value: i })) }, ['data.choices']);
    await refused({ choices: [{ name: '', value: 1 }] }, ['data.choices.0.name']);
    await refused({}, ['data.choices']);
    expect((await callback(server, d, { type: 8, data: { choices: [{ name: 'Ten', value: 10 }] } })).status).toBe(204);
    const number = await asked(w, [{ type: 10, name: 'weight', value: 1.5, focused: true }]);
    expect((await callback(server, number, { type: 8, data: { choices: [{ name: '1.5 kg', value: 1.5 }] } })).status).toBe(204);
  });

  it('is answered only with choices: a message, a deferral or a modal is refused', async () => {
    const w = await world();
    const d = await asked(w, [{ type: 3, name: 'name', value: '', focused: true }]);
    for (const body of [
      { type: 4, data: { content: 'Hi' } },
      { type: 5 },
      { type: 9, data: { custom_id: 'm', title: 'M', components: [{ type: 1, components: [{ type: 4, custom_id: 'a', style: 1, label: 'A' }] }] } },
    ]) {
      const before = await server.runtime.store.headPosition();
      const response = await callback(server, d, body);
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(paths(response)).toEqual(['type']);
      await expectNothingAppendedSince(server, before);
    }
  });

  it('needs exactly one focused option, declared with autocomplete, appending nothing', async () => {
    const w = await world();
    const refused = async (options: unknown[], expected: string[]) => {
      const before = await server.runtime.store.headPosition();
      const response = await autocomplete(w, options);
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(paths(response)).toEqual(expected);
      await expectNothingAppendedSince(server, before);
    };
    await refused([{ type: 3, name: 'name', value: 'a' }], ['data.options']);
    await refused(
      [
        { type: 3, name: 'name', value: 'a', focused: true },
        { type: 4, name: 'count', value: '1', focused: true },
      ],
      ['data.options'],
    );
    await refused([{ type: 3, name: 'note', value: 'a', focused: true }], ['data.options.0.value']);
    await refused([{ type: 3, name: 'colour', value: 'a', focused: true }], ['data.options.0.name']);
    await refused([{ type: 3, name: 'name', value: 'x'.repeat(6001), focused: true }], ['data.options.0.value']);
    // An invocation has no focused option.
    const invocation = await autocomplete(w, [{ type: 3, name: 'name', value: 'apple', focused: true }], { type: 2 });
    expectError(invocation, 400, 'INVALID_FORM_BODY');
    expect(paths(invocation)).toEqual(['data.options.0.focused']);
  });

  it('is not rate-limited like invocations: 65 in a minute all go through, and invocations keep their own bucket', async () => {
    const w = await world();
    for (let i = 0; i < 65; i++) {
      const response = await autocomplete(w, [{ type: 3, name: 'name', value: `a${i}`, focused: true }]);
      expect(response.status, `request ${i}`).toBe(204);
      expect(response.headers['x-ratelimit-bucket']).toBeUndefined();
    }
    const d = await invoked(server, w, 'fruit', [{ type: 3, name: 'name', value: 'apple' }]);
    expect(d.type).toBe(2);
    // Choices answer only autocomplete.
    const choices = await callback(server, d, { type: 8, data: { choices: [] } });
    expectError(choices, 400, 'INVALID_FORM_BODY');
    expect(paths(choices)).toEqual(['type']);
  });
});

describe('registering autocompleted options', () => {
  it('refuses autocomplete beside choices, at the option’s path, in global and guild bulk overwrites and single creates', async () => {
    const guild = await createGuild(server);
    const bot = (await join(server, guild, await createBot(server), 'Bot')) as TestBot;
    const both = {
      name: 'pick',
      description: 'Pick',
      options: [{ type: 3, name: 'which', description: 'Which', autocomplete: true, choices: [{ name: 'A', value: 'a' }] }],
    };
    const as = { token: bot.token, scheme: 'Bot' as const };
    for (const [method, path, body, expected] of [
      ['PUT', `/applications/${bot.applicationId}/commands`, [both], '0.options.0.autocomplete'],
      ['PUT', `/applications/${bot.applicationId}/guilds/${guild.id}/commands`, [both], '0.options.0.autocomplete'],
      ['POST', `/applications/${bot.applicationId}/commands`, both, 'options.0.autocomplete'],
      ['POST', `/applications/${bot.applicationId}/guilds/${guild.id}/commands`, both, 'options.0.autocomplete'],
    ] as const) {
      const before = await server.runtime.store.headPosition();
      const response = await server.api(method, path, { ...as, body });
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(paths(response)).toEqual([expected]);
      await expectNothingAppendedSince(server, before);
    }
  });
});
