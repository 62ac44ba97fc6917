// Application commands: an application's global commands and its commands in a guild, managed by its own bot or by
// its owner. Each scope is one stream (applicationCommandsStream), so names stay unique per type and a bulk overwrite
// lands whole or not at all.
import { applicationDecider } from '../domain/application.js';
import {
  type ApplicationCommandCommand,
  type ApplicationCommandFields,
  type ApplicationCommandInput,
  type CommandScope,
  applicationCommandsDecider,
  commandChanges,
  commandDefinition,
} from '../domain/applicationCommand.js';
import { InteractionContextType, mayUseCommand } from '../domain/commandInteraction.js';
import { forbidden, notFound } from '../domain/errors.js';
import type { ApplicationCommandDoc } from '../projections/applicationCommands.js';
import { applicationCommandsIn } from '../projections/applicationCommands.queries.js';
import type { ApplicationDoc } from '../projections/applications.js';
import { applicationsOfBots } from '../projections/applications.queries.js';
import { guildAccess, loadGuild } from './access.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { applicationCommandsStream, applicationStream } from './streams.js';

/**
 * Refuses unless the actor may manage the scope's commands: the application's bot or its owner (UNKNOWN_APPLICATION
 * for an application that does not exist, MISSING_ACCESS for anyone else). In a guild, the guild must exist and the
 * bot must be in it: the widely used API asks for the applications.commands grant there, and here joining the guild
 * is how an application is let in.
 */
export async function requireCommandManager(deps: Uses<'commands' | 'clock'>, scope: CommandScope, actorId: string): Promise<void> {
  const { state: application } = await deps.commands.load(applicationStream(scope.applicationId), applicationDecider);
  if (!application.exists) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
  if (actorId !== application.ownerId && actorId !== application.botUserId) {
    throw forbidden('MISSING_ACCESS', "Only the application's bot and its owner can manage its commands");
  }
  if (scope.guildId === null) return;
  const guild = await loadGuild(deps, scope.guildId);
  if (!application.botUserId || !guild.members.has(application.botUserId)) {
    throw forbidden('MISSING_ACCESS', "The application's bot is not a member of this guild");
  }
}

type Deps = Uses<'commands' | 'ids' | 'clock' | 'settle'>;

async function run(deps: Deps, meta: ActorMeta, scope: CommandScope, command: ApplicationCommandCommand) {
  await requireCommandManager(deps, scope, meta.actorId);
  const handled = await deps.commands.handle(
    applicationCommandsStream(scope.applicationId, scope.guildId),
    applicationCommandsDecider,
    command,
    metadata(meta, deps.clock),
  );
  await deps.settle(handled.position);
  return handled;
}

/**
 * POST: creates the command, or, as the widely used API, overwrites the scope's command of the same name and type.
 * `created` tells which (201 or 200).
 */
export async function createApplicationCommand(
  deps: Deps,
  meta: ActorMeta,
  scope: CommandScope,
  input: ApplicationCommandInput,
): Promise<{ command: ApplicationCommandFields; created: boolean }> {
  const definition = commandDefinition(input);
  const { state, events } = await run(deps, meta, scope, { type: 'UpsertApplicationCommand', scope, id: deps.ids.next(), definition });
  const command = state.commands.find((c) => c.name === definition.name && c.type === definition.type)!;
  return { command, created: events.some((e) => e.type === 'ApplicationCommandCreated') };
}

/** PATCH: only the fields sent change; the version moves only when something did. */
export async function updateApplicationCommand(
  deps: Deps,
  meta: ActorMeta,
  scope: CommandScope,
  commandId: string,
  input: Partial<ApplicationCommandInput>,
): Promise<ApplicationCommandFields> {
  const { state } = await run(deps, meta, scope, { type: 'UpdateApplicationCommand', scope, commandId, changes: commandChanges(input) });
  return state.commands.find((c) => c.id === commandId)!;
}

export async function deleteApplicationCommand(deps: Deps, meta: ActorMeta, scope: CommandScope, commandId: string): Promise<void> {
  await run(deps, meta, scope, { type: 'DeleteApplicationCommand', scope, commandId });
}

/** PUT: the scope's commands become exactly these, in the order given; the others are deleted. */
export async function overwriteApplicationCommands(
  deps: Deps,
  meta: ActorMeta,
  scope: CommandScope,
  inputs: (ApplicationCommandInput & { id?: string })[],
): Promise<ApplicationCommandFields[]> {
  const definitions = inputs.map(({ id, ...input }) => ({ ...commandDefinition(input), ...(id !== undefined ? { id } : {}) }));
  const newIds = inputs.map(() => deps.ids.next());
  const { state } = await run(deps, meta, scope, { type: 'OverwriteApplicationCommands', scope, definitions, newIds });
  return definitions.map((d) => state.commands.find((c) => c.name === d.name && c.type === d.type)!);
}

/**
 * A member's command index of a guild (the widely used client's application-command-index): the applications whose
 * bots are members, and of their global and guild commands those the member may use there: usable in a guild
 * (contexts), with USE_APPLICATION_COMMANDS and the command's default_member_permissions at the guild's level.
 * 404 UNKNOWN_GUILD for anyone outside the guild.
 */
export async function memberCommandIndex(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  guildId: string,
  userId: string,
): Promise<{ applications: ApplicationDoc[]; commands: ApplicationCommandDoc[] }> {
  const { guild, permissions } = await guildAccess(deps, guildId, userId);
  const applications = await applicationsOfBots(deps.readStore, [...guild.members.keys()]);
  const all = applications.length
    ? await applicationCommandsIn(
        deps.readStore,
        applications.map((a) => a._id),
        guildId,
      )
    : [];
  const commands = all.filter(
    (c) => (!c.contexts || c.contexts.includes(InteractionContextType.GUILD)) && mayUseCommand(permissions, c.default_member_permissions),
  );
  return { applications: applications.filter((a) => commands.some((c) => c.application_id === a._id)), commands };
}
