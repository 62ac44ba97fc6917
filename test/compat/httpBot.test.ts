// The HTTP-interactions example a new user runs (examples/httpBot.mjs), as it is, against a fresh server started with
// INTERACTIONS_ALLOW_PRIVATE: built on discord-interactions' verifyKeyMiddleware, it sets itself as its application's
// interactions endpoint through the real API and answers /hello inline; members see the answer in the channel, in its
// history and on their gateway sessions.
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
  it('is what the README shows', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const shown = /<!-- http-bot -->\s*```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(shown).toBe(readFileSync(join(root, 'examples', 'httpBot.mjs'), 'utf8'));
  });

  it('sets itself as the interactions endpoint and answers /hello inline; the member sees the answer', async () => {
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

    const [hello] = (await server.api('GET', `/applications/${app.applicationId}/commands`, { token: app.owner.token })).body as { id: string }[];
    const body = {
      type: 2,
      application_id: app.applicationId,
      guild_id: guild.id,
      channel_id: guild.channelId,
      data: { id: hello.id, name: 'hello', type: 1 },
    };
    expect((await server.api('POST', '/interactions', { token: member.token, body })).status).toBe(204);

    const content = `Hello, <@${member.id}>!`;
    const history = (await server.api('GET', `/channels/${guild.channelId}/messages?limit=5`, { token: member.token })).body as { content: string }[];
    expect(history[0]).toMatchObject({ content, author: { id: app.id }, interaction_metadata: { user: { id: member.id } } });
    expect((await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === content)).d.author.id).toBe(app.id);
    expect(bot.output()).toContain(`/hello from ${member.username}`);
  });
});
