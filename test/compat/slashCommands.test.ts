// The whole interaction loop with an unmodified discord.js 14 bot (its own process, only its base address pointed at
// Parley): it registers its commands with client.application.commands.set(); a member's session invokes them
// (POST /interactions) and clicks its components (POST /interactions/click); the bot answers in interactionCreate
// with reply, an ephemeral reply, deferReply + editReply + fetchReply + followUp, deleteReply, channel.send() with
// components, update() and deferUpdate() + editReply(). Each answer is checked where people see it: the channel's
// history as the member (and the ephemeral one hidden from others) and the member's gateway session.
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
let other: TestUser;
let app: TestBot;
let bot: BotProcess;
let commandIds: Record<string, string>;
const sessions: GatewayClient[] = [];
let memberSession: GatewayClient;
let otherSession: GatewayClient;

async function session(user: TestUser) {
  const client = await connectGateway(server);
  sessions.push(client);
  await client.identify(user.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
  return client;
}

beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server, undefined, 'Slash');
  member = await newMember(server, guild);
  other = await newMember(server, guild);
  app = (await joinGuild(server, guild, await createBot(server), 'Bot')) as TestBot;
  memberSession = await session(member);
  otherSession = await session(other);
  bot = startBotProcess(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'slashCommandsBot.ts')], {
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
  for (const client of sessions) client.close();
  await server?.close();
});

/** The member's client invoking a command in #general, as the widely used API's clients send it. */
async function invoke(name: string, options?: unknown[]) {
  const body = {
    type: 2,
    application_id: app.applicationId,
    guild_id: guild.id,
    channel_id: guild.channelId,
    data: { id: commandIds[name], name, type: 1, ...(options ? { options } : {}) },
  };
  const response = await server.api('POST', '/interactions', { token: member.token, body });
  expect(response.status).toBe(204);
}

async function history(user: TestUser) {
  const response = await server.api('GET', `/channels/${guild.channelId}/messages?limit=20`, { token: user.token });
  expect(response.status).toBe(200);
  return response.body as Record<string, any>[];
}

const click = (messageId: string, customId: string, values?: string[]) =>
  server.api('POST', '/interactions/click', {
    token: member.token,
    body: { channel_id: guild.channelId, message_id: messageId, custom_id: customId, ...(values ? { values } : {}) },
  });

describe('slash commands and components with discord.js', () => {
  it('registers its commands with client.application.commands.set() as global commands', async () => {
    expect(Object.keys(commandIds).sort()).toEqual(['echo', 'menu', 'ping', 'secret', 'slow', 'temp']);
    const listed = await server.api('GET', `/applications/${app.applicationId}/commands`, { token: app.token, scheme: 'Bot' });
    expect(listed.body.map((c: { id: string }) => c.id).sort()).toEqual(Object.values(commandIds).sort());
  });

  it('reply(): the bot reads the interaction and its answer is a message everyone in the channel sees', async () => {
    await invoke('ping');
    const { data } = await bot.next('ping');
    expect(data).toMatchObject({
      command: 'ping',
      commandId: commandIds.ping,
      commandGuildId: null,
      chatInput: true,
      channelId: guild.channelId,
      guildId: guild.id,
      userId: member.id,
      memberId: member.id,
      inGuild: true,
      channelCached: true,
    });
    expect(data.messageId).toEqual(expect.any(String));
    const [reply] = await history(other);
    expect(reply).toMatchObject({
      id: data.messageId,
      content: 'Pong!',
      type: 20,
      author: { id: app.id },
      interaction_metadata: { id: data.id, user: { id: member.id }, name: 'ping' },
    });
    await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === data.messageId);
  });

  it('options.getString() and getInteger() read what the member sent', async () => {
    await invoke('echo', [
      { type: 3, name: 'text', value: 'hey' },
      { type: 4, name: 'times', value: 3 },
    ]);
    const { data } = await bot.next('echo');
    expect(data).toMatchObject({ text: 'hey', times: 3, asString: '/echo text:hey times:3' });
    expect((await history(member))[0]).toMatchObject({ content: 'hey hey hey', interaction_metadata: { id: data.id } });
  });

  it('an ephemeral reply reaches the member alone', async () => {
    await invoke('secret');
    const { data } = await bot.next('secret');
    expect(data.ephemeral).toBe(true);
    const [mine] = await history(member);
    expect(mine).toMatchObject({ content: 'Only you can see this', flags: 64, interaction_metadata: { id: data.id } });
    expect((await history(other)).some((m) => m.id === mine.id)).toBe(false);
    await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === mine.id);
    expect(otherSession.received.some((p) => p.t === 'MESSAGE_CREATE' && p.d.id === mine.id)).toBe(false);
  });

  it('deferReply() shows a loading message that editReply() fills; fetchReply() and followUp() work on the token', async () => {
    await invoke('slow');
    const { data } = await bot.next('slow');
    expect(data).toMatchObject({ deferred: true, fetchedContent: 'Thought about it' });
    const loading = await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === data.editedId);
    expect(loading.d).toMatchObject({ content: '', flags: 128 });
    await memberSession.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === data.editedId && p.d.content === 'Thought about it');
    await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === data.followUpId);
    const messages = await history(member);
    expect(messages.find((m) => m.id === data.editedId)).toMatchObject({ content: 'Thought about it', flags: 0, type: 20 });
    expect(messages.find((m) => m.id === data.followUpId)).toMatchObject({
      content: 'And one more thing',
      interaction_metadata: { id: data.id, original_response_message_id: data.editedId },
    });
  });

  it('deleteReply() takes the reply back', async () => {
    await invoke('temp');
    const { data } = await bot.next('temp');
    const created = await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.interaction_metadata?.id === data.id);
    await memberSession.next((p) => p.t === 'MESSAGE_DELETE' && p.d.id === created.d.id);
    expect((await history(member)).some((m) => m.id === created.d.id)).toBe(false);
  });

  it('a button the bot posted with channel.send(): the click reaches interactionCreate and update() edits the message', async () => {
    await invoke('menu');
    const menu = (await bot.next('menu')).data;
    const posted = (await history(other)).find((m) => m.id === menu.messageId)!;
    expect(posted).toMatchObject({
      content: 'Choose',
      author: { id: app.id },
      components: [{ type: 1, components: [{ type: 2, custom_id: 'press' }] }, { type: 1 }],
    });

    expect((await click(menu.messageId, 'press')).status).toBe(204);
    const pressed = (await bot.next('press')).data;
    expect(pressed).toMatchObject({
      customId: 'press',
      button: true,
      messageId: menu.messageId,
      messageContent: 'Choose',
      userId: member.id,
      memberId: member.id,
    });
    const updated = await memberSession.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === menu.messageId && p.d.content.startsWith('Pressed'));
    expect(updated.d.content).toBe(`Pressed by ${member.username}`);
    expect((await history(other)).find((m) => m.id === menu.messageId)).toMatchObject({
      content: `Pressed by ${member.username}`,
      components: [{ components: [{ type: 3, custom_id: 'flavour' }] }],
    });
  });

  it('a select menu: deferUpdate() then editReply() edits the message the menu is on', async () => {
    const menu = (await bot.next('menu')).data;
    expect((await click(menu.messageId, 'flavour', ['mint'])).status).toBe(204);
    const chosen = (await bot.next('flavour')).data;
    expect(chosen).toMatchObject({ customId: 'flavour', button: false, values: ['mint'], editedId: menu.messageId });
    await memberSession.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === menu.messageId && p.d.content === 'You chose mint');
    expect((await history(member)).find((m) => m.id === menu.messageId)).toMatchObject({ content: 'You chose mint', components: [] });
  });
});
