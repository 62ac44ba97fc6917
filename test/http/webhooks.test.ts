// Webhook routes through the real HTTPS API: management with MANAGE_WEBHOOKS, the token routes, execution (JSON and
// multipart, ?wait, overrides, components, ephemeral flag), the code-host and chat adapters, the audit log, and the
// token kept sealed in the log.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { connectGateway } from '../support/gateway.js';
import { fileServer, registerUser, expectNothingAppendedSince } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

async function createWebhook(guild: TestGuild, body: Record<string, unknown> = { name: 'Captain Hook' }) {
  const response = await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body });
  if (response.status !== 200) throw new Error(`webhook failed: ${response.status} ${response.text}`);
  return response.body as { id: string; token: string; url: string; channel_id: string; guild_id: string; name: string; avatar: string | null };
}

const latestMessage = async (guild: TestGuild) =>
  (await server.api('GET', `/channels/${guild.channelId}/messages?limit=1`, { token: guild.owner.token })).body[0];

describe('webhook management', () => {
  it('creates a webhook with the widely used API’s fields, lists it per channel and guild, and fetches it', async () => {
    const guild = await createGuild(server);
    const created = await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'Hook', avatar: PNG } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      type: 1,
      guild_id: guild.id,
      channel_id: guild.channelId,
      user: { id: guild.owner.id, username: guild.owner.username },
      name: 'Hook',
      avatar: expect.stringMatching(/^[0-9a-f]{32}$/),
      token: expect.stringMatching(/^[\w-]{40,}$/),
      application_id: null,
      interaction_url: null,
    });
    const { id, token, avatar } = created.body;
    expect(created.body.url).toBe(`${server.origin}/api/v1/webhooks/${id}/${token}`);
    const image = await server.call('GET', `/avatars/${id}/${avatar}.png`);
    expect(image.status).toBe(200);

    for (const path of [`/channels/${guild.channelId}/webhooks`, `/guilds/${guild.id}/webhooks`]) {
      const list = await server.api('GET', path, { token: guild.owner.token });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([created.body]);
    }
    expect((await server.api('GET', `/webhooks/${id}`, { token: guild.owner.token })).body).toEqual(created.body);
  });

  it('needs MANAGE_WEBHOOKS for every management route, and refuses without appending', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const member = await newMember(server, guild);
    const outsider = await registerUser(server);
    const refusals: [string, string, unknown?][] = [
      ['POST', `/channels/${guild.channelId}/webhooks`, { name: 'nope' }],
      ['PATCH', `/webhooks/${hook.id}`, { name: 'nope' }],
      ['DELETE', `/webhooks/${hook.id}`],
    ];
    for (const [method, path, body] of refusals) {
      await expectRefusedWithoutEvents(server, () => server.api(method, path, { token: member.token, body }), 403, 'MISSING_PERMISSIONS');
    }
    expectError(await server.api('GET', `/channels/${guild.channelId}/webhooks`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    expectError(await server.api('GET', `/guilds/${guild.id}/webhooks`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    expectError(await server.api('GET', `/webhooks/${hook.id}`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    expectError(await server.api('GET', `/webhooks/${hook.id}`, { token: outsider.token }), 404, 'UNKNOWN_WEBHOOK');
    expectError(await server.api('GET', `/webhooks/${hook.id}`), 401, 'UNAUTHORIZED');

    await grantRole(server, guild, member, Permission.MANAGE_WEBHOOKS | Permission.VIEW_CHANNEL);
    expect((await server.api('GET', `/webhooks/${hook.id}`, { token: member.token })).status).toBe(200);
    expect((await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: member.token, body: { name: 'Mine' } })).status).toBe(200);
  });

  it('validates bodies with the spec’s error format', async () => {
    const guild = await createGuild(server);
    const create = (body: unknown) => () => server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body });
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(81) },
      { name: 'ok', avatar: 'not-an-image' },
      { name: 'ok', interaction_url: 'http://example.com/' },
      { name: 'ok', extra: 1 },
    ]) {
      await expectRefusedWithoutEvents(server, create(body), 400, 'INVALID_FORM_BODY');
    }
    const invalid = await server.api('POST', `/channels/${guild.channelId}/webhooks`, {
      token: guild.owner.token,
      body: { name: 'ok', interaction_url: 'http://example.com/' },
    });
    expect(invalid.body.errors).toEqual([expect.objectContaining({ path: 'interaction_url' })]);
  });

  it('refuses interaction URLs on loopback, private and link-local addresses (SSRF)', async () => {
    const guild = await createGuild(server);
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost:8443/',
      'https://10.0.0.8/',
      'https://169.254.169.254/latest',
      'https://[::1]/',
      'https://192.168.1.1/',
    ]) {
      const response = await server.api('POST', `/channels/${guild.channelId}/webhooks`, {
        token: guild.owner.token,
        body: { name: 'ssrf', interaction_url: url },
      });
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(response.body.errors[0].path).toBe('interaction_url');
    }
    expect((await server.api('GET', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token })).body).toEqual([]);
  });

  it('changes name, avatar, channel and interaction_url; moves only into channels the manager manages', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const other = await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'other' } });
    const voice = await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'voice', type: 2 } });
    const patched = await server.api('PATCH', `/webhooks/${hook.id}`, {
      token: guild.owner.token,
      body: { name: 'Renamed', avatar: PNG, channel_id: other.body.id },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: hook.id, name: 'Renamed', channel_id: other.body.id, avatar: expect.any(String), token: hook.token });
    expect((await server.api('GET', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token })).body).toEqual([]);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/webhooks/${hook.id}`, { token: guild.owner.token, body: { channel_id: voice.body.id } }),
      400,
      'INVALID_FORM_BODY',
    );
    const elsewhere = await createGuild(server, guild.owner);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/webhooks/${hook.id}`, { token: guild.owner.token, body: { channel_id: elsewhere.channelId } }),
      400,
      'INVALID_FORM_BODY',
    );
    const removed = await server.api('PATCH', `/webhooks/${hook.id}`, { token: guild.owner.token, body: { avatar: null } });
    expect(removed.body.avatar).toBeNull();
  });

  it('deletes a webhook; its token no longer works; a deleted channel takes its webhooks along', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    expect((await server.api('DELETE', `/webhooks/${hook.id}`, { token: guild.owner.token })).status).toBe(204);
    expectError(await server.api('GET', `/webhooks/${hook.id}`, { token: guild.owner.token }), 404, 'UNKNOWN_WEBHOOK');
    expectError(await server.api('POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'hi' } }), 404, 'UNKNOWN_WEBHOOK');

    const channel = await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'doomed' } });
    const doomed = await server.api('POST', `/channels/${channel.body.id}/webhooks`, { token: guild.owner.token, body: { name: 'doomed' } });
    await server.api('DELETE', `/channels/${channel.body.id}`, { token: guild.owner.token });
    expect((await server.api('GET', `/guilds/${guild.id}/webhooks`, { token: guild.owner.token })).body).toEqual([]);
    expectError(await server.api('POST', `/webhooks/${doomed.body.id}/${doomed.body.token}`, { body: { content: 'hi' } }), 404, 'UNKNOWN_WEBHOOK');
  });

  it('records create, update and delete in the audit log (50, 51, 52), without the token', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild, { name: 'Audited' });
    await server.api('PATCH', `/webhooks/${hook.id}`, { token: guild.owner.token, body: { name: 'Audited 2' }, headers: { 'X-Audit-Log-Reason': 'rename' } });
    await server.api('DELETE', `/webhooks/${hook.id}`, { token: guild.owner.token });
    const log = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token });
    const entries = log.body.audit_log_entries.filter((e: { target_id: string }) => e.target_id === hook.id);
    expect(entries.map((e: { action_type: number }) => e.action_type)).toEqual([52, 51, 50]);
    expect(entries[1]).toMatchObject({ user_id: guild.owner.id, reason: 'rename', changes: [{ key: 'name', old_value: 'Audited', new_value: 'Audited 2' }] });
    expect(entries[2].changes).toEqual(
      expect.arrayContaining([
        { key: 'name', new_value: 'Audited' },
        { key: 'channel_id', new_value: guild.channelId },
        { key: 'type', new_value: 1 },
      ]),
    );
    expect(log.text).not.toContain(hook.token);
  });

  it('announces changes as WEBHOOKS_UPDATE to sessions with the GUILD_WEBHOOKS intent', async () => {
    const guild = await createGuild(server);
    const [watching, ignoring] = await Promise.all([connectGateway(server), connectGateway(server)]);
    await watching.identify(guild.owner.token, (1 << 0) | (1 << 5));
    await ignoring.identify(guild.owner.token, 1 << 0);
    const hook = await createWebhook(guild);
    expect((await watching.dispatch('WEBHOOKS_UPDATE')).d).toEqual({ guild_id: guild.id, channel_id: guild.channelId });
    await server.api('DELETE', `/webhooks/${hook.id}`, { token: guild.owner.token });
    await watching.next((p) => p.t === 'WEBHOOKS_UPDATE' && p.s !== watching.received.find((q) => q.t === 'WEBHOOKS_UPDATE')!.s);
    expect(ignoring.received.some((p) => p.t === 'WEBHOOKS_UPDATE')).toBe(false);
    watching.close();
    ignoring.close();
  });

  it('keeps the token out of the log and the read models in clear', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const events = await server.runtime.store.readStream(`webhook-${hook.id}`);
    const stored = JSON.stringify(events.map((e) => [e.data, e.metadata]));
    expect(stored).toContain('sealedToken');
    expect(stored).not.toContain(hook.token);
    // Sealed, not hashed away: the service reads it back to sign deliveries.
    expect(server.runtime.secrets.open((events[0].data as { sealedToken: string }).sealedToken)).toBe(hook.token);
    expect(JSON.stringify(await server.runtime.readStore.find('webhooks', { _id: hook.id }))).not.toContain(hook.token);
  });
});

describe('token routes', () => {
  it('fetch, change and delete with the URL token and no Authorization header; a wrong token answers 401', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const fetched = await server.api('GET', `/webhooks/${hook.id}/${hook.token}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ id: hook.id, name: hook.name, token: hook.token, channel_id: guild.channelId });
    expect(fetched.body.user).toBeUndefined();
    await expectRefusedWithoutEvents(server, () => server.api('GET', `/webhooks/${hook.id}/wrong-token`), 401, 'INVALID_WEBHOOK_TOKEN');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/webhooks/${hook.id}/wrong-token`, { body: { name: 'x' } }),
      401,
      'INVALID_WEBHOOK_TOKEN',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/webhooks/${hook.id}/${hook.token}`, { body: { channel_id: guild.channelId } }),
      400,
      'INVALID_FORM_BODY',
    );
    const renamed = await server.api('PATCH', `/webhooks/${hook.id}/${hook.token}`, { body: { name: 'By token' } });
    expect(renamed.body.name).toBe('By token');
    expect((await server.api('DELETE', `/webhooks/${hook.id}/${hook.token}`)).status).toBe(204);
    expectError(await server.api('GET', `/webhooks/${hook.id}/${hook.token}`), 404, 'UNKNOWN_WEBHOOK');
  });
});

describe('execute', () => {
  it('posts a normal message by the webhook: 204 by default, the message with ?wait=true', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const quiet = await server.api('POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'no wait' } });
    expect(quiet.status).toBe(204);
    expect(quiet.text).toBe('');
    expect(await latestMessage(guild)).toMatchObject({ content: 'no wait', webhook_id: hook.id, author: { id: hook.id, username: 'Captain Hook', bot: true } });

    const waited = await server.api('POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, {
      body: {
        content: 'hello <@' + guild.owner.id + '>',
        username: 'Override',
        avatar_url: 'https://example.com/a.png',
        embeds: [{ title: 'T', description: 'D' }],
      },
    });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({
      channel_id: guild.channelId,
      webhook_id: hook.id,
      author: { id: hook.id, username: 'Override', avatar: null, avatar_url: 'https://example.com/a.png', bot: true },
      content: `hello <@${guild.owner.id}>`,
      embeds: [{ title: 'T', description: 'D' }],
      mentions: [expect.objectContaining({ id: guild.owner.id })],
    });
  });

  it('takes multipart with files, keeps components and the ephemeral flag', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const form = new FormData();
    const components = [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }];
    form.append('payload_json', JSON.stringify({ content: 'with file', components, flags: 64 }));
    form.append('files[0]', new Blob([Buffer.from('hello file')], { type: 'text/plain' }), 'note.txt');
    const request = new Request(`${server.origin}/api/v1/webhooks/${hook.id}/${hook.token}?wait=true`, { method: 'POST', body: form });
    const response = await server.call('POST', `/api/v1/webhooks/${hook.id}/${hook.token}?wait=true`, {
      rawBody: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type')! },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      content: 'with file',
      flags: 64,
      components,
      attachments: [expect.objectContaining({ filename: 'note.txt', size: 10 })],
    });
  });

  it('refuses bad bodies and wrong tokens without appending', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const execute =
      (body: unknown, token = hook.token) =>
      () =>
        server.api('POST', `/webhooks/${hook.id}/${token}`, { body });
    await expectRefusedWithoutEvents(server, execute({}), 400, 'CANNOT_SEND_EMPTY_MESSAGE');
    await expectRefusedWithoutEvents(server, execute({ content: 'x'.repeat(2001) }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, execute({ content: 'x', username: '' }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(
      server,
      execute({ components: [{ type: 1, components: [{ type: 2, style: 1, label: 'no id' }] }] }),
      400,
      'INVALID_FORM_BODY',
    );
    await expectRefusedWithoutEvents(server, execute({ content: 'x' }, 'nope'), 401, 'INVALID_WEBHOOK_TOKEN');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/webhooks/${hook.id}/${hook.token}?thread_id=1`, { body: { content: 'x' } }),
      404,
      'UNKNOWN_CHANNEL',
    );
  });
});

describe('adapters', () => {
  const push = {
    ref: 'refs/heads/main',
    compare: 'https://codehost.example/acme/rocket/compare/abc...def',
    repository: { full_name: 'acme/rocket', name: 'rocket', html_url: 'https://codehost.example/acme/rocket' },
    sender: { login: 'ada', avatar_url: 'https://codehost.example/ada.png', html_url: 'https://codehost.example/ada' },
    commits: [
      {
        id: 'abcdef1234567890',
        message: 'Fix the launch sequence\n\nLong body',
        url: 'https://codehost.example/acme/rocket/commit/abcdef1',
        author: { name: 'Ada', username: 'ada' },
      },
      {
        id: '1234567abcdef000',
        message: 'Add telemetry',
        url: 'https://codehost.example/acme/rocket/commit/1234567',
        author: { name: 'Grace', username: 'grace' },
      },
    ],
  };

  it('github: renders a push as an embed, ignores a repeated delivery and a ping', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const send = (event: string, delivery: string, body: unknown) =>
      server.api('POST', `/webhooks/${hook.id}/${hook.token}/github`, { body, headers: { 'X-Codehost-Event': event, 'X-Codehost-Delivery': delivery } });
    expect((await send('push', 'delivery-1', push)).status).toBe(204);
    const message = await latestMessage(guild);
    expect(message.webhook_id).toBe(hook.id);
    expect(message.embeds[0]).toMatchObject({ title: '[acme/rocket:main] 2 new commits', url: push.compare, author: { name: 'ada' } });
    expect(message.embeds[0].description).toContain('[`abcdef1`](https://codehost.example/acme/rocket/commit/abcdef1) Fix the launch sequence - Ada');

    const before = await server.runtime.store.headPosition();
    expect((await send('push', 'delivery-1', push)).status).toBe(204);
    expect((await send('ping', 'delivery-2', { zen: 'Keep it logically awesome.' })).status).toBe(204);
    await expectNothingAppendedSince(server, before);
    expect((await latestMessage(guild)).id).toBe(message.id);

    const opened = {
      action: 'opened',
      number: 7,
      pull_request: { number: 7, title: 'Faster engines', body: 'Makes it go.', html_url: 'https://codehost.example/acme/rocket/pull/7', merged: false },
      repository: push.repository,
      sender: push.sender,
    };
    expect((await send('pull_request', 'delivery-3', opened)).status).toBe(204);
    expect((await latestMessage(guild)).embeds[0]).toMatchObject({
      title: '[acme/rocket] Pull request opened: #7 Faster engines',
      url: opened.pull_request.html_url,
    });
    expectError(await server.api('POST', `/webhooks/${hook.id}/${hook.token}/github`, { body: push }), 400, 'INVALID_FORM_BODY');
    expectError(
      await send('push', 'delivery-4', push).then(() =>
        server.api('POST', `/webhooks/${hook.id}/bad/github`, { body: push, headers: { 'X-Codehost-Event': 'push' } }),
      ),
      401,
      'INVALID_WEBHOOK_TOKEN',
    );
  });

  it('slack: text, username, icon and attachments become content and embeds; answers "ok"', async () => {
    const guild = await createGuild(server);
    const hook = await createWebhook(guild);
    const response = await server.api('POST', `/webhooks/${hook.id}/${hook.token}/slack`, {
      body: {
        text: 'Deploy finished <https://ci.example/run/5|run 5>',
        username: 'CI',
        icon_url: 'https://ci.example/icon.png',
        attachments: [
          {
            color: '#36a64f',
            title: 'Build 5',
            title_link: 'https://ci.example/5',
            text: 'All green',
            fields: [{ title: 'Duration', value: '3m', short: true }],
          },
        ],
      },
    });
    expect(response.status).toBe(200);
    expect(response.text).toBe('ok');
    const message = await latestMessage(guild);
    expect(message).toMatchObject({
      content: 'Deploy finished [run 5](https://ci.example/run/5)',
      author: { id: hook.id, username: 'CI', avatar_url: 'https://ci.example/icon.png' },
      embeds: [
        { title: 'Build 5', url: 'https://ci.example/5', description: 'All green', color: 0x36a64f, fields: [{ name: 'Duration', value: '3m', inline: true }] },
      ],
    });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/webhooks/${hook.id}/${hook.token}/slack`, { body: {} }),
      400,
      'CANNOT_SEND_EMPTY_MESSAGE',
    );

    // The form-encoded variant: the JSON in a field named payload.
    const form = await server.api('POST', `/webhooks/${hook.id}/${hook.token}/slack`, {
      rawBody: new URLSearchParams({ payload: JSON.stringify({ text: 'from a form' }) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(200);
    expect((await latestMessage(guild)).content).toBe('from a form');
  });
});
