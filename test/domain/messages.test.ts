// Given/when/then on the message side's deciders, and the pure rules they use (components, mentions, emojis).
import { describe, expect, it } from 'vitest';
import { validateComponents } from '../../domain/components.js';
import { dmChannelDecider, dmPairStream, endsDm } from '../../domain/dmChannel.js';
import { DomainError } from '../../domain/errors.js';
import { groupDmDecider } from '../../domain/groupDm.js';
import { allowMentions, parseMentions } from '../../domain/mentions.js';
import { type MessageCreated, type MessageEvent, type MessageFields, type MessageUser, assertNewMessage, messageDecider } from '../../domain/message.js';
import { assertBulkDeletable, bulkDeleteDecider } from '../../domain/messageBulkDelete.js';
import { NONCE_WINDOW_MS, nonceDecider } from '../../domain/messageNonce.js';
import { MAX_PINS, type PinEvent, pinDecider } from '../../domain/pins.js';
import { type ReactionEmoji, parseEmoji } from '../../domain/reaction.js';
import { snowflakeAt } from '../../domain/snowflake.js';
import { given } from '../support/given.js';
import { messageFields } from '../support/messageFields.js';

const user = (id: string, username = `user${id}`): MessageUser => ({
  id,
  username,
  discriminator: '0001',
  global_name: null,
  avatar: null,
  bot: false,
  public_flags: 0,
});
const ada = user('1', 'ada');
const bob = user('2', 'bob');

function fields(overrides: Partial<MessageFields> = {}): MessageFields {
  return messageFields({ author: ada, ...overrides });
}

const ids = { messageId: '100', channelId: '10', guildId: '5', authorId: '1' };
const created = (overrides: Partial<MessageFields> = {}): MessageCreated => ({ type: 'MessageCreated', data: { ...ids, message: fields(overrides) } });
const thumbsUp: ReactionEmoji = { id: null, name: '👍', animated: false };
const reacted = (userId: string, count: number, emoji = thumbsUp): MessageEvent => ({
  type: 'ReactionAdded',
  data: { messageId: '100', channelId: '10', guildId: '5', messageAuthorId: '1', emoji, userId, count },
});
const png = { id: '7', filename: 'cat.png', content_type: 'image/png', size: 10, width: 2, height: 2 };

describe('message: create', () => {
  it('creates a message with its fields in the API shape', () => {
    given(messageDecider, []).when({ type: 'CreateMessage', message: fields() }).then([created()]);
  });

  it('refuses a message with no content, embed, attachment or component', () => {
    given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ content: '' }) })
      .thenRefuses('CANNOT_SEND_EMPTY_MESSAGE');
    given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ content: '', embeds: [{ title: 't' }] }) })
      .then([created({ content: '', embeds: [{ title: 't' }] })]);
  });

  it('limits content to 2000 characters, counted as code points', () => {
    const error = given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ content: 'x'.repeat(2001) }) })
      .thenRefuses('INVALID_FORM_BODY');
    expect(error.errors).toEqual([{ path: 'content', message: 'Must be 2000 or fewer in length.', code: 'BASE_TYPE_MAX_LENGTH' }]);
    given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ content: '😀'.repeat(2000) }) })
      .then([created({ content: '😀'.repeat(2000) })]);
  });

  it('lets embeds use uploaded PNG, JPEG, WebP or GIF files by attachment://filename, and nothing else', () => {
    const embed = { image: { url: 'attachment://cat.png' } };
    given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ embeds: [embed], attachments: [png] }) })
      .then([created({ embeds: [embed], attachments: [png] })]);
    const missing = given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ embeds: [embed] }) })
      .thenRefuses('INVALID_FORM_BODY');
    expect(missing.errors![0].path).toBe('embeds.0.image.url');
    const text = { ...png, filename: 'cat.png', content_type: 'text/plain' };
    given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ embeds: [embed], attachments: [text] }) })
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('limits embed text to 6000 characters in total', () => {
    const big = { description: 'x'.repeat(4000) };
    given(messageDecider, [])
      .when({ type: 'CreateMessage', message: fields({ embeds: [big, big] }) })
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('treats a retried send of the same nonce and author as done, and refuses any other second create', () => {
    given(messageDecider, [created({ nonce: 'n1' })])
      .when({ type: 'CreateMessage', message: fields({ nonce: 'n1', content: 'again' }) })
      .then([]);
    given(messageDecider, [created({ nonce: 7 })])
      .when({ type: 'CreateMessage', message: fields({ nonce: '7' }) })
      .then([]);
    given(messageDecider, [created({ nonce: 'n1' })])
      .when({ type: 'CreateMessage', message: fields({ nonce: 'n2' }) })
      .thenRefuses('MESSAGE_EXISTS');
    given(messageDecider, [created()]).when({ type: 'CreateMessage', message: fields() }).thenRefuses('MESSAGE_EXISTS');
  });

  it('refuses, before a send stores anything, exactly the new messages CreateMessage refuses', () => {
    const refused: [Partial<MessageFields>, string][] = [
      [{ content: '' }, 'CANNOT_SEND_EMPTY_MESSAGE'],
      [{ content: 'x'.repeat(2001) }, 'INVALID_FORM_BODY'],
      [{ flags: 1 << 7 }, 'INVALID_FORM_BODY'],
      [{ attachments: Array.from({ length: 11 }, (_, i) => ({ ...png, id: String(i) })) }, 'INVALID_FORM_BODY'],
      [{ embeds: [{ image: { url: 'attachment://cat.png' } }] }, 'INVALID_FORM_BODY'],
    ];
    for (const [over, code] of refused) {
      const decided = given(messageDecider, [])
        .when({ type: 'CreateMessage', message: fields(over) })
        .thenRefuses(code);
      expect(() => assertNewMessage(fields(over))).toThrow(
        expect.objectContaining({ kind: decided.kind, code, message: decided.message, errors: decided.errors }),
      );
    }
    expect(() => assertNewMessage(fields())).not.toThrow();
  });
});

describe('message: edit', () => {
  const edit = (actorId: string, changes: object, manageMessages = false) => ({
    type: 'EditMessage' as const,
    actorId,
    channelId: '10',
    manageMessages,
    edit: changes,
    at: Date.parse('2024-01-02T00:00:00.000Z'),
  });
  /** The edit of a message created with `before`, as `changes` leave it. */
  const edited = (changes: Partial<MessageFields>, removedAttachments: object[] = [], editorId = '1', before: Partial<MessageFields> = {}): MessageEvent => ({
    type: 'MessageEdited',
    data: { ...ids, editorId, changes, message: fields({ ...before, ...changes }), removedAttachments: removedAttachments as never },
  });

  it('lets the author change the content, with its mentions, and stamps the edit', () => {
    given(messageDecider, [created()])
      .when(edit('1', { content: 'hi <@2>', mentions: { mentions: [bob], mention_roles: [], mention_everyone: false, mention_channels: [] } }))
      .then([edited({ content: 'hi <@2>', mentions: [bob], edited_timestamp: '2024-01-02T00:00:00.000Z' })]);
  });

  it('appends nothing when nothing changes', () => {
    given(messageDecider, [created()])
      .when(edit('1', { content: 'hello' }))
      .then([]);
  });

  it("refuses another user's content edit, even with MANAGE_MESSAGES, but lets MANAGE_MESSAGES suppress embeds", () => {
    given(messageDecider, [created()])
      .when(edit('2', { content: 'mine now' }, true))
      .thenRefuses('CANNOT_EDIT_MESSAGE_BY_OTHER');
    given(messageDecider, [created()])
      .when(edit('2', { flags: 4 }))
      .thenRefuses('CANNOT_EDIT_MESSAGE_BY_OTHER');
    given(messageDecider, [created({ flags: 1 << 20 })])
      .when(edit('2', { flags: 4 }, true))
      .then([edited({ flags: (1 << 20) | 4 }, [], '2', { flags: 1 << 20 })]);
  });

  it('keeps exactly the listed attachments, adds new ones, and keeps all when the list is omitted', () => {
    const other = { ...png, id: '8', filename: 'dog.png' };
    const added = { ...png, id: '9', filename: 'new.png' };
    given(messageDecider, [created({ attachments: [png, other] })])
      .when(edit('1', { attachments: ['8', added] }))
      .then([edited({ attachments: [other, added], edited_timestamp: '2024-01-02T00:00:00.000Z' }, [png])]);
    given(messageDecider, [created({ attachments: [png] })])
      .when(edit('1', { content: 'text' }))
      .then([edited({ content: 'text', edited_timestamp: '2024-01-02T00:00:00.000Z' }, [], '1', { attachments: [png] })]);
    const unknown = given(messageDecider, [created({ attachments: [png] })])
      .when(edit('1', { attachments: ['7', '999'] }))
      .thenRefuses('INVALID_FORM_BODY');
    expect(unknown.errors).toEqual([{ path: 'attachments.1.id', message: 'Unknown attachment' }]);
  });

  it('refuses an edit that would leave the message empty', () => {
    given(messageDecider, [created({ attachments: [png], content: '' })])
      .when(edit('1', { attachments: [] }))
      .thenRefuses('CANNOT_SEND_EMPTY_MESSAGE');
  });

  it('answers UNKNOWN_MESSAGE for a message of another channel or a deleted one', () => {
    given(messageDecider, [created()])
      .when({ ...edit('1', { content: 'x' }), channelId: '11' })
      .thenRefuses('UNKNOWN_MESSAGE');
    given(messageDecider, [])
      .when(edit('1', { content: 'x' }))
      .thenRefuses('UNKNOWN_MESSAGE');
  });
});

describe('message: delete', () => {
  const deleteBy = (actorId: string, manageMessages = false) => ({ type: 'DeleteMessage' as const, actorId, channelId: '10', manageMessages, bulk: false });

  it('lets the author or a MANAGE_MESSAGES holder delete, once', () => {
    const deleted = (by: string): MessageEvent => ({ type: 'MessageDeleted', data: { ...ids, deletedBy: by, bulk: false, attachments: [png] } });
    given(messageDecider, [created({ attachments: [png] })])
      .when(deleteBy('1'))
      .then([deleted('1')]);
    given(messageDecider, [created({ attachments: [png] })])
      .when(deleteBy('2', true))
      .then([deleted('2')]);
    given(messageDecider, [created()]).when(deleteBy('2')).thenRefuses('MISSING_PERMISSIONS');
    given(messageDecider, [created({ attachments: [png] }), deleted('1')])
      .when(deleteBy('1'))
      .thenRefuses('UNKNOWN_MESSAGE');
  });
});

describe('message: reactions', () => {
  const add = (userId: string, emoji = thumbsUp) => ({ type: 'AddReaction' as const, userId, channelId: '10', emoji });

  it('adds a reaction once per user and emoji, carrying the count after it', () => {
    given(messageDecider, [created()])
      .when(add('2'))
      .then([reacted('2', 1)]);
    given(messageDecider, [created(), reacted('2', 1)])
      .when(add('3'))
      .then([reacted('3', 2)]);
    given(messageDecider, [created(), reacted('2', 1)])
      .when(add('2'))
      .then([]);
  });

  it('allows at most 20 distinct emojis on a message', () => {
    const emojis = Array.from({ length: 20 }, (_, i) => ({ id: String(500 + i), name: `e${i}`, animated: false }));
    const full = [created(), ...emojis.map((emoji) => reacted('2', 1, emoji))];
    given(messageDecider, full).when(add('3')).thenRefuses('MAX_REACTIONS');
    given(messageDecider, full)
      .when(add('3', emojis[0]))
      .then([reacted('3', 2, emojis[0])]);
  });

  it("removes one's own reaction, and someone else's only with MANAGE_MESSAGES", () => {
    const remove = (actorId: string, userId: string, manageMessages = false) => ({
      type: 'RemoveReaction' as const,
      actorId,
      userId,
      channelId: '10',
      emoji: thumbsUp,
      manageMessages,
    });
    const removed = (userId: string, by: string, count: number): MessageEvent => ({
      type: 'ReactionRemoved',
      data: { messageId: '100', channelId: '10', guildId: '5', messageAuthorId: '1', emoji: thumbsUp, userId, removedBy: by, count },
    });
    const state = [created(), reacted('2', 1), reacted('3', 2)];
    given(messageDecider, state)
      .when(remove('2', '2'))
      .then([removed('2', '2', 1)]);
    given(messageDecider, state).when(remove('2', '3')).thenRefuses('MISSING_PERMISSIONS');
    given(messageDecider, state)
      .when(remove('1', '3', true))
      .then([removed('3', '1', 1)]);
    given(messageDecider, state).when(remove('4', '4')).then([]);
  });

  it('clears all reactions or those of one emoji, with MANAGE_MESSAGES', () => {
    const heart = { id: null, name: '❤️', animated: false };
    const state = [created(), reacted('2', 1), reacted('2', 1, heart)];
    const clear = (emoji: ReactionEmoji | null, manageMessages = true) => ({
      type: 'ClearReactions' as const,
      actorId: '9',
      channelId: '10',
      emoji,
      manageMessages,
    });
    const cleared = (emoji: ReactionEmoji | null): MessageEvent => ({
      type: 'ReactionsCleared',
      data: { messageId: '100', channelId: '10', guildId: '5', messageAuthorId: '1', emoji, clearedBy: '9' },
    });
    given(messageDecider, state)
      .when(clear(null))
      .then([cleared(null)]);
    given(messageDecider, state)
      .when(clear(heart))
      .then([cleared(heart)]);
    given(messageDecider, state).when(clear(null, false)).thenRefuses('MISSING_PERMISSIONS');
    given(messageDecider, [...state, cleared(heart)])
      .when(clear(heart))
      .then([]);
    given(messageDecider, [...state, cleared(null)])
      .when(add('2'))
      .then([reacted('2', 1)]);
  });

  it('reads route emojis: unicode (with modifiers, flags, keycaps) and name:id customs; anything else is an unknown emoji', () => {
    expect(parseEmoji('👍')).toEqual(thumbsUp);
    for (const emoji of ['👍🏽', '❤️', '🇫🇷', '1️⃣', '👨‍👩‍👧']) expect(parseEmoji(emoji).name).toBe(emoji);
    expect(parseEmoji('party:123')).toEqual({ id: '123', name: 'party', animated: false });
    expect(parseEmoji('a:dance:456')).toEqual({ id: '456', name: 'dance', animated: true });
    for (const text of ['hello', 'x:abc', ':12', '👍👍', '']) expect(() => parseEmoji(text)).toThrow(expect.objectContaining({ code: 'UNKNOWN_EMOJI' }));
  });
});

describe('pins', () => {
  const [T1, T2] = ['2024-01-01T00:00:01.000Z', '2024-01-01T00:00:02.000Z'];
  const pin = (messageId: string, at: string) => ({ type: 'PinMessage' as const, channelId: '10', guildId: '5', messageId, actorId: '1', at: Date.parse(at) });
  const pinned = (messageId: string, pinnedAt: string, last = pinnedAt): PinEvent => ({
    type: 'MessagePinned',
    data: { channelId: '10', guildId: '5', messageId, pinnedAt, pinnedBy: '1', lastPinTimestamp: last },
  });

  it('pins once, and unpins with the latest remaining pin time', () => {
    given(pinDecider, [])
      .when(pin('a', T1))
      .then([pinned('a', T1)]);
    given(pinDecider, [pinned('a', T1)])
      .when(pin('a', T2))
      .then([]);
    given(pinDecider, [pinned('a', T1), pinned('b', T2)])
      .when({ type: 'UnpinMessage', channelId: '10', guildId: '5', messageId: 'b', actorId: '1' })
      .then([{ type: 'MessageUnpinned', data: { channelId: '10', guildId: '5', messageId: 'b', unpinnedBy: '1', lastPinTimestamp: T1 } }]);
    given(pinDecider, []).when({ type: 'UnpinMessage', channelId: '10', guildId: '5', messageId: 'b', actorId: '1' }).then([]);
  });

  it('holds at most 50 pins per channel', () => {
    const full = Array.from({ length: MAX_PINS }, (_, i) => pinned(`m${i}`, `t${i}`));
    given(pinDecider, full).when(pin('extra', T1)).thenRefuses('MAX_PINS');
  });
});

describe('nonce claims', () => {
  const claim = (messageId: string, at: number) => ({ type: 'ClaimNonce' as const, channelId: '10', authorId: '1', nonce: 'n', messageId, at });
  const claimed = (messageId: string, at: number) => ({
    type: 'MessageNonceClaimed' as const,
    data: { channelId: '10', authorId: '1', nonce: 'n', messageId, claimedAt: at },
  });

  it('hands the first message id to every send of the nonce within 5 minutes, and a new one after', () => {
    given(nonceDecider, [])
      .when(claim('a', 0))
      .then([claimed('a', 0)]);
    given(nonceDecider, [claimed('a', 0)])
      .when(claim('b', NONCE_WINDOW_MS - 1))
      .then([]);
    given(nonceDecider, [claimed('a', 0)])
      .when(claim('b', NONCE_WINDOW_MS))
      .then([claimed('b', NONCE_WINDOW_MS)]);
  });
});

describe('bulk delete', () => {
  const now = Date.UTC(2024, 5, 1);
  const fresh = (offsetMs: number) => snowflakeAt(now - offsetMs);

  it('takes 2-100 distinct ids of messages under 14 days old', () => {
    expect(() => assertBulkDeletable([fresh(1), fresh(2)], now)).not.toThrow();
    expect(() => assertBulkDeletable([fresh(1)], now)).toThrow(expect.objectContaining({ code: 'INVALID_FORM_BODY' }));
    expect(() =>
      assertBulkDeletable(
        Array.from({ length: 101 }, (_, i) => fresh(i)),
        now,
      ),
    ).toThrow(DomainError);
    const old = fresh(15 * 24 * 3600 * 1000);
    expect(() => assertBulkDeletable([fresh(1), old], now)).toThrow(
      expect.objectContaining({ errors: [{ path: 'messages.1', message: 'Messages older than 14 days cannot be bulk deleted' }] }),
    );
    expect(() => assertBulkDeletable([fresh(1), fresh(1)], now)).toThrow(
      expect.objectContaining({ errors: [{ path: 'messages.1', message: 'Duplicate message id' }] }),
    );
  });

  it('records the deleted ids once, and nothing when none was deleted', () => {
    const command = { type: 'RecordBulkDelete' as const, channelId: '10', guildId: '5', messageIds: ['a', 'b'], actorId: '1' };
    given(bulkDeleteDecider, [])
      .when(command)
      .then([{ type: 'MessagesBulkDeleted', data: { channelId: '10', guildId: '5', messageIds: ['a', 'b'], deletedBy: '1' } }]);
    given(bulkDeleteDecider, [])
      .when({ ...command, messageIds: [] })
      .then([]);
  });
});

describe('DM channels', () => {
  const opened = {
    type: 'DmChannelOpened' as const,
    data: { channelId: 'c', type: 1 as const, ownerId: null, name: null, recipients: [ada, bob], openedBy: '1' },
  };
  const open = (opener: MessageUser, recipient: MessageUser, channelId = 'c') => ({ type: 'OpenDm' as const, channelId, opener, recipient });

  it('opens one channel per pair of users, whoever opens it, and reuses it', () => {
    expect(dmPairStream('2', '10')).toBe(dmPairStream('10', '2'));
    given(dmChannelDecider, []).when(open(ada, bob)).then([opened]);
    given(dmChannelDecider, [opened])
      .when(open(bob, ada, 'other'))
      .then([]);
    given(dmChannelDecider, []).when(open(ada, ada)).thenRefuses('INVALID_FORM_BODY');
  });

  it('closes for one user only, and reopens with the same channel', () => {
    const closed = { type: 'DmChannelClosed' as const, data: { channelId: 'c', userId: '1' } };
    given(dmChannelDecider, [opened]).when({ type: 'CloseDm', userId: '1' }).then([closed]);
    given(dmChannelDecider, [opened, closed]).when({ type: 'CloseDm', userId: '1' }).then([closed]);
    given(dmChannelDecider, []).when({ type: 'CloseDm', userId: '1' }).then([]);
    given(dmChannelDecider, [opened, closed])
      .when(open(ada, bob, 'new'))
      .then([{ type: 'DmChannelReopened', data: { channelId: 'c', userId: '1', recipients: [ada, bob] } }]);
  });

  it('is left for good with an account’s deletion, and ends once both participants are gone', () => {
    const left = (userId: string, remaining: string[]) => ({ type: 'DmRecipientLeft' as const, data: { channelId: 'c', userId, remaining } });
    const leave = (userId: string, deletedIds: string[] = []) => ({ type: 'LeaveDm' as const, userId, deletedIds });
    given(dmChannelDecider, [opened])
      .when(leave('1'))
      .then([left('1', ['2'])]);
    given(dmChannelDecider, [opened, left('1', ['2'])])
      .when(leave('2'))
      .then([left('2', [])]);
    // Whoever goes first, and an account deleted before leaving was recorded counts as gone.
    given(dmChannelDecider, [opened, left('2', ['1'])])
      .when(leave('1'))
      .then([left('1', [])]);
    given(dmChannelDecider, [opened])
      .when(leave('2', ['1']))
      .then([left('2', [])]);
    // Once only, and only by a participant of a DM that exists.
    given(dmChannelDecider, [opened, left('1', ['2'])])
      .when(leave('1'))
      .then([]);
    given(dmChannelDecider, [opened]).when(leave('3')).then([]);
    given(dmChannelDecider, []).when(leave('1')).then([]);
    expect([endsDm(left('1', ['2']).data), endsDm(left('2', []).data)]).toEqual([false, true]);
  });
});

describe('group DMs', () => {
  const carol = user('3', 'carol');
  const opened = {
    type: 'DmChannelOpened' as const,
    data: { channelId: 'g', type: 3 as const, ownerId: '1', name: null, recipients: [ada, bob], openedBy: '1' },
  };

  it('creates with the creator as owner and each recipient once, at most 10 participants', () => {
    given(groupDmDecider, [])
      .when({ type: 'CreateGroupDm', channelId: 'g', owner: ada, recipients: [bob, bob, ada] })
      .then([opened]);
    const many = Array.from({ length: 10 }, (_, i) => user(String(100 + i)));
    given(groupDmDecider, []).when({ type: 'CreateGroupDm', channelId: 'g', owner: ada, recipients: many }).thenRefuses('INVALID_FORM_BODY');
  });

  it('lets participants add users up to the limit; outsiders cannot see the channel', () => {
    given(groupDmDecider, [opened])
      .when({ type: 'AddRecipient', actorId: '2', user: carol })
      .then([{ type: 'RecipientAdded', data: { channelId: 'g', user: carol, addedBy: '2', recipients: [ada, bob, carol], ownerId: '1', name: null } }]);
    given(groupDmDecider, [opened]).when({ type: 'AddRecipient', actorId: '2', user: ada }).then([]);
    given(groupDmDecider, [opened]).when({ type: 'AddRecipient', actorId: '3', user: carol }).thenRefuses('UNKNOWN_CHANNEL');
    const full = { ...opened, data: { ...opened.data, recipients: Array.from({ length: 10 }, (_, i) => user(String(i + 1))) } };
    given(groupDmDecider, [full])
      .when({ type: 'AddRecipient', actorId: '1', user: user('99') })
      .thenRefuses('MAX_RECIPIENTS');
  });

  it('lets any participant rename it', () => {
    given(groupDmDecider, [opened])
      .when({ type: 'RenameGroupDm', actorId: '2', name: 'crew' })
      .then([{ type: 'GroupDmRenamed', data: { channelId: 'g', name: 'crew', renamedBy: '2' } }]);
    given(groupDmDecider, [opened]).when({ type: 'RenameGroupDm', actorId: '2', name: null }).then([]);
    given(groupDmDecider, [opened]).when({ type: 'RenameGroupDm', actorId: '3', name: 'x' }).thenRefuses('UNKNOWN_CHANNEL');
  });

  it('lets the owner remove anyone and anyone leave; the next participant inherits ownership', () => {
    given(groupDmDecider, [opened]).when({ type: 'RemoveRecipient', actorId: '2', userId: '1' }).thenRefuses('MISSING_PERMISSIONS');
    given(groupDmDecider, [opened])
      .when({ type: 'RemoveRecipient', actorId: '1', userId: '2' })
      .then([{ type: 'RecipientRemoved', data: { channelId: 'g', user: bob, removedBy: '1', ownerId: '1' } }]);
    given(groupDmDecider, [opened])
      .when({ type: 'RemoveRecipient', actorId: '1', userId: '1' })
      .then([{ type: 'RecipientRemoved', data: { channelId: 'g', user: ada, removedBy: '1', ownerId: '2' } }]);
  });
});

describe('components', () => {
  const button = (overrides: object = {}) => ({ type: 2, style: 1, label: 'Go', custom_id: 'go', ...overrides });
  const select = { type: 3, custom_id: 'pick', options: [{ label: 'A', value: 'a' }] };
  const errorsOf = (value: unknown) => {
    try {
      validateComponents(value);
    } catch (error) {
      return (error as DomainError).errors;
    }
    throw new Error('expected a refusal');
  };

  it('accepts rows of buttons or one select, normalized, and passes type 4 through untouched', () => {
    const opaque = { type: 4, custom_id: 'text', whatever: { kept: true } };
    expect(
      validateComponents([
        { type: 1, components: [button({ extra: 'dropped' }), button({ style: 5, url: 'https://x.test', custom_id: undefined })] },
        { type: 1, components: [select] },
        { type: 1, components: [opaque] },
      ]),
    ).toEqual([
      { type: 1, components: [button(), { type: 2, style: 5, label: 'Go', url: 'https://x.test' }] },
      { type: 1, components: [select] },
      { type: 1, components: [opaque] },
    ]);
  });

  it('reports each problem with its dot/index path', () => {
    expect(errorsOf([{ type: 1, components: [button(), button({ custom_id: '' })] }])).toEqual([
      { path: 'components.0.components.1.custom_id', message: 'Must be between 1 and 100 in length.' },
    ]);
    expect(errorsOf([{ type: 1, components: [button({ style: 5, url: 'http://x.test' })] }])).toEqual([
      { path: 'components.0.components.0.custom_id', message: 'A link button cannot have a custom_id' },
      { path: 'components.0.components.0.url', message: 'Must be an https:// URL' },
    ]);
    expect(errorsOf([{ type: 1, components: [button({ style: 1, custom_id: undefined, url: 'https://x.test' })] }])).toEqual([
      { path: 'components.0.components.0.url', message: 'Only link buttons (style 5) have a url' },
      { path: 'components.0.components.0.custom_id', message: 'This field is required' },
    ]);
    expect(errorsOf([{ type: 1, components: [button({ style: 6 })] }])![0].path).toBe('components.0.components.0.style');
    expect(errorsOf([{ type: 1, components: [button({ label: 'x'.repeat(81) })] }])![0].path).toBe('components.0.components.0.label');
    expect(errorsOf([{ type: 1, components: [button(), button({ custom_id: 'go' })] }])![0]).toEqual({
      path: 'components.0.components.1.custom_id',
      message: 'Duplicate custom_id: already used at components.0.components.0.custom_id',
    });
  });

  it('enforces 5 rows, 5 children per row, a string select alone, and no buttons beside a select', () => {
    const row = { type: 1, components: [button()] };
    expect(errorsOf(Array.from({ length: 6 }, () => row))).toEqual([{ path: 'components', message: 'Must have at most 5 action rows' }]);
    expect(errorsOf([{ type: 1, components: Array.from({ length: 6 }, (_, i) => button({ custom_id: `b${i}` })) }])![0].path).toBe('components.0.components');
    expect(errorsOf([{ type: 1, components: [select, button()] }])).toEqual([
      { path: 'components.0.components', message: 'A string select must be alone in its action row' },
    ]);
    expect(errorsOf([{ type: 1, components: [{ type: 5, custom_id: 'u' }, button()] }])).toEqual([
      { path: 'components.0.components', message: 'An action row holding a select menu cannot also hold buttons' },
    ]);
    expect(errorsOf([button()])).toEqual([
      {
        path: 'components.0.type',
        message: 'Must be an action row (1); buttons and selects go inside rows, and layout components need the flag IS_COMPONENTS_V2 (32768)',
      },
    ]);
  });

  it('bounds select options: 1-25, label and value 1-100, values unique, min/max consistent', () => {
    const options = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `L${i}`, value: `v${i}` }));
    const withSelect = (overrides: object) => [{ type: 1, components: [{ ...select, ...overrides }] }];
    expect(errorsOf(withSelect({ options: [] }))![0].path).toBe('components.0.components.0.options');
    expect(errorsOf(withSelect({ options: options(26) }))![0].path).toBe('components.0.components.0.options');
    expect(errorsOf(withSelect({ options: [{ label: '', value: 'x'.repeat(101) }] }))).toEqual([
      { path: 'components.0.components.0.options.0.label', message: 'Must be between 1 and 100 in length.' },
      { path: 'components.0.components.0.options.0.value', message: 'Must be between 1 and 100 in length.' },
    ]);
    expect(
      errorsOf(
        withSelect({
          options: [
            { label: 'a', value: 'v' },
            { label: 'b', value: 'v' },
          ],
        }),
      )![0].path,
    ).toBe('components.0.components.0.options.1.value');
    expect(errorsOf(withSelect({ options: options(2), min_values: 2, max_values: 1 }))![0].path).toBe('components.0.components.0.min_values');
    expect(errorsOf(withSelect({ options: options(2), max_values: 3 }))![0].path).toBe('components.0.components.0.max_values');
  });
});

describe('mentions', () => {
  it('finds users, roles, channels and @everyone/@here outside code', () => {
    expect(parseMentions('hi <@1> <@!2> <@1> <@&3> <#4> @here')).toEqual({ users: ['1', '2'], roles: ['3'], channels: ['4'], everyone: true });
    expect(parseMentions('`<@1>` ```\n@everyone <@&3>\n``` <@5>')).toEqual({ users: ['5'], roles: [], channels: [], everyone: false });
    expect(parseMentions('mail me@everyone.test? no: @everyone-ish').everyone).toBe(true);
    expect(parseMentions('<@abc> <@&> plain').users).toEqual([]);
  });

  it('keeps only what allowed_mentions lets through', () => {
    const parsed = parseMentions('<@1> <@2> <@&3> @everyone');
    expect(allowMentions(parsed, undefined)).toEqual(parsed);
    expect(allowMentions(parsed, { parse: [] })).toEqual({ users: [], roles: [], channels: [], everyone: false });
    expect(allowMentions(parsed, { parse: ['roles'], users: ['2'] })).toEqual({ users: ['2'], roles: ['3'], channels: [], everyone: false });
    expect(allowMentions(parsed, { parse: ['users', 'everyone'] })).toEqual({ users: ['1', '2'], roles: [], channels: [], everyone: true });
  });
});

describe('user, role, mentionable and channel selects', () => {
  const row = (select: object) => [{ type: 1, components: [{ custom_id: 's', ...select }] }];
  const errorsOf = (value: unknown) => {
    try {
      validateComponents(value);
    } catch (error) {
      return (error as DomainError).errors;
    }
    throw new Error('expected a refusal');
  };

  it('keeps their known fields and default_values of the kinds each offers', () => {
    const defaults = [
      { id: '1', type: 'user' },
      { id: '2', type: 'role' },
    ];
    expect(validateComponents(row({ type: 7, max_values: 2, default_values: defaults, extra: true }))).toEqual(
      row({ type: 7, max_values: 2, default_values: defaults }),
    );
    expect(validateComponents(row({ type: 8, channel_types: [0, 0, 2] }))).toEqual(row({ type: 8, channel_types: [0, 2] }));
  });

  it('refuses default values of another kind, too many, twice, or not ids, and channel_types off channel selects', () => {
    expect(errorsOf(row({ type: 5, default_values: [{ id: '1', type: 'role' }] }))).toEqual([
      { path: 'components.0.components.0.default_values.0.type', message: 'Must be one of: user' },
    ]);
    expect(
      errorsOf(
        row({
          type: 6,
          default_values: [
            { id: '1', type: 'role' },
            { id: '2', type: 'role' },
          ],
        }),
      ),
    ).toEqual([{ path: 'components.0.components.0.default_values', message: 'Must have between 1 and 1 values, as min_values and max_values allow' }]);
    expect(
      errorsOf(
        row({
          type: 6,
          max_values: 3,
          default_values: [
            { id: '1', type: 'role' },
            { id: '1', type: 'role' },
            { id: 'x', type: 'role' },
          ],
        }),
      ),
    ).toEqual([
      { path: 'components.0.components.0.default_values.1.id', message: 'Given more than once' },
      { path: 'components.0.components.0.default_values.2.id', message: 'Must be a snowflake' },
    ]);
    expect(errorsOf(row({ type: 5, channel_types: [0] }))).toEqual([
      { path: 'components.0.components.0.channel_types', message: 'Only channel selects (8) have channel_types' },
    ]);
  });
});

describe('Components V2', () => {
  const text = (content: string) => ({ type: 10, content });
  const thumbnail = { type: 11, media: { url: 'https://x.test/a.png' } };
  const errorsOf = (value: unknown) => {
    try {
      validateComponents(value, true);
    } catch (error) {
      return (error as DomainError).errors;
    }
    throw new Error('expected a refusal');
  };

  it('takes the layout components, nested, rebuilt from their known fields', () => {
    const layout = [
      {
        type: 17,
        accent_color: 0x5865f2,
        components: [
          text('# Title'),
          { type: 9, components: [text('beside')], accessory: thumbnail },
          { type: 14, divider: true, spacing: 2 },
          { type: 12, items: [{ media: { url: 'attachment://a.png' }, description: 'A' }] },
          { type: 13, file: { url: 'attachment://b.txt' }, extra: 1 },
          { type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] },
        ],
      },
      { type: 10, id: 7, content: 'after' },
    ];
    const checked = validateComponents(layout, true);
    expect(checked).toEqual([
      { ...layout[0], components: [...layout[0].components!.slice(0, 4), { type: 13, file: { url: 'attachment://b.txt' } }, layout[0].components![5]] },
      layout[1],
    ]);
    // Without the flag, layout components are refused.
    expect(() => validateComponents(layout)).toThrow();
  });

  it('counts at most 40 components, nested ones included, and 4000 characters of text', () => {
    const many = Array.from({ length: 41 }, (_, i) => text(`t${i}`));
    expect(errorsOf(many)).toEqual([{ path: 'components', message: 'Must have at most 40 components in all, nested ones included' }]);
    expect(errorsOf([{ type: 17, components: Array.from({ length: 40 }, () => text('x')) }])![0].path).toBe('components');
    expect(errorsOf([text('x'.repeat(3000)), text('y'.repeat(1001))])).toEqual([
      { path: 'components', message: 'The text displays must hold at most 4000 characters in all' },
    ]);
  });

  it('holds sections, containers and media to their rules, each at its path', () => {
    expect(errorsOf([{ type: 9, components: [text('a')] }])).toEqual([{ path: 'components.0.accessory', message: 'This field is required' }]);
    expect(errorsOf([{ type: 9, components: [text('a'), text('b'), text('c'), text('d')], accessory: thumbnail }])).toEqual([
      { path: 'components.0.components', message: 'Must have between 1 and 3 entries' },
    ]);
    expect(errorsOf([{ type: 9, components: [{ type: 14 }], accessory: { type: 10, content: 'x' } }])).toEqual([
      { path: 'components.0.components.0.type', message: 'Must be a text display (10)' },
      { path: 'components.0.accessory.type', message: 'Must be a thumbnail (11) or a button (2)' },
    ]);
    expect(errorsOf([{ type: 17, components: [{ type: 17, components: [text('x')] }] }])).toEqual([
      { path: 'components.0.components.0.type', message: 'A container cannot hold another container' },
    ]);
    expect(errorsOf([{ type: 13, file: { url: 'https://x.test/b.txt' } }])).toEqual([
      { path: 'components.0.file.url', message: 'Must be attachment://<filename>' },
    ]);
    expect(errorsOf([{ type: 12, items: [] }])).toEqual([{ path: 'components.0.items', message: 'Must have between 1 and 10 entries' }]);
    expect(errorsOf([text('a'), { type: 10, id: 1, content: 'b' }, { type: 10, id: 1, content: 'c' }])).toEqual([
      { path: 'components.2.id', message: 'Duplicate id: already used at components.1.id' },
    ]);
    expect(errorsOf([{ type: 17, components: [text('x')], accent_color: 0x1000000 }])![0].path).toBe('components.0.accent_color');
  });
});
