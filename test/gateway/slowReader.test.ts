// A client that stops reading its socket: what the server has for it waits in the connection's outbound buffer, which
// is bounded (GATEWAY_OUTBOUND_BUFFER_BYTES). Past the bound the connection is closed with 1013, and the session keeps
// what the client missed: a RESUME gets it, in order, however much more than the bound it is.
import { describe, expect, it } from 'vitest';
import { CLIENT_NOT_READING } from '../../gateway/session.js';
import { connectGateway, fileGateway } from '../support/gateway.js';
import { createGuild } from '../http/guildSupport.js';

const { server, gateway } = await fileGateway({ GATEWAY_OUTBOUND_BUFFER_BYTES: String(64 * 1024) });
const guild = await createGuild(server);
const GUILDS_MESSAGES_CONTENT = (1 << 0) | (1 << 9) | (1 << 15);
/**
 * About 8 KiB a dispatch, a message's most text: the bound and the megabytes the kernel's socket buffers take before
 * it are passed within a few hundred sends.
 */
const bulky = (i: number) => ({ content: `${i} ${'c'.repeat(1990)}`, embeds: [{ description: 'd'.repeat(4096), footer: { text: 'f'.repeat(1900) } }] });

describe('a gateway client that stops reading', () => {
  it('is closed with 1013 once its outbound buffer is full, and RESUMEs to what it missed', async () => {
    const stuck = await gateway.session(guild.owner.token, GUILDS_MESSAGES_CONTENT);
    const ready = stuck.received.find((p) => p.t === 'READY')!;
    const session = server.gateway!.registry.get(ready.d.session_id)!;
    const startReading = stuck.stopReading();
    let sent = 0;
    // Until the server lets the connection go (each send's dispatch is queued for it), a few sends at a time; bounded,
    // so a server that never does fails here instead of sending forever.
    while (session.connection !== null && sent < 4000) {
      const batch = Array.from({ length: 8 }, (_, i) =>
        server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: bulky(sent + i) }),
      );
      sent += batch.length;
      expect(new Set((await Promise.all(batch)).map((response) => response.status))).toEqual(new Set([200]));
    }
    expect(session.connection).toBeNull();

    startReading();
    expect((await stuck.closed).code).toBe(CLIENT_NOT_READING);
    const lastSeen = stuck.lastSeq();
    const resuming = await connectGateway(server);
    await resuming.next((p) => p.op === 10);
    resuming.send({ op: 6, d: { token: guild.owner.token, session_id: ready.d.session_id, seq: lastSeen } });
    await resuming.dispatch('RESUMED');
    // Every dispatch after the last one it read, in order, up to the last message sent.
    const replayed = resuming.received.filter((p) => p.op === 0 && p.t !== 'RESUMED');
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.map((p) => p.s)).toEqual(replayed.map((_, i) => lastSeen + 1 + i));
    expect(replayed.filter((p) => p.t === 'MESSAGE_CREATE').length).toBe(replayed.length);
    expect(replayed.map((p) => p.d.content).sort()).toContain(bulky(sent - 1).content);
    resuming.close();
  });

  it('RESUMEs to more than its outbound buffer holds without being closed for it, and gets what is sent after', async () => {
    const away = await gateway.session(guild.owner.token, GUILDS_MESSAGES_CONTENT);
    const ready = away.received.find((p) => p.t === 'READY')!;
    const lastSeen = away.lastSeq();
    away.drop();
    await away.closed;
    // About 160 KiB missed, two and a half times the bound.
    const missed: string[] = [];
    for (let i = 0; i < 20; i++) {
      const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: bulky(i) });
      expect(sent.status).toBe(200);
      missed.push(sent.body.id);
    }
    const resuming = await gateway.connect();
    await resuming.next((p) => p.op === 10);
    resuming.send({ op: 6, d: { token: guild.owner.token, session_id: ready.d.session_id, seq: lastSeen } });
    await resuming.dispatch('RESUMED', 30_000);
    const replayed = resuming.received.filter((p) => p.t === 'MESSAGE_CREATE').map((p) => p.d.id);
    expect(replayed).toEqual(missed);
    const after = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: 'after the replay' } });
    await resuming.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === after.body.id);
    resuming.close();
  });
});
