// INTERACTION_CREATE on real WebSocket sessions: READY tells the bot its application; an interaction reaches every
// session of its bot, whatever the session's intents, and no one else's (not another bot in the same guild, not the
// invoker); a bot that dropped its connection gets it on RESUME; the dispatch comes from the log, not the request.
import { describe, expect, it } from 'vitest';
import { InteractionCreate } from '../../contracts/dispatches.js';
import { createGuild, join } from '../http/guildSupport.js';
import { interactionWorld, invoke } from '../http/commandInteractionSupport.js';
import { type Payload, fileGateway } from '../support/gateway.js';
import { createBot } from '../support/server.js';
import { expectShape } from '../support/shapes.js';

const { server, gateway: clients } = await fileGateway();

const COMMANDS = [{ name: 'ping', description: 'Pong' }];
const interactions = (received: Payload[]) => received.filter((p) => p.t === 'INTERACTION_CREATE');

describe('INTERACTION_CREATE', () => {
  it('READY carries the application of the bot', async () => {
    const app = await createBot(server);
    const guild = await createGuild(server);
    await join(server, guild, app, 'Bot');
    const client = await clients.connect();
    const ready = await client.identify(app.token, 0);
    expect(ready.d.application).toEqual({ id: app.applicationId, flags: 0 });
  });

  it('goes to every session of the bot, with no intent needed, and to no other session', async () => {
    const w = await interactionWorld(server, clients, COMMANDS);
    const second = await clients.session(w.bot.token, 0);
    const rival = await join(server, w.guild, await createBot(server), 'Bot');
    const rivalSession = await clients.session(rival.token, 1 | (1 << 9) | (1 << 15));

    expect((await invoke(server, w, 'ping')).status).toBe(204);
    const [first, other] = await Promise.all([w.botSession.dispatch('INTERACTION_CREATE'), second.dispatch('INTERACTION_CREATE')]);
    expect(other.d).toEqual(first.d);
    expect(first.d).toMatchObject({ type: 2, data: { name: 'ping' }, member: { user: { id: w.member.id } } });
    expectShape(first.d, InteractionCreate);

    // A later message everyone sees arrives after it: by then nobody else has had an interaction.
    const marker = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.guild.owner.token, body: { content: 'marker' } });
    for (const session of [w.memberSession, w.otherSession, rivalSession]) {
      await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === marker.body.id);
      expect(interactions(session.received)).toEqual([]);
    }
  });

  it('is replayed to a bot that RESUMEs after a drop', async () => {
    const w = await interactionWorld(server, clients, COMMANDS);
    const ready = w.botSession.received.find((p) => p.t === 'READY')!;
    const seq = w.botSession.lastSeq();
    w.botSession.drop();
    await w.botSession.closed;

    expect((await invoke(server, w, 'ping')).status).toBe(204);
    const resumed = await clients.connect();
    await resumed.next((p) => p.op === 10);
    resumed.send({ op: 6, d: { token: w.bot.token, session_id: ready.d.session_id, seq } });
    const replayed = await resumed.dispatch('INTERACTION_CREATE');
    expect(replayed.s).toBeGreaterThan(seq);
    expect(replayed.d).toMatchObject({ data: { name: 'ping' }, token: expect.any(String) });
    await resumed.dispatch('RESUMED');
  });

  it('comes from the log: a refused invocation sends nothing, an accepted one once', async () => {
    const w = await interactionWorld(server, clients, COMMANDS);
    expect((await invoke(server, w, 'ping', [{ type: 3, name: 'nope', value: 'x' }])).status).toBe(400);
    expect((await invoke(server, w, 'ping')).status).toBe(204);
    const d = (await w.botSession.dispatch('INTERACTION_CREATE')).d;
    const marker = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.guild.owner.token, body: { content: 'marker' } });
    await w.botSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === marker.body.id);
    expect(interactions(w.botSession.received).map((p) => p.d.id)).toEqual([d.id]);
    const events = await server.runtime.store.readStream(`command-interaction-${d.id}`);
    expect(events.map((e) => e.type)).toEqual(['InteractionCreated']);
  });
});
