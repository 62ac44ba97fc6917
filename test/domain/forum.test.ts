// Given/when/then on forum and media channels: their fields and tags (guild aggregate), and posts with applied tags
// (thread aggregate).
import { describe, expect, it } from 'vitest';
import { ChannelFlag, type ForumTag, withTagIds } from '../../domain/forum.js';
import { guildDecider } from '../../domain/guild.js';
import { initialGuildState } from '../../domain/guildState.js';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission } from '../../domain/permissions.js';
import { type ThreadData, type ThreadEvent, threadDecider } from '../../domain/thread.js';
import { given } from '../support/given.js';

const T0 = '2025-01-01T00:00:00.000Z';
const EVERYONE = DEFAULT_EVERYONE_PERMISSIONS;
const author = { id: 'author', parentPermissions: EVERYONE };
const mod = { id: 'mod', parentPermissions: EVERYONE | Permission.MANAGE_THREADS };
const tag = (id: string, moderated = false): ForumTag => ({ id, name: id, moderated, emoji_id: null, emoji_name: null });
const TAGS = [tag('question'), tag('solved', true)];

const post = (fields: Partial<ThreadData> = {}): ThreadData => ({
  id: 't',
  type: 11,
  guild_id: 'g',
  parent_id: 'forum',
  owner_id: 'author',
  name: 'Help',
  rate_limit_per_user: 0,
  archived: false,
  auto_archive_duration: 4320,
  archive_timestamp: T0,
  locked: false,
  create_timestamp: T0,
  applied_tags: [],
  ...fields,
});
const opened = (fields: Partial<ThreadData> = {}): ThreadEvent[] => [
  { type: 'ThreadCreated', data: { guildId: 'g', thread: post(fields), fromMessage: false } },
  { type: 'ThreadMemberAdded', data: { guildId: 'g', threadId: 't', parentId: 'forum', userId: 'author', joinTimestamp: T0, memberCount: 1 } },
];
const open = (actor = author, fields: Partial<ThreadData> = {}, parentType = 15) =>
  ({ type: 'CreateThread', actor, parentType, fromMessage: false, thread: post(fields), forumTags: TAGS }) as const;
const retag = (actor: typeof author, applied_tags: string[]) => ({ type: 'UpdateThread', actor, fields: { applied_tags }, at: T0, forumTags: TAGS }) as const;

describe('a forum or media channel', () => {
  const guild = guildDecider.decide(
    { type: 'CreateGuild', guildId: 'g', ownerId: 'owner', name: 'Guild', icon: null, channelId: 'general', createdAt: T0 },
    initialGuildState(),
  );

  it('is created with its tags and the defaults of its type (a layout for forums only)', () => {
    const channel = { id: 'forum', name: 'help', position: 1, parent_id: null, permission_overwrites: [], topic: null, nsfw: false, rate_limit_per_user: 0 };
    const defaults = { available_tags: [], default_reaction_emoji: null, default_thread_rate_limit_per_user: 0, default_sort_order: null };
    given(guildDecider, guild)
      .when({ type: 'CreateChannel', actorId: 'owner', channelId: 'forum', fields: { name: 'help', type: 15, available_tags: TAGS } })
      .then([
        { type: 'ChannelCreated', data: { guildId: 'g', channel: { ...channel, type: 15, ...defaults, available_tags: TAGS, default_forum_layout: 0 } } },
      ]);
    given(guildDecider, guild)
      .when({ type: 'CreateChannel', actorId: 'owner', channelId: 'forum', fields: { name: 'help', type: 16 } })
      .then([{ type: 'ChannelCreated', data: { guildId: 'g', channel: { ...channel, type: 16, ...defaults } } }]);
  });

  it('refuses tags with one name twice, an emoji both custom and unicode or not the guild’s, a media layout, and tags on a text channel', () => {
    const create = (type: number, fields: object) =>
      given(guildDecider, guild)
        .when({ type: 'CreateChannel', actorId: 'owner', channelId: 'forum', fields: { name: 'help', type, ...fields }, emojiIds: new Set(['1']) })
        .thenRefuses('INVALID_FORM_BODY').errors;
    expect(create(15, { available_tags: [tag('a'), { ...tag('b'), name: 'a' }] })).toEqual([
      { path: 'available_tags.1.name', message: 'Tag names must be unique' },
    ]);
    expect(create(15, { default_reaction_emoji: { emoji_id: '1', emoji_name: '👍' } })).toEqual([
      { path: 'default_reaction_emoji', message: 'Only one of emoji_id and emoji_name may be set' },
    ]);
    expect(
      create(15, {
        available_tags: [
          { ...tag('a'), emoji_id: '1' },
          { ...tag('b'), emoji_id: '2' },
        ],
      }),
    ).toEqual([{ path: 'available_tags.1.emoji_id', message: 'Unknown emoji' }]);
    expect(create(16, { default_forum_layout: 1 })).toEqual([{ path: 'default_forum_layout', message: 'Not a field of channels of type 16' }]);
    expect(create(0, { available_tags: [] })).toEqual([{ path: 'available_tags', message: 'Not a field of channels of type 0' }]);
  });

  it('keeps the ids of its own tags and mints one for any other', () => {
    let next = 0;
    const mint = () => `new${++next}`;
    expect(
      withTagIds(
        [
          { id: 'question', name: 'q' },
          { id: 'elsewhere', name: 'x' },
          { name: 'y', moderated: true },
        ],
        TAGS,
        mint,
      ),
    ).toEqual([
      { ...tag('question'), name: 'q' },
      { ...tag('new1'), name: 'x' },
      { ...tag('new2', true), name: 'y' },
    ]);
  });
});

describe('a post', () => {
  it('opens with SEND_MESSAGES in the forum and the forum’s tags, its author its first member', () => {
    given(threadDecider, [])
      .when(open(author, { applied_tags: ['question'] }))
      .then(opened({ applied_tags: ['question'] }));
    given(threadDecider, [])
      .when(open(author, {}, 16))
      .then(opened());
    // Threads need no CREATE_PUBLIC_THREADS in a forum, but the forum's SEND_MESSAGES.
    const poster = { id: 'author', parentPermissions: EVERYONE & ~Permission.CREATE_PUBLIC_THREADS };
    given(threadDecider, []).when(open(poster)).then(opened());
    given(threadDecider, [])
      .when(open({ id: 'author', parentPermissions: EVERYONE & ~Permission.SEND_MESSAGES }))
      .thenRefuses('MISSING_PERMISSIONS');
  });

  it('carries only the forum’s tags, each once; a moderated one takes MANAGE_THREADS', () => {
    const unknown = given(threadDecider, [])
      .when(open(author, { applied_tags: ['question', 'other'] }))
      .thenRefuses('INVALID_FORM_BODY');
    expect(unknown.errors).toEqual([{ path: 'applied_tags.1', message: 'Unknown tag of this channel' }]);
    given(threadDecider, [])
      .when(open(author, { applied_tags: ['question', 'question'] }))
      .thenRefuses('INVALID_FORM_BODY');
    given(threadDecider, [])
      .when(open(author, { applied_tags: ['solved'] }))
      .thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, [])
      .when(open(mod, { owner_id: 'mod', applied_tags: ['solved'] }))
      .then([
        { type: 'ThreadCreated', data: { guildId: 'g', thread: post({ owner_id: 'mod', applied_tags: ['solved'] }), fromMessage: false } },
        { type: 'ThreadMemberAdded', data: { guildId: 'g', threadId: 't', parentId: 'forum', userId: 'mod', joinTimestamp: T0, memberCount: 1 } },
      ]);
  });

  it('is retagged by its author, moderated tags by MANAGE_THREADS holders only; threads elsewhere have no tags', () => {
    const changed = (from: string[], to: string[]): ThreadEvent => ({
      type: 'ThreadUpdated',
      data: { guildId: 'g', threadId: 't', parentId: 'forum', changes: [{ key: 'applied_tags', old_value: from, new_value: to }] },
    });
    given(threadDecider, opened())
      .when(retag(author, ['question']))
      .then([changed([], ['question'])]);
    given(threadDecider, opened())
      .when(retag(author, ['solved']))
      .thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, opened({ applied_tags: ['solved'] }))
      .when(retag(author, []))
      .thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, opened({ applied_tags: ['solved'] }))
      .when(retag(mod, []))
      .then([changed(['solved'], [])]);
    given(threadDecider, opened())
      .when(retag({ id: 'alice', parentPermissions: EVERYONE }, ['question']))
      .thenRefuses('MISSING_PERMISSIONS');
    const { applied_tags: _none, ...plain } = post({ parent_id: 'c' });
    given(threadDecider, [])
      .when({ type: 'CreateThread', actor: author, parentType: 0, fromMessage: false, thread: { ...plain, applied_tags: [] } })
      .thenRefuses('INVALID_FORM_BODY');
    given(threadDecider, [{ type: 'ThreadCreated', data: { guildId: 'g', thread: plain, fromMessage: false } }])
      .when(retag(author, []))
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('opened by a webhook joins no one; in a forum with REQUIRE_TAG it carries a tag', () => {
    const hook = { id: 'hook', parentPermissions: Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES };
    given(threadDecider, [])
      .when({ ...open(hook, { owner_id: 'hook' }), byWebhook: true })
      .then([{ type: 'ThreadCreated', data: { guildId: 'g', thread: post({ owner_id: 'hook' }), fromMessage: false, byWebhook: true } }]);
    given(threadDecider, [])
      .when({ ...open(author), forumFlags: ChannelFlag.REQUIRE_TAG })
      .thenRefuses('TAG_REQUIRED');
    given(threadDecider, [])
      .when({ ...open(author, { applied_tags: ['question'] }), forumFlags: ChannelFlag.REQUIRE_TAG })
      .then(opened({ applied_tags: ['question'] }));
  });

  it('is pinned by MANAGE_THREADS holders while no other post of its forum is', () => {
    const pin = (actor: typeof author, pinnedPostId: string | null, flags: number = ChannelFlag.PINNED) =>
      ({ type: 'UpdateThread', actor, fields: { flags }, at: T0, pinnedPostId }) as const;
    given(threadDecider, opened())
      .when(pin(mod, null))
      .then([{ type: 'ThreadUpdated', data: { guildId: 'g', threadId: 't', parentId: 'forum', changes: [{ key: 'flags', old_value: 0, new_value: 2 }] } }]);
    given(threadDecider, opened()).when(pin(author, null)).thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, opened()).when(pin(mod, 'other')).thenRefuses('MAX_PINNED_THREADS');
    given(threadDecider, opened({ flags: 2 }))
      .when(pin(mod, 't'))
      .then([]);
    given(threadDecider, opened())
      .when(pin(mod, null, ChannelFlag.REQUIRE_TAG))
      .thenRefuses('INVALID_FORM_BODY');
  });
});
