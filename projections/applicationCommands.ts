// Read model of application commands: one document per live command, global ones with guild_id null. A guild's
// commands leave with the guild.
import type { ApplicationCommandFields } from '../domain/applicationCommand.js';
import type { WriteOp } from '../ports/readStore.js';
import { APPLICATION_COMMANDS } from './collections.js';
import { projection } from './projection.js';

export interface ApplicationCommandDoc extends Omit<ApplicationCommandFields, 'id'> {
  _id: string;
  [key: string]: unknown;
}

export function applicationCommandDoc({ id, ...fields }: ApplicationCommandFields): ApplicationCommandDoc {
  return { _id: id, ...fields };
}

const replace = (command: ApplicationCommandFields): WriteOp => ({
  replaceOne: { collection: APPLICATION_COMMANDS, filter: { _id: command.id }, replacement: applicationCommandDoc(command), upsert: true },
});

export const applicationCommandsProjection = projection({
  name: 'applicationCommands',
  handles: ['ApplicationCommandCreated', 'ApplicationCommandUpdated', 'ApplicationCommandDeleted', 'GuildDeleted'],
  collections: [APPLICATION_COMMANDS],
  indexes: [{ collection: APPLICATION_COMMANDS, keys: { application_id: 1, guild_id: 1 } }],
  project(e) {
    switch (e.type) {
      case 'ApplicationCommandCreated':
        return [replace(e.data.command)];
      case 'ApplicationCommandUpdated':
        return [replace(e.data.command)];
      case 'ApplicationCommandDeleted':
        return [{ deleteOne: { collection: APPLICATION_COMMANDS, filter: { _id: e.data.command.id } } }];
      case 'GuildDeleted':
        return [{ deleteMany: { collection: APPLICATION_COMMANDS, filter: { guild_id: e.data.guildId } } }];
    }
  },
});
