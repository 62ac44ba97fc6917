// discord.js's moderation calls against the server, unchanged but for its base address: member.timeout() (which sends
// its camelCase option beside the field) holds the member back from sending until member.timeout(null), and
// channel.setRateLimitPerUser() makes a second send by a member who is not exempt a 429 with its retry_after (a
// person: bots, like moderators, are exempt from slowmode, as in the widely used API).
import { type Guild, RateLimitError, type TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { type TestGuild, createGuild, grantRole, join } from '../http/guildSupport.js';
import { type RestClient, restClient } from '../support/discordjs.js';
import { type TestBot, type TestServer, createBot, fileServer, registerUser } from '../support/server.js';

let server: TestServer;
let testGuild: TestGuild;
let moderator: RestClient;
let member: RestClient;
let memberBot: TestBot;
let guild: Guild;
const clients: RestClient[] = [];

/** A bot in the test guild, driven by its own discord.js client. */
async function botClient(): Promise<[TestBot, RestClient]> {
  const bot = await createBot(server);
  await join(server, testGuild, bot, 'Bot');
  const rest = await restClient(server, bot.token);
  clients.push(rest);
  return [bot, rest];
}

beforeAll(async () => {
  server = await fileServer();
  testGuild = await createGuild(server);
  let modBot: TestBot;
  [modBot, moderator] = await botClient();
  await grantRole(server, testGuild, modBot, Permission.MODERATE_MEMBERS | Permission.MANAGE_CHANNELS | Permission.VIEW_AUDIT_LOG, 'moderators');
  [memberBot, member] = await botClient();
  guild = await moderator.client.guilds.fetch(testGuild.id);
});
afterAll(async () => {
  for (const rest of clients) await rest.close();
});

/** The channel as `rest`'s client sees it (its guild fetched first: discord.js keeps no guild channel without its guild). */
async function channelOf(rest: RestClient, channelId: string): Promise<TextChannel> {
  const seen = await rest.client.guilds.fetch(testGuild.id);
  return (await seen.channels.fetch(channelId, { force: true })) as TextChannel;
}

describe('discord.js moderation', () => {
  it('times a member out with member.timeout(), which their send then fails, and lifts it with timeout(null)', async () => {
    const target = await guild.members.fetch({ user: memberBot.id, force: true });
    const timedOut = await target.timeout(60_000, 'too loud');
    expect(timedOut.isCommunicationDisabled()).toBe(true);
    expect(timedOut.communicationDisabledUntilTimestamp! - Date.now()).toBeGreaterThan(50_000);

    const channel = await channelOf(member, testGuild.channelId);
    await expect(channel.send('let me speak')).rejects.toMatchObject({ status: 403, code: 'MISSING_ACCESS' });
    const entries = await guild.fetchAuditLogs({ type: 24, limit: 1 });
    expect(entries.entries.first()).toMatchObject({ reason: 'too loud', targetId: memberBot.id });
    expect(entries.entries.first()!.changes).toEqual([expect.objectContaining({ key: 'communication_disabled_until' })]);

    const lifted = await target.timeout(null);
    expect(lifted.communicationDisabledUntil).toBeNull();
    expect((await channel.send('thanks')).content).toBe('thanks');
  });

  it('sets slowmode with setRateLimitPerUser(10): a second send by a person is a 429 with retry_after, bots and moderators are exempt', async () => {
    const created = await guild.channels.create({ name: 'slow' });
    const slowed = await (created as TextChannel).setRateLimitPerUser(10);
    expect(slowed.rateLimitPerUser).toBe(10);

    // A person, through discord.js's REST with their session token.
    const person = await registerUser(server);
    await join(server, testGuild, person);
    const personal = await restClient(server, person.token, 'Bearer');
    clients.push(personal);
    // discord.js waits out a 429 and retries by default: asked to reject instead, it shows what the server answered.
    Object.assign(personal.client.rest.options, { rejectOnRateLimit: ['/channels'] });
    const channel = await channelOf(personal, created.id);
    await channel.send('first');
    const limited = await channel.send('second').then(
      () => null,
      (error: unknown) => error,
    );
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ scope: 'user', method: 'POST' });
    expect((limited as RateLimitError).retryAfter).toBeGreaterThan(8_000);

    for (const exempt of [member, moderator]) {
      const own = await channelOf(exempt, created.id);
      expect((await own.send('one')).content).toBe('one');
      expect((await own.send('two')).content).toBe('two');
    }
  });
});
