// The bot's answers over the real HTTPS API: the initial response (4 reply, 5 deferred, 6 deferred update, 7 update)
// with and without ?with_response, then follow-ups and the response messages through the interaction's webhook
// routes; ephemeral answers only for the invoker (history and gateway); components of the bot's messages reaching the
// bot as interactions; every refusal without an event; the 15-minute token.
import { describe, expect, it, vi } from 'vitest';
import { fileGateway } from '../support/gateway.js';
import { type InteractionWorld, callback, history, interactionWorld, invoked } from './commandInteractionSupport.js';
import { expectError, expectRefusedWithoutEvents } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

const world = (): Promise<InteractionWorld> => interactionWorld(server, clients, [{ name: 'ping', description: 'Pong' }]);

/** The events appended while `act` ran, as [stream, type]. */
async function appendedBy(act: () => Promise<unknown>) {
  const before = await server.runtime.store.headPosition();
  await act();
  const all = await server.runtime.store.readAll(before ? { fromPosition: before } : {});
  return all.filter((e) => !before || e.position.commit > before.commit);
}

const webhook = (w: InteractionWorld, token: string, path = '') => `/webhooks/${w.bot.applicationId}/${token}${path}`;
const BUTTON_ROW = [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }];

/** The bot's message with a button, and the member's click on it; resolves with the bot's INTERACTION_CREATE (type 3). */
async function clicked(w: InteractionWorld, components: unknown[] = BUTTON_ROW, click: object = { custom_id: 'go' }) {
  const sent = await server.api('POST', `/channels/${w.guild.channelId}/messages`, {
    token: w.bot.token,
    scheme: 'Bot',
    body: { content: 'choose', components },
  });
  expect(sent.status).toBe(200);
  const response = await server.api('POST', '/interactions/click', {
    token: w.member.token,
    body: { channel_id: w.guild.channelId, message_id: sent.body.id, ...click },
  });
  expect(response.status).toBe(204);
  const d = (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 3 && p.d.message.id === sent.body.id)).d;
  return { message: sent.body, d };
}

describe('POST /interactions/:id/:token/callback', () => {
  it('4 replies with a message by the bot naming the command and its invoker, seen by everyone in the channel', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    const events = await appendedBy(async () => expect((await callback(server, d, { type: 4, data: { content: 'Pong!' } })).status).toBe(204));
    expect(events.map((e) => [e.streamId.replace(/-\d+$/, ''), e.type])).toEqual([
      ['command-interaction', 'InteractionResponded'],
      ['message', 'MessageCreated'],
    ]);
    const [reply] = await history(server, w, w.other);
    expect(reply).toMatchObject({
      content: 'Pong!',
      type: 20,
      author: { id: w.bot.id, bot: true },
      webhook_id: w.bot.applicationId,
      application_id: w.bot.applicationId,
      interaction_metadata: {
        id: d.id,
        type: 2,
        user: { id: w.member.id },
        name: 'ping',
        command_type: 1,
        authorizing_integration_owners: { '0': w.guild.id },
      },
      interaction: { id: d.id, type: 2, name: 'ping', user: { id: w.member.id } },
    });
    expect(events[0].data).toMatchObject({ interactionId: d.id, responseType: 4, messageId: reply.id });
    for (const session of [w.memberSession, w.otherSession]) await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === reply.id);
  });

  it('refuses a second response, a wrong token, an unknown interaction and a bad body, appending nothing', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    await expectRefusedWithoutEvents(
      server,
      () => callback(server, { id: d.id, token: `${d.token}x` }, { type: 4, data: { content: 'x' } }),
      401,
      'INVALID_WEBHOOK_TOKEN',
    );
    await expectRefusedWithoutEvents(
      server,
      () => callback(server, { id: '123456789012345678', token: d.token }, { type: 4, data: { content: 'x' } }),
      404,
      'UNKNOWN_INTERACTION',
    );
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 4, data: { content: 'x'.repeat(2001) } }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 4, data: { content: '' } }), 400, 'CANNOT_SEND_EMPTY_MESSAGE');
    await expectRefusedWithoutEvents(
      server,
      () => callback(server, d, { type: 9, data: { custom_id: 'm', title: 'Modal', components: [] } }),
      400,
      'INVALID_FORM_BODY',
    );
    // Updates are for component interactions.
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 7, data: { content: 'x' } }), 400, 'INVALID_FORM_BODY');
    const bad = await callback(server, d, { type: 4, data: { embeds: [{ title: 'x'.repeat(300) }] } });
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'data.embeds.0.title' })]);

    // Still unanswered: the first good response stands, the next is refused.
    expect((await callback(server, d, { type: 4, data: { content: 'first' } })).status).toBe(204);
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 4, data: { content: 'second' } }), 400, 'INTERACTION_ALREADY_ACKNOWLEDGED');
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 5 }), 400, 'INTERACTION_ALREADY_ACKNOWLEDGED');
    expect((await history(server, w, w.member)).filter((m) => m.interaction_metadata?.id === d.id).map((m) => m.content)).toEqual(['first']);
  });

  it('answers only one of two concurrent responses', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    const statuses = (await Promise.all([1, 2, 3].map((n) => callback(server, d, { type: 4, data: { content: `answer ${n}` } })))).map((r) => r.status);
    expect(statuses.sort()).toEqual([204, 400, 400]);
    expect((await history(server, w, w.member)).filter((m) => m.interaction_metadata?.id === d.id)).toHaveLength(1);
  });

  it('an ephemeral reply is seen by the invoker only, in the history and on the gateway', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    expect((await callback(server, d, { type: 4, data: { content: 'just for you', flags: 64 } })).status).toBe(204);
    const [mine] = await history(server, w, w.member);
    expect(mine).toMatchObject({ content: 'just for you', flags: 64 });
    expect((await history(server, w, w.other)).some((m) => m.id === mine.id)).toBe(false);
    expect((await history(server, w, w.guild.owner)).some((m) => m.id === mine.id)).toBe(false);
    expectError(await server.api('GET', `/channels/${w.guild.channelId}/messages/${mine.id}`, { token: w.other.token }), 404, 'UNKNOWN_MESSAGE');
    expect((await server.api('GET', `/channels/${w.guild.channelId}/messages/${mine.id}`, { token: w.member.token })).status).toBe(200);
    await w.memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === mine.id);
    // A public message posted after it reaches the other member first: the ephemeral one never does.
    const later = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.member.token, body: { content: 'after' } });
    await w.otherSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === later.body.id);
    expect(w.otherSession.received.some((p) => p.t === 'MESSAGE_CREATE' && p.d.id === mine.id)).toBe(false);
  });

  it('5 defers: a loading message, with_response names it; the edit of @original fills it; follow-ups follow', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    const deferred = await callback(server, d, { type: 5 }, '?with_response=true');
    expect(deferred.status).toBe(200);
    expect(deferred.body).toMatchObject({
      interaction: { id: d.id, type: 2, response_message_loading: true, response_message_ephemeral: false },
      resource: { type: 5, message: { content: '', flags: 128, type: 20, author: { id: w.bot.id } } },
    });
    const original = deferred.body.resource.message;
    expect(deferred.body.interaction.response_message_id).toBe(original.id);

    const edited = await server.api('PATCH', webhook(w, d.token, '/messages/@original'), { body: { content: 'Done thinking' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: original.id, content: 'Done thinking', flags: 0 });
    await w.memberSession.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === original.id && p.d.content === 'Done thinking');
    expect((await server.api('GET', webhook(w, d.token, '/messages/@original'))).body).toMatchObject({ id: original.id, content: 'Done thinking' });

    const followUp = await server.api('POST', webhook(w, d.token, '?wait=true'), { body: { content: 'one more thing' } });
    expect(followUp.status).toBe(200);
    expect(followUp.body).toMatchObject({
      content: 'one more thing',
      type: 20,
      webhook_id: w.bot.applicationId,
      interaction_metadata: { id: d.id, original_response_message_id: original.id },
    });
    expect((await server.api('PATCH', webhook(w, d.token, `/messages/${followUp.body.id}`), { body: { content: 'changed' } })).body.content).toBe('changed');
    expect((await server.api('POST', webhook(w, d.token), { body: { content: 'no wait' } })).status).toBe(204);
    expect((await server.api('DELETE', webhook(w, d.token, `/messages/${followUp.body.id}`))).status).toBe(204);
    await w.memberSession.next((p) => p.t === 'MESSAGE_DELETE' && p.d.id === followUp.body.id);
    expect((await history(server, w, w.member)).filter((m) => m.interaction_metadata?.id === d.id).map((m) => m.content)).toEqual(['no wait', 'Done thinking']);

    // Messages of anything else are not the interaction's.
    const unrelated = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.bot.token, scheme: 'Bot', body: { content: 'plain' } });
    expectError(await server.api('GET', webhook(w, d.token, `/messages/${unrelated.body.id}`)), 404, 'UNKNOWN_MESSAGE');
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', webhook(w, d.token, `/messages/${unrelated.body.id}`)), 404, 'UNKNOWN_MESSAGE');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', webhook(w, d.token, '/messages/@original'), { body: { content: '' } }),
      400,
      'CANNOT_SEND_EMPTY_MESSAGE',
    );
  });

  it('the first follow-up of a deferred response fills it, keeping it ephemeral', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    expect((await callback(server, d, { type: 5, data: { flags: 64 } })).status).toBe(204);
    const first = await server.api('POST', webhook(w, d.token, '?wait=true'), { body: { content: 'filled' } });
    expect(first.body).toMatchObject({ content: 'filled', flags: 64 });
    const second = await server.api('POST', webhook(w, d.token, '?wait=true'), { body: { content: 'public follow-up' } });
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.flags).toBe(0);
    expect((await history(server, w, w.member)).map((m) => m.content).slice(0, 2)).toEqual(['public follow-up', 'filled']);
    expect((await history(server, w, w.other)).map((m) => m.content)).not.toContain('filled');
  });

  it('takes a reply with files as multipart (payload_json and files[n])', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ type: 4, data: { content: 'with a file', attachments: [{ id: 0 }] } }));
    form.append('files[0]', new Blob([Buffer.from('file body')], { type: 'text/plain' }), 'note.txt');
    const request = new Request('https://x/', { method: 'POST', body: form });
    const response = await server.call('POST', `/api/v1/interactions/${d.id}/${d.token}/callback?with_response=true`, {
      rawBody: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type')! },
    });
    expect(response.status).toBe(200);
    expect(response.body.resource.message).toMatchObject({ content: 'with a file', attachments: [expect.objectContaining({ filename: 'note.txt', size: 9 })] });
  });

  it('follow-ups need a response first; after 15 minutes the token answers nothing more', async () => {
    const w = await world();
    const d = await invoked(server, w, 'ping');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', webhook(w, d.token, '?wait=true'), { body: { content: 'early' } }),
      404,
      'UNKNOWN_WEBHOOK',
    );
    expectError(await server.api('GET', webhook(w, d.token, '/messages/@original')), 404, 'UNKNOWN_MESSAGE');
    expect((await callback(server, d, { type: 4, data: { content: 'in time' } })).status).toBe(204);
    const late = vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + 15 * 60 * 1000 + 1000);
    try {
      await expectRefusedWithoutEvents(
        server,
        () => server.api('POST', webhook(w, d.token, '?wait=true'), { body: { content: 'late' } }),
        401,
        'INVALID_WEBHOOK_TOKEN',
      );
      await expectRefusedWithoutEvents(
        server,
        () => server.api('PATCH', webhook(w, d.token, '/messages/@original'), { body: { content: 'late' } }),
        401,
        'INVALID_WEBHOOK_TOKEN',
      );
      const other = await invoked(server, w, 'ping');
      expect((await callback(server, other, { type: 4, data: { content: 'still fresh' } })).status).toBe(204);
    } finally {
      late.mockRestore();
    }
    const stale = await invoked(server, w, 'ping');
    const later = vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + 15 * 60 * 1000 + 1000);
    try {
      await expectRefusedWithoutEvents(server, () => callback(server, stale, { type: 4, data: { content: 'too late' } }), 404, 'UNKNOWN_INTERACTION');
    } finally {
      later.mockRestore();
    }
  });
});

describe('components of a bot’s messages', () => {
  it('a click reaches the bot as INTERACTION_CREATE type 3 with the message; 7 updates that message', async () => {
    const w = await world();
    const { message, d } = await clicked(w);
    expect(d).toMatchObject({
      type: 3,
      application_id: w.bot.applicationId,
      channel_id: w.guild.channelId,
      data: { custom_id: 'go', component_type: 2 },
      message: { id: message.id, content: 'choose', components: BUTTON_ROW, author: { id: w.bot.id } },
      member: { user: { id: w.member.id } },
      token: expect.any(String),
    });
    const events = await appendedBy(async () => {
      const updated = await callback(server, d, { type: 7, data: { content: 'chosen', components: [] } }, '?with_response=true');
      expect(updated.status).toBe(200);
      expect(updated.body.resource).toMatchObject({ type: 7, message: { id: message.id, content: 'chosen', components: [] } });
    });
    expect(events.map((e) => e.type)).toEqual(['InteractionResponded', 'MessageEdited']);
    await w.memberSession.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === message.id && p.d.content === 'chosen');
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 7, data: { content: 'again' } }), 400, 'INTERACTION_ALREADY_ACKNOWLEDGED');
  });

  it('6 acknowledges; @original is then the component’s message, which the bot edits', async () => {
    const w = await world();
    const { message, d } = await clicked(
      w,
      [
        {
          type: 1,
          components: [
            {
              type: 3,
              custom_id: 'pick',
              options: [
                { label: 'A', value: 'a' },
                { label: 'B', value: 'b' },
              ],
            },
          ],
        },
      ],
      {
        custom_id: 'pick',
        values: ['b'],
      },
    );
    expect(d.data).toEqual({ custom_id: 'pick', component_type: 3, values: ['b'] });
    const events = await appendedBy(async () => expect((await callback(server, d, { type: 6 })).status).toBe(204));
    expect(events.map((e) => e.type)).toEqual(['InteractionResponded']);
    const edited = await server.api('PATCH', webhook(w, d.token, '/messages/@original'), { body: { content: 'you picked b', components: [] } });
    expect(edited.body).toMatchObject({ id: message.id, content: 'you picked b', components: [] });
  });

  it('4 to a click replies to the component’s message', async () => {
    const w = await world();
    const { message, d } = await clicked(w);
    expect((await callback(server, d, { type: 4, data: { content: 'clicked!' } })).status).toBe(204);
    const [reply] = await history(server, w, w.member);
    expect(reply).toMatchObject({
      content: 'clicked!',
      type: 19,
      message_reference: { message_id: message.id },
      interaction_metadata: { id: d.id, type: 3, user: { id: w.member.id }, interacted_message_id: message.id },
    });
    expect((reply as Record<string, unknown>).interaction).toBeUndefined();
    // A button on the bot's reply reaches the bot too.
    const withButton = await callback(server, (await clicked(w)).d, { type: 4, data: { content: 'again?', components: BUTTON_ROW } }, '?with_response=true');
    const replyId = withButton.body.resource.message.id;
    expect(
      (
        await server.api('POST', '/interactions/click', {
          token: w.member.token,
          body: { channel_id: w.guild.channelId, message_id: replyId, custom_id: 'go' },
        })
      ).status,
    ).toBe(204);
    await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.message?.id === replyId);
  });

  it('clicks on a webhook’s message keep to the webhook: recorded for its interaction_url, no bot hears of them', async () => {
    const w = await world();
    const hook = await server.api('POST', `/channels/${w.guild.channelId}/webhooks`, { token: w.guild.owner.token, body: { name: 'Hook' } });
    const posted = await server.api('POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, { body: { content: 'hooked', components: BUTTON_ROW } });
    const events = await appendedBy(async () => {
      const click = await server.api('POST', '/interactions/click', {
        token: w.member.token,
        body: { channel_id: w.guild.channelId, message_id: posted.body.id, custom_id: 'go' },
      });
      expect(click.status).toBe(204);
    });
    expect(events.map((e) => e.type)).toEqual(['InteractionClicked']);
    expect(events[0].data).toMatchObject({ webhookId: hook.body.id, deliveryUrl: null });
    // The bot's next interaction is the first it gets.
    const d = await invoked(server, w, 'ping');
    expect(w.botSession.received.filter((p) => p.t === 'INTERACTION_CREATE').map((p) => p.d.id)).toEqual([d.id]);
  });
});

describe('the webhook routes they share', () => {
  it('a real webhook’s token still executes it; its messages are not reachable through these routes', async () => {
    const w = await world();
    const hook = await server.api('POST', `/channels/${w.guild.channelId}/webhooks`, { token: w.guild.owner.token, body: { name: 'Hook' } });
    const executed = await server.api('POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, { body: { content: 'from the hook' } });
    expect(executed.body).toMatchObject({ content: 'from the hook', webhook_id: hook.body.id });
    expectError(await server.api('GET', `/webhooks/${hook.body.id}/${hook.body.token}/messages/${executed.body.id}`), 404, 'UNKNOWN_MESSAGE');
    expectError(await server.api('GET', `/webhooks/${hook.body.id}/wrong/messages/@original`), 401, 'INVALID_WEBHOOK_TOKEN');
    expectError(
      await server.api('PATCH', `/webhooks/${w.bot.applicationId}/not-a-token/messages/@original`, { body: { content: 'x' } }),
      404,
      'UNKNOWN_WEBHOOK',
    );
    // An interaction token under another application's id opens nothing.
    const d = await invoked(server, w, 'ping');
    expectError(await server.api('POST', `/webhooks/${hook.body.id}/${d.token}`, { body: { content: 'x' } }), 401, 'INVALID_WEBHOOK_TOKEN');
  });
});
