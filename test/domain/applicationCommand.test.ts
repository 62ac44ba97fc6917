// Given/when/then on the application commands of one scope: create or overwrite by name and type, change, delete, bulk
// overwrite, the per-type limits, and the spec's rules for names, descriptions and options.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ApplicationCommandDefinition,
  type ApplicationCommandEvent,
  type ApplicationCommandFields,
  type ApplicationCommandOption,
  applicationCommandsDecider,
  commandChanges,
  commandDefinition,
  definitionErrors,
} from '../../domain/applicationCommand.js';
import { DomainError } from '../../domain/errors.js';
import { applicationCommandFields, commandDefinitionFields } from '../support/applicationCommandFields.js';
import { given } from '../support/given.js';

const scope = { applicationId: '7', guildId: null };

const definition = commandDefinitionFields;
const command = applicationCommandFields;
const created = (fields: ApplicationCommandFields): ApplicationCommandEvent => ({ type: 'ApplicationCommandCreated', data: { command: fields } });
const updated = (fields: ApplicationCommandFields): ApplicationCommandEvent => ({ type: 'ApplicationCommandUpdated', data: { command: fields } });
const deleted = (fields: ApplicationCommandFields): ApplicationCommandEvent => ({ type: 'ApplicationCommandDeleted', data: { command: fields } });

const upsert = (id: string, over: Partial<ApplicationCommandDefinition> = {}) => ({
  type: 'UpsertApplicationCommand' as const,
  scope,
  id,
  definition: definition(over),
});
/** The error paths of a refused definition. */
const pathsOf = (error: DomainError) => error.errors?.map((e) => e.path);

describe('create (POST)', () => {
  it('creates a command at version 1 in the scope', () =>
    given(applicationCommandsDecider, [])
      .when(upsert('100'))
      .then([created(command('100'))]));

  it('overwrites the command of the same name and type instead, keeping its id and counting the version up', () =>
    given(applicationCommandsDecider, [created(command('100', { version: '4' }))])
      .when(upsert('101', { description: 'Changed' }))
      .then([updated(command('100', { description: 'Changed', version: '5' }))]));

  it('records nothing when the overwrite changes nothing', () =>
    given(applicationCommandsDecider, [created(command('100'))])
      .when(upsert('101'))
      .then([]));

  it('creates a command of the same name but another type', () =>
    given(applicationCommandsDecider, [created(command('100', { name: 'Ping' }))])
      .when(upsert('101', { name: 'Ping', type: 2, description: '' }))
      .then([created(command('101', { name: 'Ping', type: 2, description: '' }))]));

  it('refuses a sixth USER command, but not an overwrite of one of the five', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((name, i) => created(command(String(200 + i), { name, type: 2, description: '' })));
    given(applicationCommandsDecider, five)
      .when(upsert('300', { name: 'f', type: 2, description: '' }))
      .thenRefuses('MAX_APPLICATION_COMMANDS');
    given(applicationCommandsDecider, five)
      .when(upsert('300', { name: 'e', type: 2, description: '', nsfw: true }))
      .then([updated(command('204', { name: 'e', type: 2, description: '', nsfw: true, version: '2' }))]);
  });

  it('refuses a 101st slash command', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => created(command(String(1000 + i), { name: `c${i}` })));
    given(applicationCommandsDecider, hundred)
      .when(upsert('2000', { name: 'one-more' }))
      .thenRefuses('MAX_APPLICATION_COMMANDS');
  });
});

describe('change (PATCH) and delete', () => {
  const patch = (commandId: string, changes: Partial<ApplicationCommandDefinition>) => ({
    type: 'UpdateApplicationCommand' as const,
    scope,
    commandId,
    changes,
  });

  it('changes only the fields given', () =>
    given(applicationCommandsDecider, [created(command('100', { nsfw: true, default_member_permissions: '8' }))])
      .when(patch('100', { name: 'pong' }))
      .then([updated(command('100', { name: 'pong', nsfw: true, default_member_permissions: '8', version: '2' }))]));

  it('records nothing when nothing changes, and refuses an unknown or deleted command', () => {
    given(applicationCommandsDecider, [created(command('100'))])
      .when(patch('100', { description: 'Pong' }))
      .then([]);
    given(applicationCommandsDecider, [created(command('100'))])
      .when(patch('999', { name: 'x' }))
      .thenRefuses('UNKNOWN_APPLICATION_COMMAND');
    given(applicationCommandsDecider, [created(command('100')), deleted(command('100'))])
      .when(patch('100', { name: 'x' }))
      .thenRefuses('UNKNOWN_APPLICATION_COMMAND');
  });

  it('refuses the name of another command of the type, and a change of type', () => {
    const history = [created(command('100')), created(command('101', { name: 'echo' }))];
    expect(
      pathsOf(
        given(applicationCommandsDecider, history)
          .when(patch('101', { name: 'ping' }))
          .thenRefuses('INVALID_FORM_BODY'),
      ),
    ).toEqual(['name']);
    expect(
      pathsOf(
        given(applicationCommandsDecider, history)
          .when(patch('101', { type: 2 }))
          .thenRefuses('INVALID_FORM_BODY'),
      ),
    ).toEqual(['type']);
  });

  it('checks the command as it would become', () => {
    const user = created(command('100', { name: 'Report', type: 2, description: '' }));
    expect(
      pathsOf(
        given(applicationCommandsDecider, [user])
          .when(patch('100', { description: 'no' }))
          .thenRefuses('INVALID_FORM_BODY'),
      ),
    ).toEqual(['description']);
  });

  it('deletes a command of the scope, once', () => {
    given(applicationCommandsDecider, [created(command('100'))])
      .when({ type: 'DeleteApplicationCommand', scope, commandId: '100' })
      .then([deleted(command('100'))]);
    given(applicationCommandsDecider, [created(command('100')), deleted(command('100'))])
      .when({ type: 'DeleteApplicationCommand', scope, commandId: '100' })
      .thenRefuses('UNKNOWN_APPLICATION_COMMAND');
  });
});

describe('bulk overwrite (PUT)', () => {
  const overwrite = (definitions: (ApplicationCommandDefinition & { id?: string })[]) => ({
    type: 'OverwriteApplicationCommands' as const,
    scope,
    definitions,
    newIds: definitions.map((_, i) => String(900 + i)),
  });
  const history = [created(command('100')), created(command('101', { name: 'echo' })), created(command('102', { name: 'Report', type: 2, description: '' }))];

  it('deletes what is not listed first, then keeps by name and type (changed or not) and creates the rest', () =>
    given(applicationCommandsDecider, history)
      .when(overwrite([definition({ name: 'new' }), definition({ name: 'echo', description: 'Echoes' }), definition()]))
      .then([
        deleted(command('102', { name: 'Report', type: 2, description: '' })),
        created(command('900', { name: 'new' })),
        updated(command('101', { name: 'echo', description: 'Echoes', version: '2' })),
      ]));

  it('keeps the id of a command an entry names by id, so a rename is an update', () =>
    given(applicationCommandsDecider, [created(command('100'))])
      .when(overwrite([{ ...definition({ name: 'pong' }), id: '100' }]))
      .then([updated(command('100', { name: 'pong', version: '2' }))]));

  it('lets an entry named by id take the name of a command no entry keeps', () =>
    given(applicationCommandsDecider, history.slice(0, 2))
      .when(overwrite([{ ...definition({ name: 'echo' }), id: '100' }]))
      .then([deleted(command('101', { name: 'echo' })), updated(command('100', { name: 'echo', version: '2' }))]));

  it('empties the scope with an empty list', () =>
    given(applicationCommandsDecider, history.slice(0, 2))
      .when(overwrite([]))
      .then([deleted(command('100')), deleted(command('101', { name: 'echo' }))]));

  it('refuses names repeated per type, unknown ids and type changes at the entry’s path', () => {
    const refused = (definitions: Parameters<typeof overwrite>[0]) =>
      pathsOf(given(applicationCommandsDecider, history).when(overwrite(definitions)).thenRefuses('INVALID_FORM_BODY'));
    expect(refused([definition(), definition({ name: 'echo' }), definition()])).toEqual(['2.name']);
    expect(refused([{ ...definition(), id: '555' }])).toEqual(['0.id']);
    expect(refused([{ ...definition({ name: 'x', type: 2, description: '' }), id: '100' }])).toEqual(['0.type']);
    expect(refused([definition(), definition({ name: 'Bad Name' })])).toEqual(['1.name']);
    // The same name in two types is two commands.
    given(applicationCommandsDecider, [])
      .when(overwrite([definition({ name: 'Ping', type: 2, description: '' }), definition({ name: 'Ping', type: 3, description: '' })]))
      .then([created(command('900', { name: 'Ping', type: 2, description: '' })), created(command('901', { name: 'Ping', type: 3, description: '' }))]);
  });

  it('refuses more commands of a type than the limit', () =>
    given(applicationCommandsDecider, [])
      .when(overwrite(Array.from({ length: 6 }, (_, i) => definition({ name: `M${i}`, type: 3, description: '' }))))
      .thenRefuses('MAX_APPLICATION_COMMANDS'));
});

describe('the spec’s rules for a definition', () => {
  const opt = (over: Partial<ApplicationCommandOption>): ApplicationCommandOption => ({ type: 3, name: 'text', description: 'Text', ...over });
  const errorsOf = (over: Partial<ApplicationCommandDefinition>) => definitionErrors(definition(over)).map((e) => e.path);

  it('takes slash-command names of letters, numbers, - and _ in any script, lowercase, 1-32 long', () => {
    for (const name of ['ping', 'échō', 'δοκιμή', 'テスト', 'नमस्ते', 'สวัสดี', 'a-b_c', '1'.repeat(32)]) expect(errorsOf({ name })).toEqual([]);
    for (const name of ['Ping', 'ΔΟΚΙΜΉ', 'two words', 'semi;colon', '', '1'.repeat(33), 'emoji🙂']) expect(errorsOf({ name })).toEqual(['name']);
  });

  it('takes context-menu names with spaces and capitals, and no description or options', () => {
    expect(errorsOf({ name: 'Report This User', type: 2, description: '' })).toEqual([]);
    expect(errorsOf({ name: 'Quote', type: 3, description: 'text', options: [opt({})] })).toEqual(['description', 'options']);
  });

  it('wants a 1-100 character description on slash commands', () => {
    expect(errorsOf({ description: '' })).toEqual(['description']);
    expect(errorsOf({ description: 'x'.repeat(101) })).toEqual(['description']);
  });

  it('nests options only in subcommands and groups, groups holding only subcommands', () => {
    const sub = (options?: ApplicationCommandOption[]) => opt({ type: 1, name: 'sub', options });
    expect(errorsOf({ options: [opt({ type: 2, name: 'group', options: [sub([opt({})])] })] })).toEqual([]);
    expect(errorsOf({ options: [opt({ type: 2, name: 'group', options: [opt({})] })] })).toEqual(['options.0.options.0.type']);
    expect(errorsOf({ options: [sub([sub()])] })).toEqual(['options.0.options.0.type']);
    expect(errorsOf({ options: [opt({ options: [opt({})] })] })).toEqual(['options.0.options']);
    expect(errorsOf({ options: [sub(), opt({})] })).toEqual(['options.1.type']);
  });

  it('wants required options first and option names unique per level', () => {
    expect(errorsOf({ options: [opt({ required: true }), opt({ name: 'b' })] })).toEqual([]);
    expect(errorsOf({ options: [opt({}), opt({ name: 'b', required: true })] })).toEqual(['options.1.required']);
    expect(errorsOf({ options: [opt({}), opt({ type: 4 })] })).toEqual(['options.1.name']);
    expect(errorsOf({ options: [opt({ name: 'Upper' })] })).toEqual(['options.0.name']);
  });

  it('allows choices, bounds and channel types only on the option types they belong to, with values of that type', () => {
    expect(errorsOf({ options: [opt({ type: 5, choices: [{ name: 'a', value: 'a' }] })] })).toEqual(['options.0.choices']);
    expect(
      errorsOf({
        options: [
          opt({
            type: 4,
            choices: [
              { name: 'a', value: 2 },
              { name: 'b', value: 2.5 },
            ],
          }),
        ],
      }),
    ).toEqual(['options.0.choices.1.value']);
    expect(
      errorsOf({
        options: [
          opt({
            type: 10,
            choices: [
              { name: 'a', value: 2.5 },
              { name: 'b', value: '1' },
            ],
          }),
        ],
      }),
    ).toEqual(['options.0.choices.1.value']);
    expect(errorsOf({ options: [opt({ choices: [{ name: 'a', value: 1 }] })] })).toEqual(['options.0.choices.0.value']);
    expect(errorsOf({ options: [opt({ choices: [{ name: 'a', value: 'a' }], autocomplete: true })] })).toEqual(['options.0.autocomplete']);
    expect(errorsOf({ options: [opt({ type: 5, autocomplete: true })] })).toEqual(['options.0.autocomplete']);
    expect(errorsOf({ options: [opt({ min_value: 1, max_value: 2 })] })).toEqual(['options.0.min_value', 'options.0.max_value']);
    expect(errorsOf({ options: [opt({ type: 4, min_value: 1.5 })] })).toEqual(['options.0.min_value']);
    expect(errorsOf({ options: [opt({ type: 10, min_value: 3, max_value: 2 })] })).toEqual(['options.0.min_value']);
    expect(errorsOf({ options: [opt({ type: 4, min_length: 1 })] })).toEqual(['options.0.min_length']);
    expect(errorsOf({ options: [opt({ min_length: 5, max_length: 4 })] })).toEqual(['options.0.min_length']);
    expect(errorsOf({ options: [opt({ channel_types: [0] })] })).toEqual(['options.0.channel_types']);
    expect(errorsOf({ options: [opt({ type: 7, channel_types: [0] })] })).toEqual([]);
  });
});

describe('definitions from requests', () => {
  it('fill what was not sent with its default, keep permission bits that name permissions, and answer required only when true', () =>
    expect(
      commandDefinition({
        name: 'ping',
        description: 'd',
        default_member_permissions: String(2n ** 60n + 8n),
        options: [{ type: 3, name: 'a', description: 'b', required: false, choices: [{ value: 'x', name: 'X' }] }],
      }),
    ).toEqual(
      definition({
        description: 'd',
        default_member_permissions: '8',
        options: [{ type: 3, name: 'a', description: 'b', choices: [{ name: 'X', value: 'x' }] }],
      }),
    ));

  it('take only the fields a PATCH sent; a null dm_permission is the default', () =>
    expect(commandChanges({ description: 'x', dm_permission: null, default_member_permissions: null })).toEqual({
      description: 'x',
      dm_permission: true,
      default_member_permissions: null,
    }));
});

describe('any definition the request schemas let through', () => {
  const name = fc.constantFrom('a', 'b', 'Up', 'two words', 'é', 'x'.repeat(32));
  const value = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.double({ min: -5, max: 5, noNaN: true }));
  const leaf = fc.record(
    {
      type: fc.integer({ min: 1, max: 10 }) as fc.Arbitrary<ApplicationCommandOption['type']>,
      name,
      description: fc.constantFrom('d', 'x'.repeat(100)),
      required: fc.boolean(),
      choices: fc.array(fc.record({ name: fc.constant('c'), value }), { maxLength: 3 }),
      min_value: value.filter((v): v is number => typeof v === 'number'),
      max_value: value.filter((v): v is number => typeof v === 'number'),
      min_length: fc.integer({ min: 0, max: 6000 }),
      max_length: fc.integer({ min: 1, max: 6000 }),
      channel_types: fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 2 }),
      autocomplete: fc.boolean(),
    },
    { requiredKeys: ['type', 'name', 'description'] },
  );
  const option: fc.Arbitrary<ApplicationCommandOption> = fc.letrec<{ option: ApplicationCommandOption }>((tie) => ({
    option: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.tuple(leaf, fc.array(tie('option'), { maxLength: 3 })).map(([o, options]) => ({ ...o, options })),
    ),
  })).option;
  const anyDefinition = fc.record({
    name,
    type: fc.constantFrom(1, 2, 3) as fc.Arbitrary<1 | 2 | 3>,
    description: fc.constantFrom('', 'd'),
    options: fc.array(option, { maxLength: 4 }),
  });

  it('are decided or refused with a DomainError; what is accepted follows the nesting rules', () =>
    fc.assert(
      fc.property(fc.array(anyDefinition, { maxLength: 4 }), (inputs) => {
        const definitions = inputs.map((input) => commandDefinition(input));
        let events: ApplicationCommandEvent[];
        try {
          events = applicationCommandsDecider.decide(
            { type: 'OverwriteApplicationCommands', scope, definitions, newIds: definitions.map((_, i) => String(900 + i)) },
            { commands: [] },
          );
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          return;
        }
        const depth = (options: ApplicationCommandOption[]): number => Math.max(0, ...options.map((o) => 1 + depth(o.options ?? [])));
        for (const event of events) expect(depth(event.data.command.options)).toBeLessThanOrEqual(3);
      }),
    ));
});
