// Modals over the real HTTPS API and gateway: a bot answers a command or a component with a modal (response 9); the
// invoking user's sessions, and theirs only, receive it as INTERACTION_MODAL_CREATE; the user submits it
// (POST /interactions type 5), checked against the modal shown; the bot receives MODAL_SUBMIT and answers it with
// anything but another modal. Every refusal appends nothing.
import { describe, expect, it, vi } from 'vitest';
import { fileGateway } from '../support/gateway.js';
import { type ApiResponse, expectNothingAppendedSince } from '../support/server.js';
import { type InteractionWorld, callback, history, interactionWorld, invoked } from './commandInteractionSupport.js';
import { expectError, expectRefusedWithoutEvents } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

const world = (): Promise<InteractionWorld> => interactionWorld(server, clients, [{ name: 'feedback', description: 'Tell us' }]);

const MODAL = {
  custom_id: 'feedback-form',
  title: 'Your feedback',
  components: [
    { type: 1, components: [{ type: 4, custom_id: 'subject', style: 1, label: 'Subject', min_length: 3, max_length: 20, placeholder: 'In a few words' }] },
    { type: 1, components: [{ type: 4, custom_id: 'details', style: 2, label: 'Details', required: false, value: 'Nothing more' }] },
  ],
};

/** The member's client submitting the modal that interaction `shownBy` showed. */
function submit(w: InteractionWorld, shownBy: string, values: Record<string, string>, over: { token?: string; data?: object; channelId?: string } = {}) {
  const components = Object.entries(values).map(([custom_id, value]) => ({ type: 1, components: [{ type: 4, custom_id, value }] }));
  return server.api('POST', '/interactions', {
    token: over.token ?? w.member.token,
    body: {
      type: 5,
      application_id: w.bot.applicationId,
      guild_id: w.guild.id,
      channel_id: over.channelId ?? w.guild.channelId,
      data: { id: shownBy, custom_id: MODAL.custom_id, components, ...over.data },
      nonce: '5678',
      session_id: 'a-session',
    },
  });
}

/** The member invokes /feedback and the bot answers with the modal; resolves with the bot's interaction. */
async function shown(w: InteractionWorld) {
  const d = await invoked(server, w, 'feedback');
  expect((await callback(server, d, { type: 9, data: MODAL })).status).toBe(204);
  await w.memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE' && p.d.id === d.id);
  return d;
}

/** The member's submit, accepted; resolves with the bot's MODAL_SUBMIT. */
async function submitted(w: InteractionWorld, shownBy: string, values: Record<string, string>) {
  expect((await submit(w, shownBy, values)).status).toBe(204);
  return (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 5 && p.d.data.custom_id === MODAL.custom_id)).d;
}

const paths = (response: ApiResponse) => (response.body.errors as { path: string }[]).map((e) => e.path).sort();

describe('a modal (response 9)', () => {
  it('goes to the invoking user’s sessions alone as INTERACTION_MODAL_CREATE, with the nonce their client sent; no message is made', async () => {
    const w = await world();
    const d = await invoked(server, w, 'feedback');
    const before = await history(server, w, w.member);
    const answered = await callback(server, d, { type: 9, data: MODAL }, '?with_response=true');
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ interaction: { id: d.id, type: 2 }, resource: { type: 9 } });
    const modal = await w.memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE');
    expect(modal.d).toEqual({
      id: d.id,
      application_id: w.bot.applicationId,
      channel_id: w.guild.channelId,
      guild_id: w.guild.id,
      nonce: '1234',
      ...MODAL,
    });
    // A dispatch after the modal's reaches everyone: the modal's, before it, reached only the member.
    const marker = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.member.token, body: { content: 'marker' } });
    for (const session of [w.otherSession, w.botSession]) {
      await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === marker.body.id);
      expect(session.received.some((p) => p.t === 'INTERACTION_MODAL_CREATE')).toBe(false);
    }
    expect((await history(server, w, w.member)).slice(1)).toEqual(before);
    // A modal is the response: nothing more answers the interaction, and it has no message to follow up.
    await expectRefusedWithoutEvents(server, () => callback(server, d, { type: 4, data: { content: 'x' } }), 400, 'INTERACTION_ALREADY_ACKNOWLEDGED');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/webhooks/${w.bot.applicationId}/${d.token}`, { body: { content: 'x' } }),
      404,
      'UNKNOWN_WEBHOOK',
    );
  });

  it('is validated whole, its problems at their paths, appending nothing', async () => {
    const w = await world();
    const d = await invoked(server, w, 'feedback');
    const input = MODAL.components[0].components[0];
    const refused = async (data: object, expected: string[]) => {
      const before = await server.runtime.store.headPosition();
      const response = await callback(server, d, { type: 9, data });
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(paths(response)).toEqual(expected);
      await expectNothingAppendedSince(server, before);
    };
    const row = (over: object) => ({ type: 1, components: [{ ...input, ...over }] });
    await refused({ ...MODAL, title: 'x'.repeat(46) }, ['data.title']);
    await refused({ ...MODAL, title: '' }, ['data.title']);
    await refused({ ...MODAL, custom_id: 'x'.repeat(101) }, ['data.custom_id']);
    await refused({ ...MODAL, components: [] }, ['data.components']);
    await refused({ ...MODAL, components: Array.from({ length: 6 }, (_, i) => row({ custom_id: `f${i}` })) }, ['data.components']);
    await refused({ ...MODAL, components: [{ type: 1, components: [input, { ...input, custom_id: 'second' }] }] }, ['data.components.0.components']);
    await refused({ ...MODAL, components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }] }, [
      'data.components.0.components.0.type',
    ]);
    await refused({ ...MODAL, components: [row({ label: 'x'.repeat(46) })] }, ['data.components.0.components.0.label']);
    await refused({ ...MODAL, components: [row({ style: 3 })] }, ['data.components.0.components.0.style']);
    await refused({ ...MODAL, components: [row({ max_length: 4001 })] }, ['data.components.0.components.0.max_length']);
    await refused({ ...MODAL, components: [row({ placeholder: 'x'.repeat(101) })] }, ['data.components.0.components.0.placeholder']);
    await refused({ ...MODAL, components: [row({ min_length: 30 })] }, ['data.components.0.components.0.min_length']);
    await refused({ ...MODAL, components: [row({ value: 'x'.repeat(21) })] }, ['data.components.0.components.0.value']);
    await refused({ ...MODAL, components: [row({}), row({})] }, ['data.components.1.components.0.custom_id']);
    // Still unanswered: the modal, valid, is taken.
    expect((await callback(server, d, { type: 9, data: MODAL })).status).toBe(204);
  });

  it('answers only a command or a component, never a modal submit; choices (8) answer neither', async () => {
    const w = await world();
    const d = await invoked(server, w, 'feedback');
    const choices = await callback(server, d, { type: 8, data: { choices: [] } });
    expectError(choices, 400, 'INVALID_FORM_BODY');
    expect(paths(choices)).toEqual(['type']);
    expect((await callback(server, d, { type: 9, data: MODAL })).status).toBe(204);
    await w.memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE' && p.d.id === d.id);
    const submit = await submitted(w, d.id, { subject: 'Hello' });
    const again = await callback(server, submit, { type: 9, data: MODAL });
    expectError(again, 400, 'INVALID_FORM_BODY');
    expect(paths(again)).toEqual(['type']);
    // Without a component's message there is nothing to update.
    expectError(await callback(server, submit, { type: 7, data: { content: 'x' } }), 400, 'INVALID_FORM_BODY');
  });
});

describe('a modal submit (POST /interactions type 5)', () => {
  it('reaches the bot as MODAL_SUBMIT with every text input’s value, and the bot’s reply names it', async () => {
    const w = await world();
    const d = await shown(w);
    const submit = await submitted(w, d.id, { subject: 'Great' });
    expect(submit).toMatchObject({
      type: 5,
      application_id: w.bot.applicationId,
      channel_id: w.guild.channelId,
      guild_id: w.guild.id,
      member: { user: { id: w.member.id } },
      data: {
        custom_id: 'feedback-form',
        components: [
          { type: 1, components: [{ type: 4, custom_id: 'subject', value: 'Great' }] },
          // Not sent, and not required: the bot reads it empty.
          { type: 1, components: [{ type: 4, custom_id: 'details', value: '' }] },
        ],
      },
    });
    expect(submit.message).toBeUndefined();
    expect(submit.token).not.toBe(d.token);
    expect((await callback(server, submit, { type: 4, data: { content: 'Thanks!' } })).status).toBe(204);
    const [reply] = await history(server, w, w.other);
    expect(reply).toMatchObject({ content: 'Thanks!', interaction_metadata: { id: submit.id, type: 5, user: { id: w.member.id } } });
  });

  it('is taken once, from the user it was shown to, within the interaction’s 15 minutes', async () => {
    const w = await world();
    const d = await shown(w);
    await expectRefusedWithoutEvents(server, () => submit(w, d.id, { subject: 'Mine' }, { token: w.other.token }), 404, 'UNKNOWN_INTERACTION');
    const late = vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + 15 * 60 * 1000 + 1000);
    try {
      await expectRefusedWithoutEvents(server, () => submit(w, d.id, { subject: 'Late' }), 404, 'UNKNOWN_INTERACTION');
    } finally {
      late.mockRestore();
    }
    await submitted(w, d.id, { subject: 'First', details: 'ok' });
    await expectRefusedWithoutEvents(server, () => submit(w, d.id, { subject: 'Again' }), 400, 'INTERACTION_ALREADY_ACKNOWLEDGED');
    // An interaction that showed no modal has none to submit.
    const plain = await invoked(server, w, 'feedback');
    await expectRefusedWithoutEvents(server, () => submit(w, plain.id, { subject: 'None' }), 404, 'UNKNOWN_INTERACTION');
  });

  it('is checked against the modal shown: ids, required fields and lengths, at their paths, appending nothing', async () => {
    const w = await world();
    const d = await shown(w);
    const refused = async (request: () => Promise<ApiResponse>, expected: string[]) => {
      const before = await server.runtime.store.headPosition();
      const response = await request();
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(paths(response)).toEqual(expected);
      await expectNothingAppendedSince(server, before);
    };
    await refused(() => submit(w, d.id, { subject: 'Fine', color: 'red' }), ['data.components.1.components.0.custom_id']);
    await refused(() => submit(w, d.id, { details: 'no subject' }), ['data.components']);
    await refused(() => submit(w, d.id, { subject: '' }), ['data.components.0.components.0.value']);
    await refused(() => submit(w, d.id, { subject: 'ab' }), ['data.components.0.components.0.value']);
    await refused(() => submit(w, d.id, { subject: 'x'.repeat(21) }), ['data.components.0.components.0.value']);
    await refused(() => submit(w, d.id, { subject: 'Fine' }, { data: { custom_id: 'other-form' } }), ['data.custom_id']);
    await refused(
      () => submit(w, d.id, {}, { data: { components: [{ type: 1, components: [{ type: 4, custom_id: 'subject', value: 'x'.repeat(4001) }] }] } }),
      ['data.components.0.components.0.value'],
    );
    const elsewhere = await server.api('POST', `/guilds/${w.guild.id}/channels`, { token: w.guild.owner.token, body: { name: 'elsewhere' } });
    await refused(() => submit(w, d.id, { subject: 'Fine' }, { channelId: elsewhere.body.id }), ['channel_id']);
    // After all that, the modal is still open.
    await submitted(w, d.id, { subject: 'Fine' });
  });

  it('is refused to a member timed out since it was shown, as their clicks and autocompletes are (403 MISSING_ACCESS), appending nothing', async () => {
    const pick = { name: 'pick', description: 'Pick one', options: [{ type: 3, name: 'what', description: 'Which', autocomplete: true }] };
    const w = await interactionWorld(server, clients, [{ name: 'feedback', description: 'Tell us' }, pick]);
    const d = await shown(w);
    const button = { type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] };
    const sent = await server.api('POST', `/channels/${w.guild.channelId}/messages`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: { content: 'Go?', components: [button] },
    });
    expect(sent.status).toBe(200);
    const timeout = (until: string | null) =>
      server.api('PATCH', `/guilds/${w.guild.id}/members/${w.member.id}`, { token: w.guild.owner.token, body: { communication_disabled_until: until } });
    expect((await timeout(new Date(Date.now() + 10 * 60_000).toISOString())).status).toBe(200);

    await expectRefusedWithoutEvents(server, () => submit(w, d.id, { subject: 'Sneaky' }), 403, 'MISSING_ACCESS');
    const click = () =>
      server.api('POST', '/interactions/click', { token: w.member.token, body: { channel_id: w.guild.channelId, message_id: sent.body.id, custom_id: 'go' } });
    await expectRefusedWithoutEvents(server, click, 403, 'MISSING_ACCESS');
    const autocomplete = () =>
      server.api('POST', '/interactions', {
        token: w.member.token,
        body: {
          type: 4,
          application_id: w.bot.applicationId,
          channel_id: w.guild.channelId,
          data: { id: w.commands.pick.id, name: 'pick', type: 1, options: [{ type: 3, name: 'what', value: 'a', focused: true }] },
        },
      });
    await expectRefusedWithoutEvents(server, autocomplete, 403, 'MISSING_ACCESS');

    // The refusal took nothing from the modal: once the timeout is lifted, it is submitted as usual.
    expect((await timeout(null)).status).toBe(200);
    expect((await submitted(w, d.id, { subject: 'Later' })).data.components[0].components[0].value).toBe('Later');
  });

  it('of a modal shown for a component carries its message, which the bot may then update (7)', async () => {
    const w = await world();
    const sent = await server.api('POST', `/channels/${w.guild.channelId}/messages`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: { content: 'Rate us', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Rate', custom_id: 'rate' }] }] },
    });
    const click = await server.api('POST', '/interactions/click', {
      token: w.member.token,
      body: { channel_id: w.guild.channelId, message_id: sent.body.id, custom_id: 'rate' },
    });
    expect(click.status).toBe(204);
    const d = (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 3 && p.d.message.id === sent.body.id)).d;
    expect((await callback(server, d, { type: 9, data: MODAL })).status).toBe(204);
    const modal = await w.memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE' && p.d.id === d.id);
    expect(modal.d.nonce).toBeUndefined();
    const submit = await submitted(w, d.id, { subject: 'Five stars' });
    expect(submit.message).toMatchObject({ id: sent.body.id, content: 'Rate us' });
    expect((await callback(server, submit, { type: 7, data: { content: 'Rated: Five stars', components: [] } })).status).toBe(204);
    const updated = await server.api('GET', `/channels/${w.guild.channelId}/messages/${sent.body.id}`, { token: w.member.token });
    expect(updated.body).toMatchObject({ content: 'Rated: Five stars', components: [] });
  });
});
