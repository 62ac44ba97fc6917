// Error codes as each version answers them (http/apiVersions.ts): /api/v1 the spec's strings, /api/v9 and /api/v10 the
// widely used API's numbers, which its clients compare (discord.js's DiscordAPIError.code, discord.py's
// HTTPException.code). Each number is held to its name in discord-api-types' RESTJSONErrorCodes, so a typo fails.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DiscordAPIError, REST } from '@discordjs/rest';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import { Routes } from 'discord.js';
import { afterAll, describe, expect, it } from 'vitest';
import { WIDELY_USED_ERROR_NUMBERS, apiRequest } from '../../http/apiVersions.js';
import { ERRORS } from '../../http/openapi/errors.js';
import { restAgent } from '../support/discordjs.js';
import { type TestBot, type TestServer, createBot, fileServer } from '../support/server.js';
import { type TestGuild, createGuild, expectRefusedWithoutEvents, join as joinGuild } from './guildSupport.js';

/** Each numbered code, by the name discord-api-types gives its number. */
const NAMES: Record<string, keyof typeof RESTJSONErrorCodes> = {
  UNKNOWN_APPLICATION: 'UnknownApplication',
  UNKNOWN_CHANNEL: 'UnknownChannel',
  UNKNOWN_GUILD: 'UnknownGuild',
  UNKNOWN_INVITE: 'UnknownInvite',
  UNKNOWN_MEMBER: 'UnknownMember',
  UNKNOWN_MESSAGE: 'UnknownMessage',
  UNKNOWN_ROLE: 'UnknownRole',
  UNKNOWN_USER: 'UnknownUser',
  UNKNOWN_EMOJI: 'UnknownEmoji',
  UNKNOWN_WEBHOOK: 'UnknownWebhook',
  UNKNOWN_BAN: 'UnknownBan',
  UNKNOWN_STICKER: 'UnknownSticker',
  UNKNOWN_INTERACTION: 'UnknownInteraction',
  UNKNOWN_APPLICATION_COMMAND: 'UnknownApplicationCommand',
  BOTS_NOT_ALLOWED: 'BotsCannotUseThisEndpoint',
  BOTS_ONLY: 'OnlyBotsCanUseThisEndpoint',
  SLOWMODE_RATE_LIMITED: 'ActionCannotBePerformedDueToSlowmodeRateLimit',
  MAX_PINS: 'MaximumNumberOfPinsReachedForTheChannel',
  MAX_RECIPIENTS: 'MaximumNumberOfRecipientsReached',
  MAXIMUM_WEBHOOKS: 'MaximumNumberOfWebhooksReached',
  MAXIMUM_EMOJIS_REACHED: 'MaximumNumberOfEmojisReached',
  MAX_REACTIONS: 'MaximumNumberOfReactionsReached',
  TOO_MANY_ATTACHMENTS: 'MaximumNumberOfAttachmentsInAMessageReached',
  MAX_APPLICATION_COMMANDS: 'MaximumNumberOfApplicationCommandsReached',
  MAXIMUM_STICKERS_REACHED: 'MaximumNumberOfStickersReached',
  MAX_PINNED_THREADS: 'MaximumNumberOfPinnedThreadsInForumHasBeenReached',
  REQUEST_ENTITY_TOO_LARGE: 'RequestEntityTooLarge',
  FILE_TOO_LARGE: 'RequestEntityTooLarge',
  USER_BANNED: 'UserBannedFromThisGuild',
  TARGET_NOT_IN_VOICE: 'TargetUserIsNotConnectedToVoice',
  INTERACTION_FAILED: 'ApplicationInteractionFailedToSend',
  CANNOT_SEND_IN_FORUM_CHANNEL: 'CannotSendAMessageInAForumChannel',
  INTERACTION_ALREADY_ACKNOWLEDGED: 'InteractionHasAlreadyBeenAcknowledged',
  TAG_REQUIRED: 'TagRequiredToCreateAForumPostInThisChannel',
  MISSING_ACCESS: 'MissingAccess',
  NOT_A_BOT: 'InvalidAccountType',
  CANNOT_BULK_DELETE_IN_DM: 'CannotExecuteActionOnDMChannel',
  CANNOT_EDIT_MESSAGE_BY_OTHER: 'CannotEditMessageAuthoredByAnotherUser',
  CANNOT_SEND_EMPTY_MESSAGE: 'CannotSendAnEmptyMessage',
  CANNOT_SEND_MESSAGES_TO_USER: 'CannotSendMessagesToThisUser',
  CANNOT_SEND_IN_NON_TEXT_CHANNEL: 'CannotSendMessagesInNonTextChannel',
  APPLICATION_HAS_NO_BOT: 'OAuth2ApplicationDoesNotHaveBot',
  MISSING_PERMISSIONS: 'MissingPermissions',
  CANNOT_EXECUTE_ON_CHANNEL_TYPE: 'CannotExecuteActionOnThisChannelType',
  NOT_A_VOICE_CHANNEL: 'CannotExecuteActionOnThisChannelType',
  INVALID_OAUTH2_ACCESS_TOKEN: 'InvalidOAuth2AccessToken',
  MISSING_OAUTH2_SCOPE: 'MissingRequiredOAuth2Scope',
  INVALID_WEBHOOK_TOKEN: 'InvalidWebhookToken',
  INVALID_ROLE: 'InvalidRole',
  INVALID_FORM_BODY: 'InvalidFormBodyOrContentType',
  INVALID_MULTIPART: 'InvalidFormBodyOrContentType',
  UNSUPPORTED_MEDIA_TYPE: 'InvalidFormBodyOrContentType',
  NOT_AN_IMAGE: 'InvalidFileUploaded',
  THREAD_ARCHIVED: 'InvalidActionOnArchivedThread',
  INVALID_JSON: 'RequestBodyContainsInvalidJSON',
  IMAGE_QUEUE_FULL: 'APIResourceOverloaded',
  THREAD_ALREADY_CREATED: 'ThreadAlreadyCreatedForMessage',
  THREAD_LOCKED: 'ThreadLocked',
  AUTOMOD_BLOCKED: 'MessageWasBlockedByAutomaticModeration',
  WEBHOOK_FORUM_THREAD_REQUIRED: 'WebhooksPostedToForumChannelsMustHaveAThreadNameOrThreadId',
  WEBHOOK_FORUM_THREAD_NAME_AND_ID: 'WebhooksPostedToForumChannelsCannotHaveBothAThreadNameAndThreadId',
  WEBHOOK_THREADS_ONLY_IN_FORUMS: 'WebhooksCanOnlyCreateThreadsInForumChannels',
  WEBHOOK_SERVICES_NOT_IN_FORUMS: 'WebhookServicesCannotBeUsedInForumChannels',
  FAILED_TO_BAN_USERS: 'FailedToBanUsers',
};

const v10 = apiRequest('/api/v10/x')!.version;
const v1 = apiRequest('/api/v1/x')!.version;

describe('the code of an error, by version', () => {
  it('numbers each code as discord-api-types names its number', () => {
    expect(Object.keys(WIDELY_USED_ERROR_NUMBERS).sort()).toEqual(Object.keys(NAMES).sort());
    for (const [code, name] of Object.entries(NAMES)) expect([code, v10.errorCode(code)]).toEqual([code, RESTJSONErrorCodes[name]]);
  });

  it('answers the general error, 0, for a documented code with no number of its own there, and strings on /api/v1', () => {
    for (const code of Object.keys(ERRORS)) {
      expect([code, v10.errorCode(code)]).toEqual([code, code in NAMES ? RESTJSONErrorCodes[NAMES[code]] : RESTJSONErrorCodes.GeneralError]);
      expect(v1.errorCode(code)).toBe(code);
    }
    expect(apiRequest('/api/v9/x')!.version.errorCode('UNKNOWN_MESSAGE')).toBe(10008);
  });
});

// A small body limit, for a 413 without sending megabytes.
const server: TestServer = await fileServer({ JSON_BODY_LIMIT: '65536' });
const guild: TestGuild = await createGuild(server);
const bot = (await joinGuild(server, guild, await createBot(server, guild.owner), 'Bot')) as TestBot;
const posted = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: 'hi' } });
const unknownMessage = `/channels/${guild.channelId}/messages/4242424242424242`;
const ownersMessage = `/channels/${guild.channelId}/messages/${posted.body.id}`;
const asBot = { token: bot.token, scheme: 'Bot' as const };

describe('over HTTPS', () => {
  it('answers a domain refusal with its number on /api/v9 and /api/v10 and its string on /api/v1, appending nothing', async () => {
    for (const [prefix, unknown, missing] of [
      ['/api/v10', 10008, 50013],
      ['/api/v9', 10008, 50013],
      ['/api/v1', 'UNKNOWN_MESSAGE', 'MISSING_PERMISSIONS'],
    ] as const) {
      await expectRefusedWithoutEvents(server, () => server.call('GET', `${prefix}${unknownMessage}`, asBot), 404, unknown);
      await expectRefusedWithoutEvents(server, () => server.call('DELETE', `${prefix}${ownersMessage}`, asBot), 403, missing);
    }
    expect((await server.call('GET', `/api/v10${unknownMessage}`, asBot)).body).toEqual({ code: 10008, message: 'Unknown Message' });
  });

  it('numbers what no route refuses on /api/v10 too: no token, no route, another method, bad JSON, too large, not JSON', async () => {
    const v10call = (method: string, path: string, options = {}) => server.call(method, `/api/v10${path}`, options);
    expect((await v10call('GET', '/users/@me')).body).toEqual({ code: 0, message: '401: Unauthorized' });
    expect(await v10call('GET', '/nowhere', asBot)).toMatchObject({ status: 404, body: { code: 0, message: '404: Not Found' } });
    expect(await server.call('GET', '/api/v1/nowhere', asBot)).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND', message: 'No route for GET /api/v1/nowhere' },
    });
    expect(await v10call('PUT', '/users/@me', asBot)).toMatchObject({ status: 405, body: { code: 0, message: '405: Method Not Allowed' } });
    expect(await server.call('PUT', '/api/v1/users/@me', asBot)).toMatchObject({ status: 405, body: { code: 'METHOD_NOT_ALLOWED' } });
    const json = { 'content-type': 'application/json' };
    expect(await v10call('POST', '/auth/login', { rawBody: '{"login":', headers: json })).toMatchObject({ status: 400, body: { code: 50109 } });
    const large = JSON.stringify({ login: 'x'.repeat(100_000), password: 'y' });
    expect(await v10call('POST', '/auth/login', { rawBody: large, headers: json })).toMatchObject({ status: 413, body: { code: 40005 } });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(await v10call('POST', '/auth/login', { rawBody: 'login=x', headers: form })).toMatchObject({ status: 415, body: { code: 50035 } });
    expect(await server.call('POST', '/api/v1/auth/login', { rawBody: 'login=x', headers: form })).toMatchObject({
      status: 415,
      body: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
  });
});

describe('read by discord.js', () => {
  const agent = restAgent(server);
  afterAll(() => agent.close());
  /** discord.js's REST as a bot builds it, with only the base address changed (its version is its default, 10). */
  const rest = new REST({ api: `${server.origin}/api`, retries: 0 }).setToken(bot.token).setAgent(agent);
  const refusal = (request: Promise<unknown>) =>
    request.then(
      () => null,
      (error: unknown) => error,
    );

  it('raises DiscordAPIError with the numbers its RESTJSONErrorCodes names: Unknown Message, Missing Permissions', async () => {
    const unknown = await refusal(rest.get(Routes.channelMessage(guild.channelId, '4242424242424242')));
    expect(unknown).toBeInstanceOf(DiscordAPIError);
    expect(unknown).toMatchObject({ status: 404, code: RESTJSONErrorCodes.UnknownMessage, message: 'Unknown Message' });
    const missing = await refusal(rest.delete(Routes.channelMessage(guild.channelId, posted.body.id)));
    expect(missing).toBeInstanceOf(DiscordAPIError);
    expect(missing).toMatchObject({ status: 403, code: RESTJSONErrorCodes.MissingPermissions });
  });
});

// Debian's package installs for the system interpreter; CI installs it (.ci/run), so there a missing one fails.
const PYTHON = '/usr/bin/python3';
const run = promisify(execFile);
const discordPy = await run(PYTHON, ['-c', 'import discord'], { timeout: 10_000 }).then(
  () => true,
  () => false,
);

describe.skipIf(!discordPy && !process.env.CI)('read by discord.py', () => {
  it('raises discord.NotFound with code 10008 for an unknown message on /api/v10', async () => {
    const { stdout } = await run(PYTHON, [join(import.meta.dirname, '..', 'compat', 'discordpy', 'not_found.py')], {
      timeout: 30_000,
      env: {
        ...process.env,
        PARLEY_API: `${server.origin}/api/v10`,
        BOT_TOKEN: bot.token,
        CHANNEL_ID: guild.channelId,
        MESSAGE_ID: '4242424242424242',
        SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      },
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ raised: 'NotFound', status: 404, code: 10008, text: 'Unknown Message' });
  });
});
