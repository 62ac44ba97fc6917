// Reads of the application commands projection.
import type { ReadStore } from '../ports/readStore.js';
import type { ApplicationCommandDoc } from './applicationCommands.js';
import { APPLICATION_COMMANDS } from './collections.js';

export const applicationCommandById = (read: Pick<ReadStore, 'findOne'>, commandId: string): Promise<ApplicationCommandDoc | null> =>
  read.findOne<ApplicationCommandDoc>(APPLICATION_COMMANDS, { _id: commandId });

/** An application's commands of one scope (guildId null: its global commands), in id order. */
export const applicationCommandsOf = (read: Pick<ReadStore, 'find'>, applicationId: string, guildId: string | null): Promise<ApplicationCommandDoc[]> =>
  read.find<ApplicationCommandDoc>(APPLICATION_COMMANDS, { application_id: applicationId, guild_id: guildId }, { sort: { _id: 1 } });

/** The commands of these applications usable in a guild: their global ones and those of that guild, in id order. */
export const applicationCommandsIn = (read: Pick<ReadStore, 'find'>, applicationIds: string[], guildId: string): Promise<ApplicationCommandDoc[]> =>
  read.find<ApplicationCommandDoc>(APPLICATION_COMMANDS, { application_id: { $in: applicationIds }, guild_id: { $in: [null, guildId] } }, { sort: { _id: 1 } });
