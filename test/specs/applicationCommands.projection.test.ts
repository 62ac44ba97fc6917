// Projection spec of the application commands read model: events → one document per live command, and the lists the
// queries give per application and scope.
import { describe, expect, it } from 'vitest';
import type { ApplicationCommandEvent, ApplicationCommandFields } from '../../domain/applicationCommand.js';
import type { GuildDeleted } from '../../domain/guild.js';
import { applicationCommandsProjection } from '../../projections/applicationCommands.js';
import { applicationCommandById, applicationCommandsOf } from '../../projections/applicationCommands.queries.js';
import { APPLICATION_COMMANDS } from '../../projections/collections.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { applicationCommandFields } from '../support/applicationCommandFields.js';
import { givenProjections, recorded } from './support.js';

const commands = givenProjections(applicationCommandsProjection);

const fields = (id: string, over: Partial<ApplicationCommandFields> = {}) =>
  applicationCommandFields(id, { name: `c${id}`, options: [{ type: 3, name: 'text', description: 'Text', required: true }], ...over });
const created = (over: Partial<ApplicationCommandFields> & { id: string }): ApplicationCommandEvent => ({
  type: 'ApplicationCommandCreated',
  data: { command: fields(over.id, over) },
});
const updated = (over: Partial<ApplicationCommandFields> & { id: string }): ApplicationCommandEvent => ({
  type: 'ApplicationCommandUpdated',
  data: { command: fields(over.id, over) },
});
const deleted = (id: string): ApplicationCommandEvent => ({ type: 'ApplicationCommandDeleted', data: { command: fields(id) } });
const guildDeleted: GuildDeleted = { type: 'GuildDeleted', data: { guildId: '50', vanityCode: null } };

describe('application commands projection', () => {
  it('makes a created command a document of its fields keyed by its id', () => {
    const { id: _, ...rest } = fields('100');
    return commands()
      .when(created({ id: '100' }))
      .then(APPLICATION_COMMANDS, '100', { _id: '100', ...rest });
  });

  it('replaces the document with the updated command', () =>
    commands(created({ id: '100' }))
      .when(updated({ id: '100', name: 'renamed', options: [], version: '2' }))
      .then(APPLICATION_COMMANDS, '100', { name: 'renamed', options: [], version: '2' }));

  it('removes a deleted command', () =>
    commands(created({ id: '100' }))
      .when(deleted('100'))
      .then(APPLICATION_COMMANDS, '100', null));

  it("removes a guild's commands with the guild, and nobody else's", async () => {
    await commands(created({ id: '100', guild_id: '50' }))
      .when(guildDeleted)
      .then(APPLICATION_COMMANDS, '100', null);
    await commands(created({ id: '101' }), created({ id: '102', guild_id: '51' }))
      .when(guildDeleted)
      .thenFind(APPLICATION_COMMANDS, {}, [{ _id: '101' }, { _id: '102' }]);
  });

  it('is idempotent when an event is projected twice', () =>
    commands(created({ id: '100' }), updated({ id: '100', version: '2' }))
      .when(updated({ id: '100', version: '2' }))
      .then(APPLICATION_COMMANDS, '100', { version: '2' }));
});

describe('application commands queries', () => {
  it("list one scope of one application in id order: global (guild_id null) apart from each guild's", async () => {
    const store = new SqliteReadStore(':memory:');
    try {
      await store.ensureIndexes(applicationCommandsProjection.indexes);
      const history = [created({ id: '102' }), created({ id: '100' }), created({ id: '101', guild_id: '50' }), created({ id: '103', application_id: '8' })];
      await store.bulkWrite(history.flatMap((e, i) => applicationCommandsProjection.project(recorded(e, i))));
      expect((await applicationCommandsOf(store, '7', null)).map((c) => c._id)).toEqual(['100', '102']);
      expect((await applicationCommandsOf(store, '7', '50')).map((c) => c._id)).toEqual(['101']);
      expect((await applicationCommandsOf(store, '8', null)).map((c) => c._id)).toEqual(['103']);
      expect(await applicationCommandById(store, '101')).toMatchObject({ _id: '101', guild_id: '50', application_id: '7' });
      expect(await applicationCommandById(store, '999')).toBeNull();
    } finally {
      await store.close();
    }
  });
});
