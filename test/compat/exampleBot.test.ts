// The example bot a new user runs (`npm run demo`, examples/bot.mjs), as it is, against a fresh server: it answers
// "!ping", registers its slash commands, replies, defers and follows up, and updates its button's message on a click.
// What it does is read back through the API, as the member sees it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGuild, join as joinGuild } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';

const server = await fileServer();
let bot: BotProcess | null = null;
afterAll(() => {
  bot?.child.kill('SIGKILL');
});

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

const root = join(import.meta.dirname, '..', '..');

describe('examples/bot.mjs', () => {
  it('is what docs/compatibility.md shows', () => {
    const page = readFileSync(join(root, 'docs', 'compatibility.md'), 'utf8');
    const shown = /<!-- example-bot -->\s*```js\n([\s\S]*?)```/.exec(page)?.[1];
    expect(shown).toBe(readFileSync(join(root, 'examples', 'bot.mjs'), 'utf8'));
  });

  it('answers !ping and its slash commands, and updates its button on a click', async () => {
    const app = await createBot(server);
    const guild = await createGuild(server, app.owner);
    await joinGuild(server, guild, app, 'Bot');
    bot = startBotProcess(process.execPath, [join(root, 'examples', 'bot.mjs')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    });
    await until('login', async () => (bot!.output().includes('registered') ? true : undefined));
    const owner = app.owner;
    const messages = async () => (await server.api('GET', `/channels/${guild.channelId}/messages?limit=50`, { token: owner.token })).body as any[];
    const find = (test: (m: any) => boolean) => until('message', async () => (await messages()).find(test));

    await server.api('POST', `/channels/${guild.channelId}/messages`, { token: owner.token, body: { content: '!ping' } });
    await find((m) => m.content === 'pong (edited)' && m.author.id === app.id);

    const commands = (await server.api('GET', `/applications/${app.applicationId}/commands`, { token: owner.token })).body as { id: string; name: string }[];
    expect(commands.map((c) => c.name).sort()).toEqual(['button', 'ping', 'slow']);
    const invoke = async (name: string, options?: object[]) => {
      const command = commands.find((c) => c.name === name)!;
      const body = {
        type: 2,
        application_id: app.applicationId,
        guild_id: guild.id,
        channel_id: guild.channelId,
        data: { id: command.id, name, type: 1, ...(options ? { options } : {}) },
      };
      expect((await server.api('POST', '/interactions', { token: owner.token, body })).status).toBe(204);
    };

    await invoke('ping');
    const pong = await find((m) => m.content === 'pong' && m.interaction_metadata);
    expect(pong.interaction_metadata.user.id).toBe(owner.id);

    await invoke('slow');
    await find((m) => m.content === 'Thought about it: pong');
    const followUp = await find((m) => m.content === 'Only you see this follow-up');
    expect(followUp.flags & 64).toBe(64);

    await invoke('button', [{ name: 'label', type: 3, value: 'Go' }]);
    const posted = await find((m) => m.content === 'Nobody pressed it yet');
    expect(posted.components[0].components[0]).toMatchObject({ type: 2, label: 'Go', custom_id: 'press' });
    const click = await server.api('POST', '/interactions/click', {
      token: owner.token,
      body: { channel_id: guild.channelId, message_id: posted.id, custom_id: 'press' },
    });
    expect(click.status).toBe(204);
    const pressed = await find((m) => m.id === posted.id && m.content === `Pressed by ${owner.username}`);
    expect(pressed.components).toEqual([]);
  });
});
