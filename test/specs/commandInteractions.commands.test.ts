// Command specs of the interaction loop for bots: given streams in the log → when the use case → then the events it
// appended (invocations and clicks as InteractionCreated on interaction-{id}; a response as InteractionResponded and
// its message), or its refusal with nothing appended.
import { describe, expect, it } from 'vitest';
import { invokeCommand } from '../../commands/commandInteractions.js';
import { respondToInteraction } from '../../commands/interactionResponses.js';
import { clickComponent } from '../../commands/interactions.js';
import type { ApplicationBotCreated, ApplicationCreated } from '../../domain/application.js';
import type { ApplicationCommandCreated, ApplicationCommandFields } from '../../domain/applicationCommand.js';
import type { BotInteraction, InteractionCreated } from '../../domain/commandInteraction.js';
import type { MessageUser } from '../../domain/message.js';
import { Permission } from '../../domain/permissions.js';
import type { UserRegistered } from '../../domain/user.js';
import { sha256 } from '../../ports/secrets.js';
import {
  ANNOUNCEMENTS,
  G,
  GENERAL,
  type Person,
  accounts,
  ada,
  bob,
  cy,
  finn,
  guildHistory,
  joined,
  messageFields,
  messageUser,
  roleCreated,
  rolesAdded,
  sent,
} from './events.js';
import { NEW_IDS, NOW, givenStreams } from './support.js';

const APP = '700';
const robo: Person = { id: '701', username: 'robo' };
const roboUser: MessageUser = { ...messageUser(robo), bot: true };
const botRegistered: UserRegistered = {
  type: 'UserRegistered',
  data: { userId: robo.id, username: robo.username, discriminator: '0001', email: null, passwordHash: null, bot: true, applicationId: APP },
};
const application: [string, (ApplicationCreated | ApplicationBotCreated)[]] = [
  `application-${APP}`,
  [
    { type: 'ApplicationCreated', data: { applicationId: APP, name: 'Robo', ownerId: ada.id, clientSecretHash: 'hash' } },
    { type: 'ApplicationBotCreated', data: { applicationId: APP, botUserId: robo.id } },
  ],
];
const people = [...accounts(ada, bob, cy, finn), [`user-${robo.id}`, [botRegistered]] as [string, UserRegistered[]]];
/** @everyone may not use commands in the spec guild: bob may, through the role "commands". */
const commandUsers = [roleCreated('602', 'commands', Permission.USE_APPLICATION_COMMANDS, 3), rolesAdded(bob, { id: '602', name: 'commands' })];
/** Ada's guild, with robo in it. */
const guildWithBot: [string, typeof guildHistory] = [`guild-${G}`, [...guildHistory, ...commandUsers, joined(robo)]];
const guildWithoutBot: [string, typeof guildHistory] = [`guild-${G}`, [...guildHistory, ...commandUsers]];

const command = (over: Partial<ApplicationCommandFields> = {}): ApplicationCommandFields => ({
  id: '800',
  application_id: APP,
  guild_id: G,
  name: 'greet',
  description: 'Greets someone',
  type: 1,
  options: [{ type: 6, name: 'who', description: 'Whom', required: true }],
  default_member_permissions: null,
  dm_permission: true,
  nsfw: false,
  contexts: null,
  integration_types: [0],
  name_localizations: null,
  description_localizations: null,
  version: '1',
  ...over,
});
const registered = (fields: ApplicationCommandFields): [string, ApplicationCommandCreated[]] => [
  `application-commands-${APP}-${fields.guild_id ?? 'global'}`,
  [{ type: 'ApplicationCommandCreated', data: { command: fields } }],
];

const EXPIRES = '2025-06-01T12:15:00.000Z';
const interaction = (over: Partial<BotInteraction> = {}): BotInteraction => ({
  id: '900',
  applicationId: APP,
  botUserId: robo.id,
  type: 2,
  guildId: G,
  channelId: GENERAL,
  userId: bob.id,
  command: {
    id: '800',
    name: 'greet',
    type: 1,
    guild_id: G,
    options: [{ name: 'who', type: 6, value: cy.id }],
    resolved: { users: [cy.id], roles: [], channels: [] },
  },
  component: null,
  memberPermissions: '0',
  appPermissions: '0',
  locale: 'en-US',
  guildLocale: 'en-US',
  createdAt: '2025-06-01T12:00:00.000Z',
  expiresAt: EXPIRES,
  ...over,
});
const TOKEN = 'the-token';
const created = (i: BotInteraction): [string, InteractionCreated[]] => [
  `command-interaction-${i.id}`,
  [{ type: 'InteractionCreated', data: { interaction: i, tokenHash: sha256(TOKEN), sealedToken: 'sealed' } }],
];

const invocation = (over: { channel?: string; options?: unknown[]; id?: string } = {}) => ({
  application_id: APP,
  channel_id: over.channel ?? GENERAL,
  data: { id: over.id ?? '800', name: 'greet', options: (over.options ?? [{ type: 6, name: 'who', value: cy.id }]) as never },
});

describe('invokeCommand', () => {
  it("records the member's invocation for the bot, with a token kept only sealed and as its digest", () =>
    givenStreams(...people, guildWithBot, application, registered(command()))
      .when((deps) => invokeCommand(deps, { actorId: bob.id }, invocation()))
      .then({
        stream: `command-interaction-${NEW_IDS[0]}`,
        type: 'InteractionCreated',
        data: {
          interaction: {
            ...interaction({ id: NEW_IDS[0], createdAt: NOW, expiresAt: new Date(Date.parse(NOW) + 15 * 60_000).toISOString() }),
            memberPermissions: expect.stringMatching(/^\d+$/),
            appPermissions: expect.stringMatching(/^\d+$/),
          },
          tokenHash: expect.stringMatching(/^[0-9a-f]{64}$/),
          sealedToken: expect.any(String),
        },
        metadata: { actorId: bob.id, createdAt: NOW },
      }));

  it('refuses when the bot is not in the guild, appending nothing', () =>
    givenStreams(...people, guildWithoutBot, application, registered(command()))
      .when((deps) => invokeCommand(deps, { actorId: bob.id }, invocation()))
      .thenRefuses('MISSING_ACCESS'));

  it('refuses a command of another guild', () =>
    givenStreams(...people, guildWithBot, application, registered(command({ guild_id: '501' })))
      .when((deps) => invokeCommand(deps, { actorId: bob.id }, invocation()))
      .thenRefuses('UNKNOWN_APPLICATION_COMMAND'));

  it('refuses a member without the default_member_permissions', () =>
    givenStreams(...people, guildWithBot, application, registered(command({ default_member_permissions: String(Permission.BAN_MEMBERS) })))
      .when((deps) => invokeCommand(deps, { actorId: bob.id }, invocation()))
      .thenRefuses('MISSING_PERMISSIONS'));

  it('refuses a member without USE_APPLICATION_COMMANDS', () =>
    givenStreams(...people, guildWithBot, application, registered(command()))
      .when((deps) => invokeCommand(deps, { actorId: cy.id }, invocation()))
      .thenRefuses('MISSING_PERMISSIONS'));

  it('refuses a user option naming nobody', () =>
    givenStreams(...people, guildWithBot, application, registered(command()))
      .when((deps) => invokeCommand(deps, { actorId: bob.id }, invocation({ options: [{ type: 6, name: 'who', value: '999' }] })))
      .thenRefuses('INVALID_FORM_BODY'));

  it('answers UNKNOWN_CHANNEL to someone outside the guild', () =>
    givenStreams(...people, guildWithBot, application, registered(command()))
      .when((deps) => invokeCommand(deps, { actorId: finn.id }, invocation()))
      .thenRefuses('UNKNOWN_CHANNEL'));
});

describe('respondToInteraction', () => {
  const reply = (over: Partial<ReturnType<typeof messageFields>> = {}) =>
    messageFields({
      id: NEW_IDS[0],
      author: roboUser,
      webhook_id: APP,
      type: 20,
      content: 'Hello!',
      timestamp: NOW,
      application_id: APP,
      interaction_metadata: { id: '900', type: 2, user: messageUser(bob), authorizing_integration_owners: { '0': G }, name: 'greet', command_type: 1 },
      interaction: { id: '900', type: 2, name: 'greet', user: messageUser(bob) },
      ...over,
    });

  it('4 records the response, then posts its message by the bot as the application, naming the command and invoker', () =>
    givenStreams(...people, guildWithBot, created(interaction()))
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 4, data: { content: 'Hello!' } }, []))
      .then(
        {
          stream: 'command-interaction-900',
          type: 'InteractionResponded',
          data: { interactionId: '900', applicationId: APP, guildId: G, channelId: GENERAL, responseType: 4, messageId: NEW_IDS[0], respondedAt: NOW },
          metadata: { actorId: robo.id },
        },
        {
          stream: `message-${NEW_IDS[0]}`,
          type: 'MessageCreated',
          data: { messageId: NEW_IDS[0], channelId: GENERAL, guildId: G, authorId: robo.id, message: reply() },
          metadata: { actorId: robo.id },
        },
      ));

  it('posts where the bot could not post itself, as interaction webhooks do', () =>
    givenStreams(...people, guildWithBot, created(interaction({ channelId: ANNOUNCEMENTS })))
      .when(async (deps) => {
        const { message } = await respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 4, data: { content: 'Hello!' } }, []);
        expect(message?.channel_id).toBe(ANNOUNCEMENTS);
      })
      .then(
        { stream: 'command-interaction-900', type: 'InteractionResponded', data: expect.objectContaining({ responseType: 4, channelId: ANNOUNCEMENTS }) },
        { stream: `message-${NEW_IDS[0]}`, type: 'MessageCreated', data: expect.objectContaining({ message: reply({ channel_id: ANNOUNCEMENTS }) }) },
      ));

  it('5 posts a loading message keeping only the ephemeral flag', () =>
    givenStreams(...people, guildWithBot, created(interaction()))
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 5, data: { flags: 64 | 4 } }, []))
      .then(
        { stream: 'command-interaction-900', type: 'InteractionResponded', data: expect.objectContaining({ responseType: 5, messageId: NEW_IDS[0] }) },
        { stream: `message-${NEW_IDS[0]}`, type: 'MessageCreated', data: expect.objectContaining({ message: reply({ content: '', flags: 64 | 128 }) }) },
      ));

  it('7 on a component edits the component’s message, after recording the response', () => {
    const button = messageFields({
      id: '300',
      author: roboUser,
      content: 'choose',
      components: [{ type: 1, components: [{ type: 2, style: 1, custom_id: 'go', label: 'Go' }] }],
    });
    const clickedOn = interaction({ type: 3, command: null, component: { custom_id: 'go', component_type: 2, message: button } });
    return givenStreams(...people, guildWithBot, ['message-300', [sent(button)]], created(clickedOn))
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 7, data: { content: 'chosen', components: [] } }, []))
      .then(
        { stream: 'command-interaction-900', type: 'InteractionResponded', data: expect.objectContaining({ responseType: 7, messageId: '300' }) },
        {
          stream: 'message-300',
          type: 'MessageEdited',
          data: expect.objectContaining({ editorId: robo.id, changes: { content: 'chosen', components: [], edited_timestamp: NOW } }),
        },
      );
  });

  it('refuses a second response, appending nothing', () =>
    givenStreams(...people, guildWithBot, [
      'interaction-900',
      [
        ...created(interaction())[1],
        {
          type: 'InteractionResponded',
          data: { interactionId: '900', applicationId: APP, guildId: G, channelId: GENERAL, responseType: 4, messageId: '1', respondedAt: NOW },
        },
      ],
    ])
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 4, data: { content: 'again' } }, []))
      .thenRefuses('INTERACTION_ALREADY_ACKNOWLEDGED'));

  it('refuses a message the decider refuses before recording the response', () =>
    givenStreams(...people, guildWithBot, created(interaction()))
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 4, data: { content: '' } }, []))
      .thenRefuses('CANNOT_SEND_EMPTY_MESSAGE'));

  it('records the response on the stream clicks share, for an interaction made before it had a stream category of its own', () =>
    givenStreams(...people, guildWithBot, ['interaction-900', created(interaction())[1]])
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 4, data: { content: 'Hello!' } }, []))
      .then(
        { stream: 'interaction-900', type: 'InteractionResponded', data: expect.objectContaining({ interactionId: '900', responseType: 4 }) },
        { stream: `message-${NEW_IDS[0]}`, type: 'MessageCreated', data: expect.objectContaining({ message: reply() }) },
      ));

  it('takes the id of a webhook click for no interaction', () =>
    givenStreams(...people, guildWithBot, [
      'interaction-900',
      [{ type: 'InteractionClicked', data: { interaction: { id: '900' }, webhookId: '77', deliveryUrl: null, clickedAt: NOW } }],
    ])
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 4, data: { content: 'x' } }, []))
      .thenRefuses('UNKNOWN_INTERACTION'));

  it('refuses an expired interaction and another token', async () => {
    await givenStreams(...people, guildWithBot, created(interaction({ expiresAt: '2025-06-01T11:59:59.999Z' })))
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', TOKEN, { type: 4, data: { content: 'late' } }, []))
      .thenRefuses('UNKNOWN_INTERACTION');
    await givenStreams(...people, guildWithBot, created(interaction()))
      .when((deps) => respondToInteraction(deps, { actorId: null }, '900', 'another', { type: 4, data: { content: 'x' } }, []))
      .thenRefuses('INVALID_WEBHOOK_TOKEN');
  });
});

describe('clickComponent on a bot’s message', () => {
  const button = messageFields({
    id: '300',
    author: roboUser,
    content: 'choose',
    components: [{ type: 1, components: [{ type: 2, style: 1, custom_id: 'go', label: 'Go' }] }],
  });

  it('is an interaction for the bot, carrying the message as clicked', () =>
    givenStreams(...people, guildWithBot, application, ['message-300', [sent(button)]])
      .when((deps) => clickComponent(deps, { actorId: bob.id }, { channel_id: GENERAL, message_id: '300', custom_id: 'go' }))
      .then({
        stream: `command-interaction-${NEW_IDS[0]}`,
        type: 'InteractionCreated',
        data: expect.objectContaining({
          interaction: expect.objectContaining({
            id: NEW_IDS[0],
            type: 3,
            applicationId: APP,
            botUserId: robo.id,
            userId: bob.id,
            command: null,
            component: { custom_id: 'go', component_type: 2, message: button },
          }),
        }),
        metadata: { actorId: bob.id },
      }));

  it('refuses when the bot has left the guild', () =>
    givenStreams(...people, guildWithoutBot, application, ['message-300', [sent(button)]])
      .when((deps) => clickComponent(deps, { actorId: bob.id }, { channel_id: GENERAL, message_id: '300', custom_id: 'go' }))
      .thenRefuses('MISSING_ACCESS'));
});
