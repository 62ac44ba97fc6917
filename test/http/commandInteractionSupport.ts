// What the command interaction tests share: a guild with a member and an application's bot (each with a live gateway
// session), the application's commands registered through the command routes, and invocations as the member's client
// sends them.
import { expect } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import type { GatewayClient, Payload, gatewayClients } from '../support/gateway.js';
import { type ApiResponse, type TestBot, type TestServer, type TestUser, createBot } from '../support/server.js';
import { type TestGuild, createGuild, join, newMember } from './guildSupport.js';

export interface InteractionWorld {
  guild: TestGuild;
  member: TestUser;
  /** Another member, to show what the member's ephemeral answers hide. */
  other: TestUser;
  bot: TestBot;
  botSession: GatewayClient;
  memberSession: GatewayClient;
  otherSession: GatewayClient;
  /** The registered commands by name. */
  commands: Record<string, { id: string; name: string; type: number; guild_id?: string }>;
}

const BOT_INTENTS = Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT | Intent.DIRECT_MESSAGES;
const MEMBER_INTENTS = Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT;

/** A guild where the member and the bot are, the bot's application's commands registered in it (guild commands). */
export async function interactionWorld(
  server: Pick<TestServer, 'api'>,
  clients: ReturnType<typeof gatewayClients>,
  commands: object[],
): Promise<InteractionWorld> {
  const guild = await createGuild(server);
  const [member, other] = [await newMember(server, guild), await newMember(server, guild)];
  const bot = (await join(server, guild, await createBot(server), 'Bot')) as TestBot;
  const registered = await server.api('PUT', `/applications/${bot.applicationId}/guilds/${guild.id}/commands`, {
    token: bot.token,
    scheme: 'Bot',
    body: commands,
  });
  if (registered.status !== 200) throw new Error(`commands failed: ${registered.status} ${registered.text}`);
  return {
    guild,
    member,
    other,
    bot,
    botSession: await clients.session(bot.token, BOT_INTENTS),
    memberSession: await clients.session(member.token, MEMBER_INTENTS),
    otherSession: await clients.session(other.token, MEMBER_INTENTS),
    commands: Object.fromEntries((registered.body as { name: string }[]).map((c) => [c.name, c as InteractionWorld['commands'][string]])),
  };
}

/** The member's client invoking a command, in the guild's #general unless told otherwise. */
export function invoke(
  server: Pick<TestServer, 'api'>,
  world: InteractionWorld,
  name: string,
  options?: unknown[],
  over: { token?: string; channelId?: string; scheme?: 'Bot' | 'Bearer'; data?: object } = {},
): Promise<ApiResponse> {
  const command = world.commands[name];
  const body = {
    type: 2,
    application_id: world.bot.applicationId,
    guild_id: world.guild.id,
    channel_id: over.channelId ?? world.guild.channelId,
    data: { id: command.id, name: command.name, type: command.type, ...(options ? { options } : {}), ...over.data },
    nonce: '1234',
    session_id: 'a-session',
  };
  return server.api('POST', '/interactions', { token: over.token ?? world.member.token, scheme: over.scheme, body });
}

/** The member's invocation, accepted; resolves with the INTERACTION_CREATE the bot's session received for it. */
export async function invoked(server: Pick<TestServer, 'api'>, world: InteractionWorld, name: string, options?: unknown[]): Promise<Payload['d']> {
  const seen = new Set(world.botSession.received.filter((p) => p.t === 'INTERACTION_CREATE').map((p) => p.d.id));
  const response = await invoke(server, world, name, options);
  expect(response.status).toBe(204);
  return (await world.botSession.next((p) => p.t === 'INTERACTION_CREATE' && !seen.has(p.d.id) && p.d.data.name === name)).d;
}

/** The bot's answer to an interaction (POST /interactions/:id/:token/callback, no Authorization header). */
export const callback = (server: TestServer, interaction: { id: string; token: string }, body: unknown, query = '') =>
  server.api('POST', `/interactions/${interaction.id}/${interaction.token}/callback${query}`, { body });

/** The channel's history as `user` reads it. */
export async function history(server: TestServer, world: InteractionWorld, user: TestUser) {
  const response = await server.api('GET', `/channels/${world.guild.channelId}/messages`, { token: user.token });
  expect(response.status).toBe(200);
  return response.body as { id: string; content: string; flags: number; type: number; interaction_metadata?: { id: string; user: { id: string } } }[];
}
