// Components V2 and the reach of an interaction's token, over the real HTTPS API with real gateway sessions: layout
// messages (flag 1 << 15) sent by a bot, a webhook and an interaction response, stored, served and relayed, refused
// with their field paths (content beside the flag, a file the message does not have); buttons inside containers; and
// the webhook message routes of a click's token reaching the message whose button was pressed (deleted as the widely
// used API's getting-started app does), ephemeral responses and follow-ups, never another interaction's messages.
import { describe, expect, it } from 'vitest';
import { fileGateway } from '../support/gateway.js';
import { expectNothingAppendedSince } from '../support/server.js';
import { type InteractionWorld, callback, interactionWorld, invoked } from './commandInteractionSupport.js';
import { expectRefusedWithoutEvents } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

const IS_COMPONENTS_V2 = 1 << 15;
const world = (): Promise<InteractionWorld> => interactionWorld(server, clients, [{ name: 'challenge', description: 'Start one' }]);
const webhook = (w: InteractionWorld, token: string, path = '') => `/webhooks/${w.bot.applicationId}/${token}${path}`;

const LAYOUT = [
  {
    type: 17,
    accent_color: 0x5865f2,
    components: [
      { type: 10, content: '## A challenge' },
      { type: 9, components: [{ type: 10, content: 'Accept it?' }], accessory: { type: 2, style: 1, label: 'Accept', custom_id: 'accept' } },
      { type: 14, divider: true, spacing: 1 },
      { type: 12, items: [{ media: { url: 'https://example.test/a.png' }, description: 'A picture' }] },
    ],
  },
  { type: 1, components: [{ type: 2, style: 4, label: 'Decline', custom_id: 'decline' }] },
];

describe('Components V2', () => {
  it('a bot sends a layout message: stored, served and relayed as sent', async () => {
    const w = await world();
    const sent = await server.api('POST', `/channels/${w.guild.channelId}/messages`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: { flags: IS_COMPONENTS_V2, components: LAYOUT },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ content: '', flags: IS_COMPONENTS_V2, components: LAYOUT });
    const read = await server.api('GET', `/channels/${w.guild.channelId}/messages/${sent.body.id}`, { token: w.member.token });
    expect(read.body.components).toEqual(LAYOUT);
    const relayed = await w.memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === sent.body.id);
    expect(relayed.d).toMatchObject({ flags: IS_COMPONENTS_V2, components: LAYOUT });
    // The button in the section is usable like any other.
    const clicked = await server.api('POST', '/interactions/click', {
      token: w.member.token,
      body: { channel_id: w.guild.channelId, message_id: sent.body.id, custom_id: 'accept' },
    });
    expect(clicked.status).toBe(204);
    const d = (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 3)).d;
    expect(d.data).toEqual({ custom_id: 'accept', component_type: 2 });
    expect(d.message.components).toEqual(LAYOUT);
  });

  it('refuses content or embeds beside the flag, layout without it, and files the message does not have, at their paths', async () => {
    const w = await world();
    const send = (body: object) => () => server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.bot.token, scheme: 'Bot', body });
    const errorsOf = async (body: object) => {
      const before = await server.runtime.store.headPosition();
      const response = await send(body)();
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 400, code: 'INVALID_FORM_BODY' });
      await expectNothingAppendedSince(server, before);
      return response.body.errors;
    };
    expect(await errorsOf({ content: 'hi', flags: IS_COMPONENTS_V2, components: LAYOUT })).toEqual([
      { path: 'content', message: "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2" },
    ]);
    expect((await errorsOf({ embeds: [{ title: 't' }], flags: IS_COMPONENTS_V2, components: LAYOUT }))[0].path).toBe('embeds');
    expect((await errorsOf({ components: LAYOUT }))[0]).toMatchObject({ path: 'components.0.type' });
    expect(await errorsOf({ flags: IS_COMPONENTS_V2, components: [{ type: 13, file: { url: 'attachment://missing.txt' } }] })).toEqual([
      { path: 'components.0.file.url', message: 'Unknown attachment: missing.txt' },
    ]);
    expect((await errorsOf({ flags: IS_COMPONENTS_V2, components: [{ type: 10, content: 'x'.repeat(4001) }] }))[0].path).toBe('components.0.content');
    // The widely used API's own error format names the field's code.
    const v10 = await server.call('POST', `/api/v10/channels/${w.guild.channelId}/messages`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: { content: 'hi', flags: IS_COMPONENTS_V2, components: LAYOUT },
    });
    expect(v10.status).toBe(400);
    expect(JSON.stringify(v10.body)).toContain('MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2');
    // An edit cannot take the flag away, nor add content to a layout message.
    const sent = await send({ flags: IS_COMPONENTS_V2, components: LAYOUT })();
    const edit = (body: object) => () =>
      server.api('PATCH', `/channels/${w.guild.channelId}/messages/${sent.body.id}`, { token: w.bot.token, scheme: 'Bot', body });
    await expectRefusedWithoutEvents(server, edit({ content: 'now text', flags: 0 }), 400, 'INVALID_FORM_BODY');
    const edited = await edit({ flags: 0, components: [{ type: 10, content: 'still a layout' }] })();
    expect(edited.body).toMatchObject({ flags: IS_COMPONENTS_V2, components: [{ type: 10, content: 'still a layout' }] });
  });

  it('a webhook sends one with a file it attaches, and an interaction answers with one', async () => {
    const w = await world();
    const hook = await server.api('POST', `/channels/${w.guild.channelId}/webhooks`, { token: w.guild.owner.token, body: { name: 'hook' } });
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ flags: IS_COMPONENTS_V2, components: [{ type: 13, file: { url: 'attachment://notes.txt' } }] }));
    form.append('files[0]', new Blob(['hello'], { type: 'text/plain' }), 'notes.txt');
    const encoded = new Response(form);
    const posted = await server.api('POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, {
      rawBody: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type')! },
    });
    expect(posted.status).toBe(200);
    const message = posted.body;
    expect(message).toMatchObject({
      flags: IS_COMPONENTS_V2,
      components: [{ type: 13, file: { url: 'attachment://notes.txt' } }],
      attachments: [{ filename: 'notes.txt' }],
    });

    const d = await invoked(server, w, 'challenge');
    const answered = await callback(server, d, { type: 4, data: { flags: IS_COMPONENTS_V2 | 64, components: LAYOUT } }, '?with_response=true');
    expect(answered.status).toBe(200);
    expect(answered.body.resource.message).toMatchObject({ flags: IS_COMPONENTS_V2 | 64, components: LAYOUT });
    const followUp = await server.api('POST', webhook(w, d.token, '?wait=true'), {
      body: { flags: IS_COMPONENTS_V2, components: [{ type: 10, content: 'more' }] },
    });
    expect(followUp.body).toMatchObject({ flags: IS_COMPONENTS_V2, components: [{ type: 10, content: 'more' }] });
  });
});

describe("an interaction's token reaches every message the interaction made", () => {
  /** /challenge answered with a message holding a button, and the member's click on it. */
  async function challenged(w: InteractionWorld, flags = 0) {
    const command = await invoked(server, w, 'challenge');
    const answer = await callback(server, command, { type: 4, data: { content: 'Accept?', flags, components: [LAYOUT[1]] } }, '?with_response=true');
    expect(answer.status).toBe(200);
    const message = answer.body.resource.message;
    const clicked = await server.api('POST', '/interactions/click', {
      token: w.member.token,
      body: { channel_id: w.guild.channelId, message_id: message.id, custom_id: 'decline' },
    });
    expect(clicked.status).toBe(204);
    const click = (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 3 && p.d.message.id === message.id)).d;
    return { command, message, click };
  }

  it('a click’s token deletes the message whose button was pressed, after answering with a new one', async () => {
    const w = await world();
    const { message, click } = await challenged(w);
    expect((await callback(server, click, { type: 4, data: { content: 'Declined', flags: 64 } })).status).toBe(204);
    expect((await server.api('DELETE', webhook(w, click.token, `/messages/${message.id}`))).status).toBe(204);
    const gone = await server.api('GET', `/channels/${w.guild.channelId}/messages/${message.id}`, { token: w.member.token });
    expect(gone.status).toBe(404);
  });

  it('after UPDATE_MESSAGE the click’s token edits that message by id and as @original, ephemeral ones included', async () => {
    const w = await world();
    const { message, click } = await challenged(w, 64);
    expect((await callback(server, click, { type: 7, data: { content: 'Updated' } })).status).toBe(204);
    const byId = await server.api('PATCH', webhook(w, click.token, `/messages/${message.id}`), { body: { content: 'by id', components: [] } });
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: message.id, content: 'by id', flags: 64 });
    const original = await server.api('PATCH', webhook(w, click.token, '/messages/@original'), { body: { content: 'as original' } });
    expect(original.body).toMatchObject({ id: message.id, content: 'as original' });
    // Ephemeral follow-ups too.
    const followUp = await server.api('POST', webhook(w, click.token, '?wait=true'), { body: { content: 'secret', flags: 64 } });
    expect(followUp.body.flags & 64).toBe(64);
    expect((await server.api('PATCH', webhook(w, click.token, `/messages/${followUp.body.id}`), { body: { content: 'still secret' } })).body.content).toBe(
      'still secret',
    );
    expect((await server.api('DELETE', webhook(w, click.token, `/messages/${followUp.body.id}`))).status).toBe(204);
    expect((await server.api('DELETE', webhook(w, click.token, `/messages/${message.id}`))).status).toBe(204);
  });

  it("another interaction's token does not reach them", async () => {
    const w = await world();
    const first = await challenged(w);
    const second = await challenged(w);
    const reply = await callback(server, first.click, { type: 4, data: { content: 'Declined' } }, '?with_response=true');
    const foreign = [first.message.id, reply.body.resource.message.id];
    for (const id of foreign) {
      await expectRefusedWithoutEvents(server, () => server.api('DELETE', webhook(w, second.click.token, `/messages/${id}`)), 404, 'UNKNOWN_MESSAGE');
      await expectRefusedWithoutEvents(
        server,
        () => server.api('PATCH', webhook(w, second.command.token, `/messages/${id}`), { body: { content: 'no' } }),
        404,
        'UNKNOWN_MESSAGE',
      );
    }
    // A click on a plain bot message reaches no message of an interaction: the bot's own message is not its to delete.
    const plain = await server.api('POST', `/channels/${w.guild.channelId}/messages`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: { content: 'plain', components: [LAYOUT[1]] },
    });
    await server.api('POST', '/interactions/click', {
      token: w.member.token,
      body: { channel_id: w.guild.channelId, message_id: plain.body.id, custom_id: 'decline' },
    });
    const click = (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 3 && p.d.message.id === plain.body.id)).d;
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', webhook(w, click.token, `/messages/${plain.body.id}`)), 404, 'UNKNOWN_MESSAGE');
    // A token that is no interaction's is answered as the webhook routes answer it: no such webhook.
    const forged = () => server.api('DELETE', webhook(w, 'bm90LWEtdG9rZW4', `/messages/${first.message.id}`));
    await expectRefusedWithoutEvents(server, forged, 404, 'UNKNOWN_WEBHOOK');
    // Another interaction's token forged to name this one: 401.
    const [, , secret] = Buffer.from(second.click.token, 'base64url').toString('latin1').split(':');
    const named = Buffer.from(`interaction:${first.click.id}:${secret}`).toString('base64url');
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', webhook(w, named, `/messages/${first.message.id}`)), 401, 'INVALID_WEBHOOK_TOKEN');
  });
});
