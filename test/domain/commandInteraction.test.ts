// Given/when/then on the interactions of bots (created once, one initial response by the right token within 15
// minutes, updates only for components), on where and by whom a command may be used, on the check of an invocation's
// options against the command's, and on the fields of response messages.
import { describe, expect, it } from 'vitest';
import type { ApplicationCommandOption } from '../../domain/applicationCommand.js';
import {
  type BotInteraction,
  type GivenRow,
  type InteractionCreated,
  type InteractionFailed,
  type InteractionResponded,
  type Modal,
  type ModalSubmitted,
  assertCommandAvailable,
  assertMayUseCommand,
  assertTargetFits,
  botInteractionDecider,
  checkCommandOptions,
  checkModalSubmit,
  choiceErrors,
  requireLiveToken,
  responseFields,
} from '../../domain/commandInteraction.js';
import { DomainError } from '../../domain/errors.js';
import { Permission } from '../../domain/permissions.js';
import { given } from '../support/given.js';
import { messageFields } from '../support/messageFields.js';

const CREATED_AT = '2025-06-01T12:00:00.000Z';
const EXPIRES_AT = '2025-06-01T12:15:00.000Z';
const at = (iso: string) => Date.parse(iso);
const TOKEN = 'a'.repeat(64);
const WRONG = 'b'.repeat(64);
const user = { id: '7', username: 'mia', discriminator: '0001', global_name: null, avatar: null, bot: false, public_flags: 0 };
const botUser = { ...user, id: '8', username: 'robo', bot: true };

const commandInteraction: BotInteraction = {
  id: '900',
  applicationId: '50',
  botUserId: '8',
  type: 2,
  guildId: '1',
  channelId: '2',
  userId: '7',
  command: {
    id: '60',
    name: 'config',
    type: 1,
    guild_id: '1',
    options: [{ name: 'set', type: 1, options: [{ name: 'key', type: 3, value: 'x' }] }],
    resolved: { users: [], roles: [], channels: [] },
  },
  component: null,
  memberPermissions: '2048',
  appPermissions: '3072',
  locale: 'en-US',
  guildLocale: 'en-US',
  createdAt: CREATED_AT,
  expiresAt: EXPIRES_AT,
};
const buttonMessage = messageFields({ id: '300', channel_id: '2', guild_id: '1', author: botUser, components: [] });
const componentInteraction: BotInteraction = {
  ...commandInteraction,
  id: '901',
  type: 3,
  command: null,
  component: { custom_id: 'go', component_type: 2, message: buttonMessage },
};

const created = (interaction: BotInteraction): InteractionCreated => ({
  type: 'InteractionCreated',
  data: { interaction, tokenHash: TOKEN, sealedToken: 'sealed' },
});
const responded = (
  interaction: BotInteraction,
  responseType: InteractionResponded['data']['responseType'],
  messageId: string,
  respondedAt = '2025-06-01T12:00:01.000Z',
): InteractionResponded => ({
  type: 'InteractionResponded',
  data: { interactionId: interaction.id, applicationId: '50', guildId: '1', channelId: '2', responseType, messageId, respondedAt },
});
const respond = (responseType: 4 | 5 | 6 | 7, messageId: string | null, when = '2025-06-01T12:00:01.000Z', tokenHash = TOKEN) =>
  ({ type: 'Respond', tokenHash, responseType, messageId, at: at(when) }) as const;

describe('the interaction of a bot', () => {
  it('is created once', () => {
    given(botInteractionDecider, [])
      .when({ type: 'CreateInteraction', interaction: commandInteraction, tokenHash: TOKEN, sealedToken: 'sealed' })
      .then([created(commandInteraction)]);
    given(botInteractionDecider, [created(commandInteraction)])
      .when({ type: 'CreateInteraction', interaction: commandInteraction, tokenHash: TOKEN, sealedToken: 'sealed' })
      .thenRefuses('INTERACTION_EXISTS');
  });

  it('takes one initial response, with the message it names', () => {
    given(botInteractionDecider, [created(commandInteraction)])
      .when(respond(4, '400'))
      .then([responded(commandInteraction, 4, '400')]);
    given(botInteractionDecider, [created(commandInteraction)])
      .when(respond(5, '401'))
      .then([responded(commandInteraction, 5, '401')]);
    given(botInteractionDecider, [created(commandInteraction), responded(commandInteraction, 5, '401')])
      .when(respond(4, '402'))
      .thenRefuses('INTERACTION_ALREADY_ACKNOWLEDGED');
  });

  it('answers an update with the component’s message; a command has no message to update', () => {
    given(botInteractionDecider, [created(componentInteraction)])
      .when(respond(7, null))
      .then([responded(componentInteraction, 7, '300')]);
    given(botInteractionDecider, [created(componentInteraction)])
      .when(respond(6, null))
      .then([responded(componentInteraction, 6, '300')]);
    given(botInteractionDecider, [created(commandInteraction)])
      .when(respond(6, null))
      .thenRefuses('INVALID_FORM_BODY');
    given(botInteractionDecider, [created(commandInteraction)])
      .when(respond(4, null))
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('refuses another token, an unknown interaction, and a first response past its 3 seconds', () => {
    given(botInteractionDecider, [created(commandInteraction)])
      .when(respond(4, '400', undefined, WRONG))
      .thenRefuses('INVALID_WEBHOOK_TOKEN');
    given(botInteractionDecider, []).when(respond(4, '400')).thenRefuses('UNKNOWN_INTERACTION');
    given(botInteractionDecider, [created(commandInteraction)])
      .when(respond(4, '400', '2025-06-01T12:00:03.001Z'))
      .thenRefuses('UNKNOWN_INTERACTION');
    given(botInteractionDecider, [created(commandInteraction)])
      .when(respond(4, '400', '2025-06-01T12:00:03.000Z'))
      .then([responded(commandInteraction, 4, '400', '2025-06-01T12:00:03.000Z')]);
  });

  it('delivered to an endpoint, is bounded by its request instead, and closed for good by a failure', () => {
    const viaEndpoint: InteractionCreated = { ...created(commandInteraction), data: { ...created(commandInteraction).data, delivery: 'endpoint' } };
    given(botInteractionDecider, [viaEndpoint])
      .when(respond(4, '400', '2025-06-01T12:00:04.000Z'))
      .then([responded(commandInteraction, 4, '400', '2025-06-01T12:00:04.000Z')]);
    const failed: InteractionFailed = {
      type: 'InteractionFailed',
      data: { interactionId: '900', applicationId: '50', userId: '7', channelId: '2', reason: 'endpoint_status' },
    };
    given(botInteractionDecider, [viaEndpoint]).when({ type: 'Fail', reason: 'endpoint_status' }).then([failed]);
    given(botInteractionDecider, [viaEndpoint, failed]).when(respond(4, '400')).thenRefuses('UNKNOWN_INTERACTION');
    given(botInteractionDecider, [viaEndpoint, failed]).when({ type: 'Fail', reason: 'endpoint_timeout' }).then([]);
    // Acknowledged first: the failure that comes after is no failure.
    given(botInteractionDecider, [viaEndpoint, responded(commandInteraction, 4, '400')])
      .when({ type: 'Fail', reason: 'endpoint_timeout' })
      .then([]);
  });

  it('keeps a gateway interaction that was acknowledged in time answering past its 3 seconds: a second response is refused as such', () => {
    given(botInteractionDecider, [created(commandInteraction), responded(commandInteraction, 5, '401')])
      .when(respond(4, '402', '2025-06-01T12:10:00.000Z'))
      .thenRefuses('INTERACTION_ALREADY_ACKNOWLEDGED');
  });

  it('opens the webhook routes for its application’s id and token, for 15 minutes', () => {
    const state = botInteractionDecider.evolve(botInteractionDecider.initialState(), created(commandInteraction));
    expect(requireLiveToken(state, '50', TOKEN, at(EXPIRES_AT))).toEqual(commandInteraction);
    for (const [applicationId, tokenHash, when] of [
      ['51', TOKEN, CREATED_AT],
      ['50', WRONG, CREATED_AT],
      ['50', TOKEN, '2025-06-01T12:15:00.001Z'],
    ]) {
      expect(() => requireLiveToken(state, applicationId, tokenHash, at(when))).toThrow(expect.objectContaining({ code: 'INVALID_WEBHOOK_TOKEN' }));
    }
  });
});

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
};

describe('where and by whom a command is used', () => {
  const scope = { application_id: '50', guild_id: null, dm_permission: true, contexts: null };

  it('a guild command in its guild, a global one anywhere, in DMs only with dm_permission', () => {
    expect(() => assertCommandAvailable(scope, '50', '1')).not.toThrow();
    expect(() => assertCommandAvailable(scope, '50', null)).not.toThrow();
    expect(() => assertCommandAvailable({ ...scope, guild_id: '1' }, '50', '1')).not.toThrow();
    for (const [command, applicationId, guildId] of [
      [{ ...scope, guild_id: '1' }, '50', '2'],
      [{ ...scope, guild_id: '1' }, '50', null],
      [{ ...scope, dm_permission: false }, '50', null],
      [{ ...scope, contexts: [1] }, '50', '1'],
      [scope, '51', '1'],
    ] as const) {
      expect(refusal(() => assertCommandAvailable(command, applicationId, guildId)).code).toBe('UNKNOWN_APPLICATION_COMMAND');
    }
  });

  it('takes a target for user and message commands only, and no options with it', () => {
    expect(() => assertTargetFits(1, undefined, [{ name: 'x' }])).not.toThrow();
    expect(() => assertTargetFits(2, '5', undefined)).not.toThrow();
    expect(() => assertTargetFits(3, '5', [])).not.toThrow();
    expect(refusal(() => assertTargetFits(1, '5', undefined)).errors).toEqual([
      { path: 'data.target_id', message: 'Only user and message commands take a target' },
    ]);
    expect(refusal(() => assertTargetFits(2, undefined, [{ name: 'x' }])).errors).toEqual([
      { path: 'data.target_id', message: 'This field is required' },
      { path: 'data.options', message: 'Context menu commands take no options' },
    ]);
  });

  it('needs USE_APPLICATION_COMMANDS and every bit of default_member_permissions; "0" only for administrators', () => {
    const use = Permission.USE_APPLICATION_COMMANDS;
    expect(() => assertMayUseCommand(use, null)).not.toThrow();
    expect(() => assertMayUseCommand(use | Permission.KICK_MEMBERS, String(Permission.KICK_MEMBERS))).not.toThrow();
    expect(() => assertMayUseCommand(use | Permission.ADMINISTRATOR, '0')).not.toThrow();
    for (const [permissions, required] of [
      [0n, null],
      [use, String(Permission.KICK_MEMBERS)],
      [use | Permission.KICK_MEMBERS, String(Permission.KICK_MEMBERS | Permission.BAN_MEMBERS)],
      [use | Permission.MANAGE_GUILD, '0'],
    ] as const) {
      expect(refusal(() => assertMayUseCommand(permissions, required)).code).toBe('MISSING_PERMISSIONS');
    }
  });
});

describe('the options of an invocation', () => {
  const declared: ApplicationCommandOption[] = [
    { type: 3, name: 'text', description: 'd', required: true, min_length: 2, max_length: 4 },
    { type: 4, name: 'count', description: 'd', min_value: 1, max_value: 3 },
    { type: 10, name: 'ratio', description: 'd', choices: [{ name: 'half', value: 0.5 }] },
    { type: 5, name: 'flag', description: 'd' },
    { type: 6, name: 'who', description: 'd' },
    { type: 7, name: 'where', description: 'd', channel_types: [0] },
  ];
  const paths = (given: unknown[]) => refusal(() => checkCommandOptions(declared, given as never)).errors!.map((e) => e.path);

  it('keeps the options as declared, and lists the ids they name', () => {
    const given = [
      { name: 'text', type: 3, value: 'abc' },
      { name: 'count', value: 2 },
      { name: 'ratio', value: 0.5 },
      { name: 'flag', value: false },
      { name: 'who', value: '12' },
      { name: 'where', value: '13' },
    ];
    expect(checkCommandOptions(declared, given)).toEqual({
      options: [
        { name: 'text', type: 3, value: 'abc' },
        { name: 'count', type: 4, value: 2 },
        { name: 'ratio', type: 10, value: 0.5 },
        { name: 'flag', type: 5, value: false },
        { name: 'who', type: 6, value: '12' },
        { name: 'where', type: 7, value: '13' },
      ],
      named: [
        { kind: 'user', id: '12', path: 'data.options.4.value' },
        { kind: 'channel', id: '13', path: 'data.options.5.value', channelTypes: [0] },
      ],
    });
  });

  it('reports every problem at its path', () => {
    expect(paths([])).toEqual(['data.options.text']);
    expect(paths([{ name: 'text', value: 'a' }])).toEqual(['data.options.0.value']);
    expect(paths([{ name: 'text', value: 'abcde' }])).toEqual(['data.options.0.value']);
    expect(
      paths([
        { name: 'text', value: 'ab' },
        { name: 'count', value: 0 },
        { name: 'ratio', value: 0.25 },
        { name: 'flag', value: 1 },
      ]),
    ).toEqual(['data.options.1.value', 'data.options.2.value', 'data.options.3.value']);
    expect(
      paths([
        { name: 'text', value: 'ab' },
        { name: 'count', value: 2.5 },
        { name: 'who', value: 'bob' },
      ]),
    ).toEqual(['data.options.1.value', 'data.options.2.value']);
    expect(
      paths([
        { name: 'text', value: 'ab' },
        { name: 'text', value: 'cd' },
        { name: 'other', value: 1 },
      ]),
    ).toEqual(['data.options.1.name', 'data.options.2.name']);
    expect(paths([{ name: 'text', type: 4, value: 'ab' }])).toEqual(['data.options.0.type']);
    expect(paths([{ name: 'text', value: 'ab', options: [] }])).toEqual(['data.options.0.options']);
  });

  it('takes exactly one subcommand, in a group if the command has groups', () => {
    const tree: ApplicationCommandOption[] = [
      {
        type: 2,
        name: 'set',
        description: 'd',
        options: [{ type: 1, name: 'key', description: 'd', options: [{ type: 3, name: 'value', description: 'd', required: true }] }],
      },
      { type: 1, name: 'show', description: 'd' },
    ];
    expect(checkCommandOptions(tree, [{ name: 'set', options: [{ name: 'key', options: [{ name: 'value', value: 'v' }] }] }]).options).toEqual([
      { name: 'set', type: 2, options: [{ name: 'key', type: 1, options: [{ name: 'value', type: 3, value: 'v' }] }] },
    ]);
    const problems = (given: unknown[]) => refusal(() => checkCommandOptions(tree, given as never)).errors!.map((e) => e.path);
    expect(problems([])).toEqual(['data.options']);
    expect(problems([{ name: 'show' }, { name: 'show' }])).toEqual(['data.options']);
    expect(problems([{ name: 'hide' }])).toEqual(['data.options.0.name']);
    expect(problems([{ name: 'show', value: 'x' }])).toEqual(['data.options.0.value']);
    expect(problems([{ name: 'set', options: [{ name: 'key', options: [] }] }])).toEqual(['data.options.0.options.0.options.value']);
  });
});

describe('the fields of a response message', () => {
  it('a slash command’s: type 20, its name with the subcommands, the interaction summary', () => {
    expect(responseFields(commandInteraction, user, null)).toEqual({
      type: 20,
      application_id: '50',
      interaction_metadata: { id: '900', type: 2, user, authorizing_integration_owners: { '0': '1' }, name: 'config set', command_type: 1 },
      interaction: { id: '900', type: 2, name: 'config set', user },
    });
    expect(responseFields(commandInteraction, user, '400').interaction_metadata.original_response_message_id).toBe('400');
  });

  it('a component’s: a reply to the component’s message', () => {
    expect(responseFields(componentInteraction, user, null)).toEqual({
      type: 19,
      application_id: '50',
      interaction_metadata: { id: '901', type: 3, user, authorizing_integration_owners: { '0': '1' }, interacted_message_id: '300' },
      message_reference: { message_id: '300', channel_id: '2', guild_id: '1' },
    });
  });
});

describe('modals, their submits and autocomplete choices', () => {
  const modal: Modal = {
    custom_id: 'form',
    title: 'Form',
    components: [
      { type: 1, components: [{ type: 4, custom_id: 'name', style: 1, label: 'Name', min_length: 2, max_length: 10 }] },
      { type: 1, components: [{ type: 4, custom_id: 'note', style: 2, label: 'Note', required: false }] },
    ],
  };
  const showModal = { type: 'Respond', tokenHash: TOKEN, responseType: 9, messageId: null, modal, at: at('2025-06-01T12:00:01.000Z') } as const;
  const shown: InteractionResponded = {
    type: 'InteractionResponded',
    data: { ...responded(commandInteraction, 9, '0').data, messageId: null, userId: '7', modal },
  };
  const row = (custom_id: string, value: string) => ({ type: 1, components: [{ type: 4, custom_id, value }] });
  const submit = (rows: GivenRow[], userId = '7', when = '2025-06-01T12:01:00.000Z') =>
    ({ type: 'SubmitModal', userId, submitId: '950', rows, at: at(when) }) as const;

  it('a modal answers a command, for its user, and makes no message', () => {
    given(botInteractionDecider, [created(commandInteraction)])
      .when(showModal)
      .then([shown]);
  });

  it('a modal is refused with its problems at their paths: duplicate ids, min above max, a value too long', () => {
    const [first] = modal.components;
    const input = first.components[0];
    const bad: Modal = {
      ...modal,
      components: [first, { type: 1, components: [{ ...input, min_length: 11, value: 'x'.repeat(11) }] }],
    };
    expect(() => botInteractionDecider.decide({ ...showModal, modal: bad }, evolved([created(commandInteraction)]))).toThrow(
      expect.objectContaining({
        errors: [
          { path: 'data.components.1.components.0.custom_id', message: expect.any(String) },
          { path: 'data.components.1.components.0.min_length', message: expect.any(String) },
          { path: 'data.components.1.components.0.value', message: expect.any(String) },
        ],
      }),
    );
  });

  it('a modal never answers a modal submit or an autocomplete; choices answer only an autocomplete', () => {
    const submitted: BotInteraction = {
      ...commandInteraction,
      type: 5,
      command: null,
      modal: { custom_id: 'form', components: [], shownBy: '1', message: null },
    };
    given(botInteractionDecider, [created(submitted)])
      .when(showModal)
      .thenRefuses('INVALID_FORM_BODY');
    const autocomplete: BotInteraction = { ...commandInteraction, type: 4 };
    given(botInteractionDecider, [created(autocomplete)])
      .when(showModal)
      .thenRefuses('INVALID_FORM_BODY');
    given(botInteractionDecider, [created(commandInteraction)])
      .when({ type: 'Respond', tokenHash: TOKEN, responseType: 8, messageId: null, choices: [], at: at('2025-06-01T12:00:01.000Z') })
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('a submit is taken once, from the user it was shown to, within 15 minutes, and fits the modal', () => {
    given(botInteractionDecider, [created(commandInteraction), shown])
      .when(submit([row('name', 'Mia')]))
      .then([{ type: 'ModalSubmitted', data: { interactionId: '900', submitId: '950', userId: '7', submittedAt: '2025-06-01T12:01:00.000Z' } }]);
    const submittedOnce: ModalSubmitted = { type: 'ModalSubmitted', data: { interactionId: '900', submitId: '950', userId: '7', submittedAt: CREATED_AT } };
    given(botInteractionDecider, [created(commandInteraction), shown, submittedOnce])
      .when(submit([row('name', 'Mia')]))
      .thenRefuses('INTERACTION_ALREADY_ACKNOWLEDGED');
    given(botInteractionDecider, [created(commandInteraction), shown])
      .when(submit([row('name', 'Mia')], '70'))
      .thenRefuses('UNKNOWN_INTERACTION');
    given(botInteractionDecider, [created(commandInteraction), shown])
      .when(submit([row('name', 'Mia')], '7', '2025-06-01T12:15:01.000Z'))
      .thenRefuses('UNKNOWN_INTERACTION');
    given(botInteractionDecider, [created(commandInteraction)])
      .when(submit([row('name', 'Mia')]))
      .thenRefuses('UNKNOWN_INTERACTION');
    given(botInteractionDecider, [created(commandInteraction), shown])
      .when(submit([row('name', 'M')]))
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('checks the values against the modal and gives them back in its rows, an optional one not sent as ""', () => {
    expect(checkModalSubmit(modal, [row('name', 'Mia')])).toEqual([row('name', 'Mia'), row('note', '')]);
    const problems = (rows: GivenRow[]) => {
      try {
        checkModalSubmit(modal, rows);
        return [];
      } catch (error) {
        return (error as DomainError).errors!.map((e) => e.path);
      }
    };
    expect(problems([row('note', 'x')])).toEqual(['data.components']);
    expect(problems([row('name', '')])).toEqual(['data.components.0.components.0.value']);
    expect(problems([row('name', 'x'.repeat(11))])).toEqual(['data.components.0.components.0.value']);
    expect(problems([row('name', 'Mia'), row('name', 'Max')])).toEqual(['data.components.1.components.0.custom_id']);
    expect(problems([row('name', 'Mia'), row('colour', 'red')])).toEqual(['data.components.1.components.0.custom_id']);
  });

  it('choices are of the focused option’s type', () => {
    const typing = (type: number): BotInteraction => ({
      ...commandInteraction,
      type: 4,
      command: { ...commandInteraction.command!, options: [{ name: 'n', type, value: '1', focused: true }] },
    });
    expect(choiceErrors(typing(4), [{ name: 'a', value: 1 }])).toEqual([]);
    expect(choiceErrors(typing(4), [{ name: 'a', value: 1.5 }]).map((e) => e.path)).toEqual(['data.choices.0.value']);
    expect(choiceErrors(typing(10), [{ name: 'a', value: 1.5 }])).toEqual([]);
    expect(choiceErrors(typing(3), [{ name: 'a', value: 1 }]).map((e) => e.path)).toEqual(['data.choices.0.value']);
  });

  it('an autocomplete’s options are partial with exactly one focused, autocompleted option', () => {
    const declared: ApplicationCommandOption[] = [
      { type: 3, name: 'name', description: 'n', required: true, autocomplete: true },
      { type: 4, name: 'count', description: 'c' },
    ];
    expect(checkCommandOptions(declared, [{ name: 'name', value: 'ap', focused: true }], 'data.options', 'autocomplete').options).toEqual([
      { name: 'name', type: 3, value: 'ap', focused: true },
    ]);
    expect(() => checkCommandOptions(declared, [{ name: 'count', value: 1 }], 'data.options', 'autocomplete')).toThrow(DomainError);
    expect(() => checkCommandOptions(declared, [{ name: 'count', value: '1', focused: true }], 'data.options', 'autocomplete')).toThrow(DomainError);
    expect(() => checkCommandOptions(declared, [{ name: 'name', value: 'ap', focused: true }])).toThrow(DomainError);
  });
});

/** The state a history leaves. */
const evolved = (events: Parameters<typeof botInteractionDecider.evolve>[1][]) =>
  events.reduce(botInteractionDecider.evolve, botInteractionDecider.initialState());
