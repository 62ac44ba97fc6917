// Specs of the log's sealing (domain/personalData.ts's rules, infra/eventStore/sealing.ts): given an event a command
// appends, the log holds none of its personal strings, and reading it gives back exactly the event (same fields, same
// order) while its keys exist, and the domain's erased values once they are destroyed.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SealingEventStore } from '../../infra/eventStore/sealing.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteKeyStore } from '../../infra/keys/sqlite.js';
import { SecretBox } from '../../infra/secrets.js';
import type { NewEvent, RecordedEvent } from '../../ports/eventStore.js';
import { envelopesOf } from '../../ports/keyStore.js';

const P = (label: string) => `PERSONAL-${label}`;
const metadata = { actorId: '9', createdAt: '2026-01-01T00:00:00.000Z' };
const user = (id: string, label: string) => ({
  id,
  username: P(`${label}-name`),
  discriminator: '0001',
  global_name: P(`${label}-global`),
  avatar: P(`${label}-avatar`),
  bot: false,
  public_flags: 0,
});
const message = {
  id: '1',
  channel_id: '2',
  guild_id: '3',
  author: user('9', 'author'),
  webhook_id: null,
  type: 0,
  content: P('content'),
  tts: false,
  embeds: [{ title: P('embed') }],
  attachments: [{ id: '5', filename: P('file.png'), description: P('alt'), content_type: 'image/png', size: 3 }],
  components: [{ type: 1, components: [{ type: 2, label: P('label'), custom_id: 'x', style: 1 }] }],
  flags: 0,
  nonce: null,
  mentions: [user('10', 'mentioned')],
  mention_roles: [],
  mention_everyone: false,
  mention_channels: [],
  message_reference: null,
  timestamp: metadata.createdAt,
  edited_timestamp: null,
};
const ids = { messageId: '1', channelId: '2', guildId: '3', authorId: '9' };
const thread = {
  id: '20',
  type: 11,
  guild_id: '3',
  parent_id: '2',
  owner_id: '9',
  name: P('thread'),
  rate_limit_per_user: 0,
  archived: false,
  auto_archive_duration: 1440,
  archive_timestamp: metadata.createdAt,
  locked: false,
  create_timestamp: metadata.createdAt,
  applied_tags: ['21'],
};

const EVENTS: NewEvent[] = [
  { type: 'MessageCreated', data: { ...ids, message }, metadata: { ...metadata, reason: null } },
  {
    type: 'MessageCreated',
    data: { ...ids, message: { ...message, webhook_id: '7', author: { ...user('7', 'webhook'), avatar_url: P('avatar-url') } } },
    metadata,
  },
  {
    type: 'MessageEdited',
    data: {
      ...ids,
      editorId: '9',
      changes: { content: P('content'), mentions: [user('10', 'mentioned')] },
      message,
      removedAttachments: [{ id: '6', filename: P('gone.png'), content_type: 'image/png', size: 1 }],
    },
    metadata,
  },
  {
    type: 'MessageDeleted',
    data: { ...ids, deletedBy: '9', bulk: false, attachments: [{ id: '5', filename: P('file.png'), content_type: 'image/png', size: 3 }] },
    metadata,
  },
  {
    type: 'UserRegistered',
    data: {
      userId: '9',
      username: P('username'),
      discriminator: '0001',
      email: P('mail@example.org'),
      passwordHash: 'scrypt$x',
      bot: false,
      applicationId: null,
    },
    metadata,
  },
  { type: 'UserProfileUpdated', data: { userId: '9', changes: [{ key: 'username', old_value: P('old-name'), new_value: P('new-name') }] }, metadata },
  { type: 'DiscriminatorClaimed', data: { username: P('claimed'), discriminator: '0001', userId: '9' }, metadata },
  {
    type: 'MemberUpdated',
    data: {
      guildId: '3',
      userId: '9',
      changes: [
        { key: 'nick', old_value: null, new_value: P('nick') },
        { key: 'mute', old_value: false, new_value: true },
      ],
    },
    metadata,
  },
  {
    type: 'DmChannelOpened',
    data: { channelId: '2', type: 1, ownerId: null, name: null, recipients: [user('9', 'a'), user('10', 'b')], openedBy: '9' },
    metadata,
  },
  {
    type: 'InteractionClicked',
    data: {
      interaction: {
        id: '11',
        type: 3,
        token: 't',
        version: 1,
        channel_id: '2',
        message_id: '1',
        user: user('9', 'clicker'),
        data: { custom_id: 'menu', component_type: 3, values: [P('choice')] },
      },
      webhookId: null,
      deliveryUrl: null,
      clickedAt: metadata.createdAt,
    },
    metadata,
  },
  {
    // A modal submitted for a component: what the user typed, and the component's message it carries.
    type: 'InteractionCreated',
    data: {
      interaction: {
        id: '14',
        applicationId: '13',
        botUserId: '15',
        type: 5,
        guildId: '3',
        channelId: '2',
        userId: '9',
        command: null,
        component: null,
        modal: {
          custom_id: 'feedback',
          components: [{ type: 1, components: [{ type: 4, custom_id: 'subject', value: P('typed') }] }],
          shownBy: '11',
          message,
        },
        memberPermissions: '0',
        appPermissions: '0',
        locale: 'en-US',
        guildLocale: null,
        createdAt: metadata.createdAt,
        expiresAt: metadata.createdAt,
      },
      tokenHash: 'h',
      sealedToken: 's',
    },
    metadata,
  },
  {
    // A message command's target, a Components V2 message: its text displays are its author's words.
    type: 'InteractionCreated',
    data: {
      interaction: {
        id: '12',
        type: 2,
        userId: '9',
        command: {
          id: '13',
          name: 'Quote',
          type: 3,
          options: [],
          resolved: { users: [], roles: [], channels: [] },
          target_id: '1',
          targetMessage: {
            ...message,
            content: '',
            embeds: [],
            flags: 1 << 15,
            components: [{ type: 17, components: [{ type: 10, content: P('text-display') }] }],
          },
        },
        component: null,
      },
      tokenHash: 'h',
      sealedToken: 's',
    },
    metadata,
  },
  {
    type: 'OAuth2CodeIssued',
    data: {
      grantId: '12',
      applicationId: '13',
      userId: '9',
      scopes: ['identify'],
      redirectUri: P('https://example.org/cb'),
      codeHash: 'h',
      expiresAt: metadata.createdAt,
    },
    metadata,
  },
  { type: 'MemberKicked', data: { guildId: '3', userId: '10' }, metadata: { ...metadata, reason: P('reason') } },
  // A thread's or forum post's name, and a group DM's: what a person wrote in a place.
  { type: 'ThreadCreated', data: { guildId: '3', thread, fromMessage: false }, metadata },
  {
    type: 'ThreadUpdated',
    data: {
      guildId: '3',
      threadId: '20',
      parentId: '2',
      changes: [
        { key: 'name', old_value: P('thread'), new_value: P('renamed') },
        { key: 'archived', old_value: false, new_value: true },
      ],
    },
    metadata,
  },
  { type: 'ThreadDeleted', data: { guildId: '3', thread }, metadata },
  { type: 'GroupDmRenamed', data: { channelId: '30', name: P('group'), renamedBy: '9' }, metadata },
  {
    type: 'RecipientAdded',
    data: { channelId: '30', user: user('10', 'added'), addedBy: '9', recipients: [user('9', 'owner'), user('10', 'added')], ownerId: '9', name: P('group') },
    metadata,
  },
  {
    type: 'AutoModerationActionExecuted',
    data: {
      execution: {
        guildId: '3',
        ruleId: '4',
        ruleName: 'No cats',
        ruleTriggerType: 1,
        action: { type: 1, metadata: {} },
        userId: '9',
        channelId: '2',
        messageId: null,
        alertSystemMessageId: null,
        content: P('blocked content'),
        matchedKeyword: P('keyword'),
        matchedContent: P('matched'),
        timeoutUntil: null,
      },
    },
    metadata,
  },
];

async function stores() {
  const keys = new SqliteKeyStore(':memory:', SecretBox.fromKey(randomBytes(32)));
  const log = new SqliteEventStore(':memory:');
  return { keys, log, writer: new SealingEventStore(log, keys), reader: () => new SealingEventStore(log, keys) };
}

describe('sealing personal data in the log', () => {
  it.each(EVENTS.map((event) => [event.type, event] as const))(
    '%s: the log holds none of its personal strings, and a reader gets it back exactly',
    async (_, event) => {
      const { log, writer, reader } = await stores();
      await writer.appendToStream('s', [event]);
      const [stored] = await log.readAll();
      expect(JSON.stringify({ data: stored.data, metadata: stored.metadata })).not.toContain('PERSONAL-');
      // Ids and times stay readable for ordering and auditing.
      expect(JSON.stringify({ data: stored.data, metadata: stored.metadata })).toContain('"9"');
      const [read] = await reader().readAll();
      expect(JSON.stringify({ data: read.data, metadata: read.metadata })).toBe(JSON.stringify({ data: event.data, metadata: event.metadata }));
      await writer.close();
    },
  );

  it('encrypts each envelope once: what the process keeps of an appended event is what the log stored', async () => {
    const { log, writer } = await stores();
    // The log hands its subscribers what it kept in memory after the first position it committed in this process.
    const { position } = await writer.appendToStream('first', [{ type: 'Nothing personal', data: {}, metadata }]);
    await writer.appendToStream('s', [EVENTS[0], EVENTS[1]]);
    let kept: RecordedEvent[] = [];
    const subscription = log.subscribeToAll({ fromPosition: position }, async (events) => {
      kept = [...kept, ...events];
    });
    await subscription.caughtUp();
    await subscription.stop();
    const stored = await log.readAll({ fromPosition: { commit: position.commit + 1n, prepare: position.prepare + 1n } });
    const ciphertexts = (events: RecordedEvent[]) => events.flatMap((event) => envelopesOf(event).map(({ k, iv, d, t }) => ({ k, iv, d, t })));
    expect(ciphertexts(kept)).toHaveLength(5);
    expect(ciphertexts(kept)).toEqual(ciphertexts(stored));
    expect(JSON.stringify(kept[0].data)).toBe(JSON.stringify(stored[0].data));
    await writer.close();
  });

  it('reads a message whose keys are destroyed with the domain’s erased values, its ids intact', async () => {
    const { keys, log, writer, reader } = await stores();
    await writer.appendToStream('s', [EVENTS[0]]);
    const [stored] = await log.readAll();
    const subjects = (stored.data as { $sealed: { s: string[] }[] }).$sealed.map((envelope) => ({ subject: envelope.s[0] }));
    await keys.apply(
      { owned: (stored.data as { $sealed: { k: string; s: string[] }[] }).$sealed.map((e) => ({ keyId: e.k, subject: e.s[0] })), erased: subjects },
      stored.position,
    );
    const [read] = await reader().readAll();
    const erased = (read.data as { message: typeof message }).message;
    expect({ content: erased.content, embeds: erased.embeds, file: erased.attachments[0].filename, author: erased.author.username, id: erased.id }).toEqual({
      content: '',
      embeds: [],
      file: null,
      author: 'Deleted User',
      id: '1',
    });
    await writer.close();
  });
});

describe('events of a type whose rule sealed less when they were written', () => {
  it('read as they were written, beside those sealed since; an erasure of their subject reads the sealed ones as erased', async () => {
    const { keys, log, writer, reader } = await stores();
    const renamed = (from: string, to: string) => ({
      guildId: '3',
      threadId: '20',
      parentId: '2',
      changes: [{ key: 'name', old_value: from, new_value: to }],
    });
    // As earlier versions wrote them: a thread's name in clear with nothing sealed (schema version 1), and with only the
    // audit-log reason sealed (schema version 2: its envelope taken from an event sealed the same way).
    await log.appendToStream('thread-20', [{ type: 'ThreadCreated', data: { guildId: '3', thread, fromMessage: false }, metadata }]);
    await writer.appendToStream('reasons', [{ type: 'ThreadArchived', data: {}, metadata: { ...metadata, reason: P('reason') } }]);
    const reasonSealed = (await log.readStream('reasons'))[0];
    const clearName = { ...renamed(thread.name, 'clear name'), $sealed: envelopesOf(reasonSealed) };
    await log.appendToStream('thread-20', [{ type: 'ThreadUpdated', data: clearName, metadata: reasonSealed.metadata, schemaVersion: 2 }]);
    await writer.appendToStream('thread-20', [{ type: 'ThreadUpdated', data: renamed('clear name', P('sealed name')), metadata }]);
    const names = async () =>
      (await reader().readStream('thread-20')).map((event) => {
        const data = event.data as { thread?: { name: string }; changes?: { new_value: unknown }[] };
        return [data.thread?.name ?? data.changes![0].new_value, event.metadata.reason ?? null];
      });
    expect(await names()).toEqual([
      [thread.name, null],
      ['clear name', P('reason')],
      [P('sealed name'), null],
    ]);

    const sealed = (await log.readStream('thread-20'))[2];
    expect(JSON.stringify(sealed.data)).not.toContain(P('sealed name'));
    const owned = envelopesOf(sealed).flatMap((envelope) => envelope.s.map((subject) => ({ keyId: envelope.k, subject })));
    await keys.apply({ owned, erased: [{ subject: 'channel:20' }] }, sealed.position);
    expect(await names()).toEqual([
      [thread.name, null],
      ['clear name', P('reason')],
      [null, null],
    ]);
    await writer.close();
  });
});
