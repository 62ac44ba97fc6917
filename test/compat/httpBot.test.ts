// The HTTP-interactions example a new user runs (examples/httpBot.mjs), as it is, against a fresh server started with
// INTERACTIONS_ALLOW_PRIVATE: built on discord-interactions' verifyKeyMiddleware, it sets itself as its application's
// interactions endpoint through the real API and answers inline: /hello with a message members see in the channel, its
// history and on their gateway sessions; /feedback with a modal the member submits; /fruit's option with autocomplete
// choices.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { createGuild, join as joinGuild, newMember } from '../http/guildSupport.js';
import { gatewayClients } from '../support/gateway.js';
import { createBot, fileServer } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';

const server = await fileServer({ INTERACTIONS_ALLOW_PRIVATE: '1' });
const clients = gatewayClients(() => server);
let bot: BotProcess | null = null;
afterAll(() => {
  bot?.child.kill('SIGKILL');
  clients.closeAll();
});

const root = join(import.meta.dirname, '..', '..');

/** Polls `probe` until it returns something, for up to 15 s. */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} within 15 s; the bot wrote:\n${bot?.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('examples/httpBot.mjs', () => {
  it('is what docs/bots.md shows', () => {
    const page = readFileSync(join(root, 'docs', 'bots.md'), 'utf8');
    const shown = /<!-- http-bot -->\s*```js\n([\s\S]*?)```/.exec(page)?.[1];
    expect(shown).toBe(readFileSync(join(root, 'examples', 'httpBot.mjs'), 'utf8'));
  });

  it('sets itself as the interactions endpoint and answers inline: a message, a modal and its submit, autocomplete choices', async () => {
    const app = await createBot(server);
    const guild = await createGuild(server, app.owner);
    await joinGuild(server, guild, app, 'Bot');
    const member = await newMember(server, guild);
    const session = await clients.session(member.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
    bot = startBotProcess(process.execPath, [join(root, 'examples', 'httpBot.mjs')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    });
    await until('endpoint', async () => (bot!.output().includes('verified') ? true : undefined));
    const application = (await server.api('GET', '/applications/@me', { token: app.token, scheme: 'Bot' })).body;
    expect(application.interactions_endpoint_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/interactions$/);

    const commands = (await server.api('GET', `/applications/${app.applicationId}/commands`, { token: app.owner.token })).body as {
      id: string;
      name: string;
    }[];
    const idOf = (name: string) => commands.find((c) => c.name === name)!.id;
    const place = { application_id: app.applicationId, guild_id: guild.id, channel_id: guild.channelId };
    const interact = async (body: object) =>
      expect((await server.api('POST', '/interactions', { token: member.token, body: { ...place, ...body } })).status).toBe(204);
    await interact({ type: 2, data: { id: idOf('hello'), name: 'hello', type: 1 } });

    const content = `Hello, <@${member.id}>!`;
    const history = (await server.api('GET', `/channels/${guild.channelId}/messages?limit=5`, { token: member.token })).body as { content: string }[];
    expect(history[0]).toMatchObject({ content, author: { id: app.id }, interaction_metadata: { user: { id: member.id } } });
    expect((await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === content)).d.author.id).toBe(app.id);
    expect(bot.output()).toContain(`/hello from ${member.username}`);

    // /feedback answers with a modal, which reaches the member's session; its submit goes to the endpoint too.
    await interact({ type: 2, data: { id: idOf('feedback'), name: 'feedback', type: 1 }, nonce: 'n-1' });
    const modal = await session.next((p) => p.t === 'INTERACTION_MODAL_CREATE');
    expect(modal.d).toMatchObject({ custom_id: 'feedback', title: 'Feedback', nonce: 'n-1', components: [{ components: [{ custom_id: 'text', style: 2 }] }] });
    const rows = [{ type: 1, components: [{ type: 4, custom_id: 'text', value: 'Works unchanged' }] }];
    await interact({ type: 5, data: { id: modal.d.id, custom_id: 'feedback', components: rows } });
    const thanks = `Thanks, <@${member.id}>: “Works unchanged”`;
    expect((await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === thanks)).d.author.id).toBe(app.id);

    // /fruit's option: the choices for what the member typed so far, then the command with the one picked.
    const fruit = (value: string, focused?: boolean) => ({
      id: idOf('fruit'),
      name: 'fruit',
      type: 1,
      options: [{ type: 3, name: 'name', value, ...(focused ? { focused } : {}) }],
    });
    await interact({ type: 4, data: fruit('ap', true), nonce: 'n-2' });
    const choices = await session.next((p) => p.t === 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE');
    expect(choices.d).toMatchObject({
      nonce: 'n-2',
      choices: [
        { name: 'apple', value: 'apple' },
        { name: 'apricot', value: 'apricot' },
      ],
    });
    await interact({ type: 2, data: fruit('apricot') });
    await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'You picked apricot.');
  });
});
