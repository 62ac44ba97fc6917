// Modals and autocomplete with an unmodified discord.js 14 bot (its own process, only its base address pointed at
// Parley): showModal with ModalBuilder and TextInputBuilder, awaitModalSubmit and fields.getTextInputValue, a modal
// shown for a button and answered with update() from isModalSubmit, and isAutocomplete with options.getFocused and
// respond. The member's side is a real gateway session and the HTTPS API, as a user's client: it receives the modal
// (INTERACTION_MODAL_CREATE) and the choices (APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE) on its session.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { type TestGuild, createGuild, join as joinGuild, newMember } from '../http/guildSupport.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestBot, type TestServer, type TestUser, createBot, startTestServer } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';

let server: TestServer;
let guild: TestGuild;
let member: TestUser;
let app: TestBot;
let bot: BotProcess;
let commandIds: Record<string, string>;
let memberSession: GatewayClient;

beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server, undefined, 'Modals');
  member = await newMember(server, guild);
  app = (await joinGuild(server, guild, await createBot(server), 'Bot')) as TestBot;
  memberSession = await connectGateway(server);
  await memberSession.identify(member.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
  bot = startBotProcess(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'modalsBot.ts')], {
    PARLEY_ORIGIN: server.origin,
    BOT_TOKEN: app.token,
    NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
  });
  const ready = await bot.next('ready', undefined, 30_000);
  expect(ready.data).toMatchObject({ userId: app.id, applicationId: app.applicationId });
  commandIds = ready.data.commands;
});
afterAll(async () => {
  bot?.child.kill('SIGKILL');
  memberSession?.close();
  await server?.close();
});

/** The member's client sending an interaction of `type` in #general. */
async function send(type: number, data: object) {
  const body = { type, application_id: app.applicationId, guild_id: guild.id, channel_id: guild.channelId, data, nonce: String(Date.now()) };
  const response = await server.api('POST', '/interactions', { token: member.token, body });
  expect(response.status, response.text).toBe(204);
  return body.nonce;
}

/** The member fills in the modal their session received, as their client submits it. */
const submit = (modal: { id: string; custom_id: string }, values: Record<string, string>) =>
  send(5, {
    id: modal.id,
    custom_id: modal.custom_id,
    components: Object.entries(values).map(([custom_id, value]) => ({ type: 1, components: [{ type: 4, custom_id, value }] })),
  });

const message = async (id: string) => (await server.api('GET', `/channels/${guild.channelId}/messages/${id}`, { token: member.token })).body;

describe('modals and autocomplete with discord.js', () => {
  it('showModal() reaches the member’s session; awaitModalSubmit() reads the submitted fields and the reply is posted', async () => {
    const nonce = await send(2, { id: commandIds.feedback, name: 'feedback', type: 1 });
    const modal = (await memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE' && p.d.custom_id === 'feedback-form', 15_000)).d;
    expect(modal).toMatchObject({
      nonce,
      title: 'Your feedback',
      components: [
        { type: 1, components: [{ type: 4, custom_id: 'subject', label: 'Subject', style: 1, min_length: 3, max_length: 40 }] },
        { type: 1, components: [{ type: 4, custom_id: 'details', label: 'Details', style: 2, required: false }] },
      ],
    });
    await submit(modal, { subject: 'Lovely', details: 'Keep going' });
    const { data } = await bot.next('feedback', undefined, 15_000);
    expect(data).toEqual({
      id: modal.id,
      submitId: expect.any(String),
      isModalSubmit: true,
      userId: member.id,
      subject: 'Lovely',
      details: 'Keep going',
      fromMessage: false,
    });
    const reply = await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'Thanks for "Lovely"');
    expect(reply.d).toMatchObject({ author: { id: app.id }, interaction_metadata: { id: data.submitId, type: 5, user: { id: member.id } } });
  });

  it('a button’s modal: isModalSubmit() in interactionCreate, isFromMessage(), and update() edits the button’s message', async () => {
    await send(2, { id: commandIds.rate, name: 'rate', type: 1 });
    const { messageId } = (await bot.next('rate', undefined, 15_000)).data;
    const click = await server.api('POST', '/interactions/click', {
      token: member.token,
      body: { channel_id: guild.channelId, message_id: messageId, custom_id: 'rate' },
    });
    expect(click.status).toBe(204);
    const modal = (await memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE' && p.d.custom_id === 'rate-form', 15_000)).d;
    await submit(modal, { stars: '5' });
    expect((await bot.next('rated', undefined, 15_000)).data).toEqual({ stars: '5', messageId });
    expect(await message(messageId)).toMatchObject({ content: 'Rated 5 stars', components: [] });
  });

  it('isAutocomplete(), options.getFocused() and respond(): the choices reach the member’s session', async () => {
    const nonce = await send(4, { id: commandIds.fruit, name: 'fruit', type: 1, options: [{ type: 3, name: 'name', value: 'ap', focused: true }] });
    const { data } = await bot.next('autocomplete', undefined, 15_000);
    expect(data).toEqual({ command: 'fruit', name: 'name', value: 'ap', getFocused: 'ap' });
    const choices = await memberSession.next((p) => p.t === 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE' && p.d.nonce === nonce, 15_000);
    expect(choices.d.choices).toEqual([
      { name: 'APPLE', value: 'apple' },
      { name: 'APRICOT', value: 'apricot' },
    ]);
  });

  it('reports no error', () => {
    expect(bot.reports.filter((r) => r.event === 'error')).toEqual([]);
  });
});
