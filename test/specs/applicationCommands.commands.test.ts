// Command specs of application commands: who may manage them (the application's bot and owner; in a guild, only with
// the bot a member), and what each use case appends, on which stream, with which ids and metadata.
import { describe, it } from 'vitest';
import {
  createApplicationCommand,
  deleteApplicationCommand,
  overwriteApplicationCommands,
  updateApplicationCommand,
} from '../../commands/applicationCommands.js';
import type { ApplicationBotCreated, ApplicationCreated } from '../../domain/application.js';
import type { ApplicationCommandCreated, ApplicationCommandFields } from '../../domain/applicationCommand.js';
import { applicationCommandFields } from '../support/applicationCommandFields.js';
import { G, ada, bob, guildStream, joined } from './events.js';
import { NEW_IDS, NOW, givenStreams } from './support.js';

const APP = '700';
const BOT = '701';
const GLOBAL = `application-commands-${APP}-global`;
const IN_GUILD = `application-commands-${APP}-${G}`;
const global = { applicationId: APP, guildId: null };
const inGuild = { applicationId: APP, guildId: G };

/** Ada's application 700 with its bot user 701. */
const application: [string, (ApplicationCreated | ApplicationBotCreated)[]] = [
  `application-${APP}`,
  [
    { type: 'ApplicationCreated', data: { applicationId: APP, name: 'Spec App', ownerId: ada.id, clientSecretHash: 'hash' } },
    { type: 'ApplicationBotCreated', data: { applicationId: APP, botUserId: BOT } },
  ],
];
/** The spec guild with the bot a member. */
const guildWithBot: typeof guildStream = [guildStream[0], [...guildStream[1], joined({ id: BOT, username: 'spec-bot' })]];

const fields = (id: string, over: Partial<ApplicationCommandFields> = {}) => applicationCommandFields(id, { application_id: APP, ...over });
const created = (command: ApplicationCommandFields): ApplicationCommandCreated => ({ type: 'ApplicationCommandCreated', data: { command } });
const ping = { name: 'ping', description: 'Pong' };

describe('createApplicationCommand', () => {
  it("appends ApplicationCommandCreated on the application's global stream, with the next id, by the bot at the clock's time", () =>
    givenStreams(application)
      .when((deps) => createApplicationCommand(deps, { actorId: BOT }, global, ping))
      .then({ stream: GLOBAL, type: 'ApplicationCommandCreated', data: { command: fields(NEW_IDS[0]) }, metadata: { actorId: BOT, createdAt: NOW } }));

  it("takes the owner's session too", () =>
    givenStreams(application)
      .when((deps) => createApplicationCommand(deps, { actorId: ada.id }, global, ping))
      .then({ stream: GLOBAL, type: 'ApplicationCommandCreated', data: { command: fields(NEW_IDS[0]) }, metadata: { actorId: ada.id } }));

  it('refuses anyone else with MISSING_ACCESS, and an unknown application with UNKNOWN_APPLICATION, appending nothing', async () => {
    await givenStreams(application)
      .when((deps) => createApplicationCommand(deps, { actorId: bob.id }, global, ping))
      .thenRefuses('MISSING_ACCESS');
    await givenStreams(application)
      .when((deps) => createApplicationCommand(deps, { actorId: BOT }, { applicationId: '999', guildId: null }, ping))
      .thenRefuses('UNKNOWN_APPLICATION');
  });

  it("appends on the guild's stream of the application when its bot is a member", () =>
    givenStreams(application, guildWithBot)
      .when((deps) => createApplicationCommand(deps, { actorId: ada.id }, inGuild, ping))
      .then({ stream: IN_GUILD, type: 'ApplicationCommandCreated', data: { command: fields(NEW_IDS[0], { guild_id: G }) } }));

  it('refuses a guild the bot is not in (MISSING_ACCESS) and one that does not exist (UNKNOWN_GUILD)', async () => {
    await givenStreams(application, guildStream)
      .when((deps) => createApplicationCommand(deps, { actorId: BOT }, inGuild, ping))
      .thenRefuses('MISSING_ACCESS');
    await givenStreams(application)
      .when((deps) => createApplicationCommand(deps, { actorId: BOT }, inGuild, ping))
      .thenRefuses('UNKNOWN_GUILD');
  });

  it('refuses a definition breaking the rules, appending nothing', () =>
    givenStreams(application)
      .when((deps) => createApplicationCommand(deps, { actorId: BOT }, global, { name: 'Ping', description: 'Pong' }))
      .thenRefuses('INVALID_FORM_BODY'));
});

describe('updateApplicationCommand and deleteApplicationCommand', () => {
  const existing: [string, ApplicationCommandCreated[]] = [GLOBAL, [created(fields('800'))]];

  it('appends the command with the changed fields and the next version', () =>
    givenStreams(application, existing)
      .when((deps) => updateApplicationCommand(deps, { actorId: BOT }, global, '800', { description: 'New', dm_permission: false }))
      .then({
        stream: GLOBAL,
        type: 'ApplicationCommandUpdated',
        data: { command: fields('800', { description: 'New', dm_permission: false, version: '2' }) },
      }));

  it('does not find a global command in a guild scope', () =>
    givenStreams(application, guildWithBot, existing)
      .when((deps) => updateApplicationCommand(deps, { actorId: BOT }, inGuild, '800', { description: 'New' }))
      .thenRefuses('UNKNOWN_APPLICATION_COMMAND'));

  it('appends ApplicationCommandDeleted with the command as it was', () =>
    givenStreams(application, existing)
      .when((deps) => deleteApplicationCommand(deps, { actorId: ada.id }, global, '800'))
      .then({ stream: GLOBAL, type: 'ApplicationCommandDeleted', data: { command: fields('800') } }));

  it('refuses a delete by a stranger', () =>
    givenStreams(application, existing)
      .when((deps) => deleteApplicationCommand(deps, { actorId: bob.id }, global, '800'))
      .thenRefuses('MISSING_ACCESS'));
});

describe('overwriteApplicationCommands', () => {
  it('appends the deletions, updates and creations of one overwrite together, a new command taking the id generated for its entry', () =>
    givenStreams(application, [GLOBAL, [created(fields('800')), created(fields('801', { name: 'old' }))]])
      .when((deps) =>
        overwriteApplicationCommands(deps, { actorId: BOT }, global, [
          { name: 'new', description: 'Fresh' },
          { ...ping, nsfw: true },
          { name: 'Info', type: 2 },
        ]),
      )
      .then(
        { stream: GLOBAL, type: 'ApplicationCommandDeleted', data: { command: fields('801', { name: 'old' }) } },
        { stream: GLOBAL, type: 'ApplicationCommandCreated', data: { command: fields(NEW_IDS[0], { name: 'new', description: 'Fresh' }) } },
        { stream: GLOBAL, type: 'ApplicationCommandUpdated', data: { command: fields('800', { nsfw: true, version: '2' }) } },
        { stream: GLOBAL, type: 'ApplicationCommandCreated', data: { command: fields(NEW_IDS[2], { name: 'Info', type: 2, description: '' }) } },
      ));

  it('refuses a list with a repeated name, appending nothing', () =>
    givenStreams(application)
      .when((deps) => overwriteApplicationCommands(deps, { actorId: BOT }, global, [ping, ping]))
      .thenRefuses('INVALID_FORM_BODY'));
});
