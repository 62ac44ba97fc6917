// Compatibility: @discordjs/rest, the REST client of discord.js, unchanged but for its base address, drives the
// message routes as a bot: send with a file, edit, react, pin, page through and delete; and discord.js's
// WebhookClient executes and changes a webhook the bot made.
import { createRequire } from 'node:module';
import { DiscordAPIError, REST } from '@discordjs/rest';
import { ButtonStyle, ComponentType, WebhookClient } from 'discord.js';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, grantRole, join } from '../http/guildSupport.js';
import { type TestServer, createBot, startTestServer } from '../support/server.js';

interface Message {
  id: string;
  content: string;
  attachments: { id: string; filename: string; url: string; width: number }[];
  embeds: { image?: { url: string } }[];
  reactions?: { emoji: { name: string }; count: number; me: boolean }[];
  pinned: boolean;
  edited_timestamp: string | null;
}

// The client's own undici (it pins another major than the test harness's): its FormData bodies need its own Agent,
// here one that trusts the test server's certificate.
type RestDispatcher = Parameters<REST['setAgent']>[0];
const { Agent } = createRequire(createRequire(import.meta.url).resolve('@discordjs/rest'))('undici') as {
  Agent: new (options: { connect: { ca: string; servername: string } }) => RestDispatcher;
};

let server: TestServer;
let rest: REST;
let agent: RestDispatcher;
let channelId: string;

beforeAll(async () => {
  server = await startTestServer();
  const guild = await createGuild(server);
  const bot = await join(server, guild, await createBot(server), 'Bot');
  // Pins and bulk deletes need MANAGE_MESSAGES, as a moderation bot would be given; webhooks MANAGE_WEBHOOKS.
  await grantRole(server, guild, bot, Permission.MANAGE_MESSAGES | Permission.MANAGE_WEBHOOKS);
  channelId = guild.channelId;
  rest = new REST({ api: `${server.origin}/api`, version: '1', retries: 0 }).setToken(bot.token);
  agent = new Agent({ connect: { ca: server.cert, servername: 'localhost' } });
  rest.setAgent(agent);
});
afterAll(async () => {
  await agent.close();
  await server.close();
});

describe('@discordjs/rest against the message routes', () => {
  it('sends with a file, edits, reacts, pins, pages through and deletes', async () => {
    const image = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#00aa55' } })
      .png()
      .toBuffer();
    const sent = (await rest.post(`/channels/${channelId}/messages`, {
      body: {
        content: 'with a file',
        attachments: [{ id: 0, description: 'green' }],
        embeds: [{ title: 'picture', image: { url: 'attachment://green.png' } }],
      },
      files: [{ name: 'green.png', data: image, contentType: 'image/png' }],
    })) as Message;
    expect(sent.content).toBe('with a file');
    expect(sent.attachments).toMatchObject([{ filename: 'green.png', width: 4 }]);
    expect(sent.embeds[0].image?.url).toBe(sent.attachments[0].url);
    const download = await request(sent.attachments[0].url, { dispatcher: server.dispatcher });
    expect(Buffer.from(await download.body.arrayBuffer()).equals(image)).toBe(true);

    const edited = (await rest.patch(`/channels/${channelId}/messages/${sent.id}`, { body: { content: 'edited' } })) as Message;
    expect(edited.content).toBe('edited');
    expect(edited.edited_timestamp).not.toBeNull();

    await rest.put(`/channels/${channelId}/messages/${sent.id}/reactions/${encodeURIComponent('🎉')}/@me`);
    await rest.put(`/channels/${channelId}/messages/pins/${sent.id}`);
    const fetched = (await rest.get(`/channels/${channelId}/messages/${sent.id}`)) as Message;
    expect(fetched.reactions).toMatchObject([{ emoji: { name: '🎉' }, count: 1, me: true }]);
    expect(fetched.pinned).toBe(true);
    const pins = (await rest.get(`/channels/${channelId}/messages/pins`)) as { items: { message: Message }[]; has_more: boolean };
    expect(pins.items.map((item) => item.message.id)).toEqual([sent.id]);
    const reactors = (await rest.get(`/channels/${channelId}/messages/${sent.id}/reactions/${encodeURIComponent('🎉')}`)) as { bot: boolean }[];
    expect(reactors).toMatchObject([{ bot: true }]);

    const later: Message[] = [];
    for (let i = 0; i < 5; i++) later.push((await rest.post(`/channels/${channelId}/messages`, { body: { content: `page ${i}` } })) as Message);
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ limit: '2', ...(before ? { before } : {}) });
      const page = (await rest.get(`/channels/${channelId}/messages`, { query })) as Message[];
      if (page.length === 0) break;
      seen.push(...page.map((m) => m.content));
      before = page[page.length - 1].id;
    }
    expect(seen.slice(0, 6)).toEqual(['page 4', 'page 3', 'page 2', 'page 1', 'page 0', 'edited']);

    await rest.delete(`/channels/${channelId}/messages/${sent.id}`);
    await rest.post(`/channels/${channelId}/messages/bulk-delete`, { body: { messages: later.slice(0, 2).map((m) => m.id) } });
    const gone = await rest.get(`/channels/${channelId}/messages/${sent.id}`).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(DiscordAPIError);
    expect(gone).toMatchObject({ status: 404, code: 'UNKNOWN_MESSAGE' });
    const remaining = (await rest.get(`/channels/${channelId}/messages`, { query: new URLSearchParams({ limit: '3' }) })) as Message[];
    expect(remaining.map((m) => m.content)).toEqual(['page 4', 'page 3', 'page 2']);
  });

  it('reads validation errors as DiscordAPIError with the code', async () => {
    const error = await rest.post(`/channels/${channelId}/messages`, { body: { content: '' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 400, code: 'CANNOT_SEND_EMPTY_MESSAGE' });
  });
});

describe('discord.js WebhookClient against the webhook routes', () => {
  it('executes with components and a name override, and renames the webhook through its token', async () => {
    const created = (await rest.post(`/channels/${channelId}/webhooks`, { body: { name: 'Compat hook' } })) as { id: string; token: string };
    const hook = new WebhookClient({ id: created.id, token: created.token }, { rest: { api: `${server.origin}/api`, version: '1', retries: 0 } });
    hook.rest.setAgent(agent);
    try {
      const sent = await hook.send({
        content: 'from a webhook',
        username: 'Override',
        components: [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.Button, style: ButtonStyle.Primary, label: 'Go', custom_id: 'go' }] }],
      });
      expect(sent).toMatchObject({
        content: 'from a webhook',
        webhook_id: created.id,
        author: { id: created.id, username: 'Override' },
        components: [{ type: 1 }],
      });
      const stored = (await rest.get(`/channels/${channelId}/messages/${sent.id}`)) as Message & { webhook_id: string };
      expect(stored.webhook_id).toBe(created.id);
      const renamed = await hook.edit({ name: 'Renamed hook' });
      expect(renamed).toMatchObject({ id: created.id, name: 'Renamed hook' });
    } finally {
      hook.destroy();
    }
  });
});
