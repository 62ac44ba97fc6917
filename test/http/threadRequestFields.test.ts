// Thread requests as discord.py 2.x makes them: TextChannel.create_thread and Message.create_thread send
// `rate_limit_per_user: null` when no slowmode is given, and create_thread sends `invitable` for every type of thread.
// The widely used API takes null as no slowmode (`?integer`) and ignores `invitable` outside private threads.
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { createGuild } from './guildSupport.js';

const server = await fileServer();

describe('thread request fields', () => {
  it('takes rate_limit_per_user: null as no slowmode, starting a thread with or without a message and changing one', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const started = await server.api('POST', `/channels/${guild.channelId}/threads`, {
      token,
      body: { name: 'no slowmode', type: 11, auto_archive_duration: 1440, rate_limit_per_user: null },
    });
    expect(started.status, started.text).toBe(201);
    expect(started.body.rate_limit_per_user).toBe(0);

    const message = await server.api('POST', `/channels/${guild.channelId}/messages`, { token, body: { content: 'thread me' } });
    const fromMessage = await server.api('POST', `/channels/${guild.channelId}/messages/${message.body.id}/threads`, {
      token,
      body: { name: 'from a message', auto_archive_duration: 1440, rate_limit_per_user: null },
    });
    expect(fromMessage.status, fromMessage.text).toBe(201);
    expect(fromMessage.body.rate_limit_per_user).toBe(0);

    const path = `/channels/${started.body.id}`;
    expect((await server.api('PATCH', path, { token, body: { rate_limit_per_user: 30 } })).body.rate_limit_per_user).toBe(30);
    const cleared = await server.api('PATCH', path, { token, body: { rate_limit_per_user: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.rate_limit_per_user).toBe(0);
    expect((await server.api('GET', path, { token })).body.rate_limit_per_user).toBe(0);
  });

  it('ignores invitable when starting a public thread, and keeps it for a private one', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const start = (type: number, invitable: boolean) =>
      server.api('POST', `/channels/${guild.channelId}/threads`, { token, body: { name: `type ${type}`, type, invitable } });
    const publicThread = await start(11, true);
    expect(publicThread.status, publicThread.text).toBe(201);
    expect(publicThread.body).toMatchObject({ type: 11, thread_metadata: { archived: false } });
    expect(publicThread.body.thread_metadata.invitable).toBeUndefined();
    const privateThread = await start(12, false);
    expect(privateThread.status, privateThread.text).toBe(201);
    expect(privateThread.body).toMatchObject({ type: 12, thread_metadata: { invitable: false } });
  });
});
