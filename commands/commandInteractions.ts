// Interactions for a bot on the gateway: a member invokes one of an application's commands (POST /interactions), or
// uses a component of a message the application's bot posted (POST /interactions/click, through clickComponent).
// Each is checked whole before it is recorded as InteractionCreated on its own stream, with a fresh token that the
// bot answers with (commands/interactionResponses.ts); the gateway derives the bot's INTERACTION_CREATE from the event.
import { randomBytes } from 'node:crypto';
import { applicationDecider } from '../domain/application.js';
import {
  type BotInteraction,
  type GivenOption,
  INTERACTION_TOKEN_TTL_MS,
  InteractionType,
  type InvokedCommand,
  type NamedEntity,
  type UsedComponent,
  assertCommandAvailable,
  assertInvocable,
  assertMayUseCommand,
  botInteractionDecider,
  checkCommandOptions,
  unknownCommand,
} from '../domain/commandInteraction.js';
import { type FieldError, badRequest, forbidden, invalidForm } from '../domain/errors.js';
import { channelPermissions } from '../domain/guildState.js';
import type { MessageFields } from '../domain/message.js';
import { sha256 } from '../ports/secrets.js';
import { applicationCommandById } from '../projections/applicationCommands.queries.js';
import { userById, usersByIds } from '../projections/users.queries.js';
import { DM_PERMISSIONS, type MessageChannelAccess, canViewChannel, messageChannelAccess } from './access.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { applicationStream, commandInteractionStream } from './streams.js';

export type InteractionDeps = Uses<'commands' | 'readStore' | 'ids' | 'clock' | 'secrets' | 'settle'>;

/** An application and the bot user that receives its interactions. */
export interface ApplicationBot {
  applicationId: string;
  botUserId: string;
}

/** POST /interactions: the widely used API's application command invocation (type 2). */
export interface InvocationInput {
  application_id: string;
  guild_id?: string;
  channel_id: string;
  data: { id: string; name: string; type?: number; options?: GivenOption[] };
}

const TOKEN_PREFIX = 'interaction:';

/** A new token: like the widely used API's, it names its interaction (so it opens its stream) and carries 256 random bits. */
function newInteractionToken(interactionId: string): string {
  return Buffer.from(`${TOKEN_PREFIX}${interactionId}:${randomBytes(32).toString('base64url')}`).toString('base64url');
}

/** The interaction a token names, or null for a token that names none (a webhook's own token, say). */
export function interactionIdOfToken(token: string): string | null {
  const match = /^interaction:(\d{1,20}):/.exec(Buffer.from(token, 'base64url').toString('latin1'));
  return match ? match[1] : null;
}

async function applicationBot(deps: Uses<'commands'>, applicationId: string): Promise<ApplicationBot> {
  const { state } = await deps.commands.load(applicationStream(applicationId), applicationDecider);
  if (!state.exists) throw unknownCommand();
  if (!state.botUserId) throw forbidden('MISSING_ACCESS', 'The application has no bot to receive its interactions');
  return { applicationId, botUserId: state.botUserId };
}

/**
 * The application a message's components answer to: the one whose interaction the message responds to, or the one
 * whose bot posted it. Null for messages of people and of webhooks (their clicks go to the webhook's interaction_url).
 */
export async function messageApplication(deps: Uses<'commands' | 'readStore'>, message: MessageFields): Promise<ApplicationBot | null> {
  if (message.application_id) return applicationBot(deps, message.application_id);
  if (message.webhook_id || !message.author.bot) return null;
  const author = await userById(deps.readStore, message.author.id);
  return author?.application_id ? applicationBot(deps, author.application_id) : null;
}

/**
 * The bot's permissions where the interaction happens; it must be there: a member of the guild, or a participant of
 * the DM (a command in a DM is used in a DM with the bot). 403 MISSING_ACCESS otherwise.
 */
function botPermissions(access: MessageChannelAccess, bot: ApplicationBot): bigint {
  // Interactions in threads are not built yet (the gateway and the answers look for the channel among the guild's): an
  // honest refusal, before anything is appended, not an interaction no bot would ever receive.
  if (access.thread) throw badRequest('CANNOT_EXECUTE_ON_CHANNEL_TYPE', 'Interactions cannot be used in threads yet');
  if (access.guild) {
    if (!access.guild.members.has(bot.botUserId)) throw forbidden('MISSING_ACCESS', "The application's bot is not in this guild");
    return channelPermissions(access.guild, bot.botUserId, access.guild.channels.get(access.channelId)!);
  }
  if (!access.dm!.recipient_ids.includes(bot.botUserId)) throw forbidden('MISSING_ACCESS', "The application's bot is not in this DM");
  return DM_PERMISSIONS;
}

/**
 * The users, roles and channels the options name, each required to exist where the command is used (channels also to
 * be visible to the invoker and of an accepted type); the problems are reported together at their options' paths.
 */
async function resolveNamed(
  deps: Uses<'readStore'>,
  access: MessageChannelAccess,
  invokerId: string,
  named: NamedEntity[],
): Promise<InvokedCommand['resolved']> {
  const guild = access.guild;
  const userIds = named.filter((n) => n.kind === 'user' || n.kind === 'mentionable').map((n) => n.id);
  const users = new Set(userIds.length ? (await usersByIds(deps.readStore, userIds)).map((u) => u._id) : []);
  const resolved = { users: new Set<string>(), roles: new Set<string>(), channels: new Set<string>() };
  const errors: FieldError[] = [];
  for (const { kind, id, path, channelTypes } of named) {
    const isRole = guild?.roles.has(id) ?? false;
    if (kind === 'role' || (kind === 'mentionable' && isRole)) {
      if (isRole) resolved.roles.add(id);
      else errors.push({ path, message: 'Unknown role' });
    } else if (kind === 'user' || kind === 'mentionable') {
      if (users.has(id)) resolved.users.add(id);
      else errors.push({ path, message: kind === 'user' ? 'Unknown user' : 'Unknown user or role' });
    } else {
      const channel = guild?.channels.get(id);
      if (!channel || !canViewChannel(guild!, invokerId, id)) errors.push({ path, message: 'Unknown channel' });
      else if (channelTypes && !channelTypes.includes(channel.type)) errors.push({ path, message: `Must be a channel of type ${channelTypes.join(', ')}` });
      else resolved.channels.add(id);
    }
  }
  if (errors.length) throw invalidForm(errors);
  return { users: [...resolved.users], roles: [...resolved.roles], channels: [...resolved.channels] };
}

/** Records the interaction with a new token (sealed, and as its digest) for the bot to answer within 15 minutes. */
async function createInteraction(
  deps: InteractionDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  bot: ApplicationBot,
  appPermissions: bigint,
  what: Pick<BotInteraction, 'type' | 'command' | 'component'>,
): Promise<string> {
  const invoker = (await userById(deps.readStore, meta.actorId))!;
  const id = deps.ids.next();
  const token = newInteractionToken(id);
  const now = deps.clock.now();
  const interaction: BotInteraction = {
    id,
    ...bot,
    ...what,
    guildId: access.guildId,
    channelId: access.channelId,
    userId: meta.actorId,
    memberPermissions: access.guild ? access.permissions.toString() : null,
    appPermissions: appPermissions.toString(),
    locale: invoker.locale,
    guildLocale: access.guild?.settings.preferred_locale ?? null,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + INTERACTION_TOKEN_TTL_MS).toISOString(),
  };
  const command = { type: 'CreateInteraction' as const, interaction, tokenHash: sha256(token), sealedToken: deps.secrets.seal(token) };
  const { position } = await deps.commands.handle(commandInteractionStream(id), botInteractionDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  return id;
}

/**
 * A member invokes a command: the command exists and may be used in this channel (its guild's or a global one; in a
 * DM with the bot only global ones with dm_permission), the invoker sees the channel and holds USE_APPLICATION_COMMANDS
 * and the command's default_member_permissions, the application's bot is there, and the options are the command's.
 */
export async function invokeCommand(deps: InteractionDeps, meta: ActorMeta, input: InvocationInput): Promise<string> {
  const access = await messageChannelAccess(deps, input.channel_id, meta.actorId);
  if (input.guild_id !== undefined && input.guild_id !== access.guildId) throw invalidForm([{ path: 'guild_id', message: 'Must be the guild of the channel' }]);
  const command = await applicationCommandById(deps.readStore, input.data.id);
  if (!command) throw unknownCommand();
  assertCommandAvailable(command, input.application_id, access.guildId);
  const mismatches: FieldError[] = [
    ...(input.data.name !== command.name ? [{ path: 'data.name', message: `Must be the command's name, ${command.name}` }] : []),
    ...(input.data.type !== undefined && input.data.type !== command.type
      ? [{ path: 'data.type', message: `Must be the command's type, ${command.type}` }]
      : []),
  ];
  if (mismatches.length) throw invalidForm(mismatches);
  assertInvocable(command.type);
  const bot = await applicationBot(deps, input.application_id);
  const appPermissions = botPermissions(access, bot);
  if (access.guild) assertMayUseCommand(access.permissions, command.default_member_permissions);
  const { options, named } = checkCommandOptions(command.options, input.data.options);
  const resolved = await resolveNamed(deps, access, meta.actorId, named);
  const invoked: InvokedCommand = { id: command._id, name: command.name, type: command.type, guild_id: command.guild_id, options, resolved };
  return createInteraction(deps, meta, access, bot, appPermissions, { type: InteractionType.APPLICATION_COMMAND, command: invoked, component: null });
}

/** A click on a component of a message of `bot`'s application, already checked against the message, for its bot. */
export async function useComponent(
  deps: InteractionDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  bot: ApplicationBot,
  component: UsedComponent,
): Promise<string> {
  return createInteraction(deps, meta, access, bot, botPermissions(access, bot), { type: InteractionType.MESSAGE_COMPONENT, command: null, component });
}
