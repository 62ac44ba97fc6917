// Given/when/then on the thread aggregate: creation, permissions inherited from the parent, locking, archiving, members.
import { describe, expect, it } from 'vitest';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission, threadPermissions } from '../../domain/permissions.js';
import { type ThreadData, type ThreadEvent, threadDecider } from '../../domain/thread.js';
import { given } from '../support/given.js';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-02T00:00:00.000Z';
const EVERYONE = DEFAULT_EVERYONE_PERMISSIONS;
const MOD = EVERYONE | Permission.MANAGE_THREADS;
const owner = { id: 'owner', parentPermissions: EVERYONE };
const alice = { id: 'alice', parentPermissions: EVERYONE };
const mod = { id: 'mod', parentPermissions: MOD };
const blind = { id: 'blind', parentPermissions: 0n };

const thread = (fields: Partial<ThreadData> = {}): ThreadData => ({
  id: 't',
  type: 11,
  guild_id: 'g',
  parent_id: 'c',
  owner_id: 'owner',
  name: 'Topic',
  rate_limit_per_user: 0,
  archived: false,
  auto_archive_duration: 4320,
  archive_timestamp: T0,
  locked: false,
  create_timestamp: T0,
  ...fields,
});
const created = (fields: Partial<ThreadData> = {}): ThreadEvent[] => [
  { type: 'ThreadCreated', data: { guildId: 'g', thread: thread(fields), fromMessage: false } },
  { type: 'ThreadMemberAdded', data: { guildId: 'g', threadId: 't', parentId: 'c', userId: 'owner', joinTimestamp: T0, memberCount: 1 } },
];
const updated = (changes: { key: string; old_value?: unknown; new_value?: unknown }[]): ThreadEvent => ({
  type: 'ThreadUpdated',
  data: { guildId: 'g', threadId: 't', parentId: 'c', changes },
});
/** The changes that unarchive the thread archived at `archivedAt`, at `at`. */
const unarchiving = (archivedAt: string, at: string) => [
  { key: 'archived', old_value: true, new_value: false },
  { key: 'archive_timestamp', old_value: archivedAt, new_value: at },
];
/** A message at `at` reopening the thread archived at `archivedAt`. */
const reopenedByMessage = (archivedAt: string, at: string): ThreadEvent => ({
  type: 'ThreadUpdated',
  data: { guildId: 'g', threadId: 't', parentId: 'c', changes: unarchiving(archivedAt, at), byMessage: true },
});
const added = (userId: string, memberCount: number, at = T1): ThreadEvent => ({
  type: 'ThreadMemberAdded',
  data: { guildId: 'g', threadId: 't', parentId: 'c', userId, joinTimestamp: at, memberCount },
});

describe('creating a thread', () => {
  it('creates a public thread in a text channel, its creator its first member', () => {
    given(threadDecider, []).when({ type: 'CreateThread', actor: owner, parentType: 0, fromMessage: false, thread: thread() }).then(created());
  });

  it('needs CREATE_PUBLIC_THREADS or CREATE_PRIVATE_THREADS in the parent, by the thread’s type', () => {
    const noPublic = { id: 'owner', parentPermissions: EVERYONE & ~Permission.CREATE_PUBLIC_THREADS };
    given(threadDecider, [])
      .when({ type: 'CreateThread', actor: noPublic, parentType: 0, fromMessage: false, thread: thread() })
      .thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, [])
      .when({ type: 'CreateThread', actor: noPublic, parentType: 0, fromMessage: false, thread: thread({ type: 12, invitable: true }) })
      .then(created({ type: 12, invitable: true }));
    const noPrivate = { id: 'owner', parentPermissions: EVERYONE & ~Permission.CREATE_PRIVATE_THREADS };
    given(threadDecider, [])
      .when({ type: 'CreateThread', actor: noPrivate, parentType: 0, fromMessage: false, thread: thread({ type: 12 }) })
      .thenRefuses('MISSING_PERMISSIONS');
  });

  it('refuses a second thread on one message, private threads from messages, and parents that hold no threads', () => {
    given(threadDecider, created())
      .when({ type: 'CreateThread', actor: owner, parentType: 0, fromMessage: true, thread: thread() })
      .thenRefuses('THREAD_ALREADY_CREATED');
    given(threadDecider, [])
      .when({ type: 'CreateThread', actor: owner, parentType: 0, fromMessage: true, thread: thread({ type: 12 }) })
      .thenRefuses('INVALID_FORM_BODY');
    given(threadDecider, [])
      .when({ type: 'CreateThread', actor: owner, parentType: 5, fromMessage: false, thread: thread({ type: 11 }) })
      .thenRefuses('INVALID_FORM_BODY');
    given(threadDecider, [])
      .when({ type: 'CreateThread', actor: owner, parentType: 2, fromMessage: false, thread: thread() })
      .thenRefuses('CANNOT_EXECUTE_ON_CHANNEL_TYPE');
  });
});

describe('permissions in a thread', () => {
  it('are the parent’s, with SEND_MESSAGES_IN_THREADS for SEND_MESSAGES; private threads hide from non-members; locks stop all but MANAGE_THREADS', () => {
    const open = { private: false, locked: false, member: false };
    const onlyInThreads = (EVERYONE & ~Permission.SEND_MESSAGES) | Permission.SEND_MESSAGES_IN_THREADS;
    expect(threadPermissions(onlyInThreads, open) & Permission.SEND_MESSAGES).toBe(Permission.SEND_MESSAGES);
    expect(threadPermissions(EVERYONE & ~Permission.SEND_MESSAGES_IN_THREADS, open) & Permission.SEND_MESSAGES).toBe(0n);
    expect(threadPermissions(EVERYONE, { ...open, private: true })).toBe(0n);
    expect(threadPermissions(EVERYONE, { ...open, private: true, member: true }) & Permission.VIEW_CHANNEL).toBe(Permission.VIEW_CHANNEL);
    expect(threadPermissions(MOD, { ...open, private: true }) & Permission.VIEW_CHANNEL).toBe(Permission.VIEW_CHANNEL);
    expect(threadPermissions(EVERYONE, { ...open, locked: true }) & Permission.SEND_MESSAGES).toBe(0n);
    expect(threadPermissions(MOD, { ...open, locked: true }) & Permission.SEND_MESSAGES).toBe(Permission.SEND_MESSAGES);
    expect(threadPermissions(0n, open)).toBe(0n);
  });
});

describe('changing a thread', () => {
  it('lets the owner rename and archive it, stamping archive_timestamp', () => {
    given(threadDecider, created())
      .when({ type: 'UpdateThread', actor: owner, fields: { name: 'Renamed', archived: true }, at: T1 })
      .then([
        updated([
          { key: 'name', old_value: 'Topic', new_value: 'Renamed' },
          { key: 'archived', old_value: false, new_value: true },
          { key: 'archive_timestamp', old_value: T0, new_value: T1 },
        ]),
      ]);
  });

  it('keeps locking and slowmode for MANAGE_THREADS, and hides threads from those who cannot see the parent', () => {
    given(threadDecider, created())
      .when({ type: 'UpdateThread', actor: owner, fields: { locked: true }, at: T1 })
      .thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, created())
      .when({ type: 'UpdateThread', actor: alice, fields: { name: 'x' }, at: T1 })
      .thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, created())
      .when({ type: 'UpdateThread', actor: mod, fields: { locked: true, rate_limit_per_user: 5 }, at: T1 })
      .then([
        updated([
          { key: 'locked', old_value: false, new_value: true },
          { key: 'rate_limit_per_user', old_value: 0, new_value: 5 },
        ]),
      ]);
    given(threadDecider, created())
      .when({ type: 'UpdateThread', actor: blind, fields: { name: 'x' }, at: T1 })
      .thenRefuses('UNKNOWN_CHANNEL');
  });

  it('refuses changes to an archived thread unless they unarchive it, and a locked one to all but MANAGE_THREADS', () => {
    const archived = [...created(), updated([{ key: 'archived', old_value: false, new_value: true }])];
    given(threadDecider, archived)
      .when({ type: 'UpdateThread', actor: mod, fields: { name: 'x' }, at: T1 })
      .thenRefuses('THREAD_ARCHIVED');
    given(threadDecider, archived)
      .when({ type: 'UpdateThread', actor: alice, fields: { archived: false }, at: T1 })
      .then([updated(unarchiving(T0, T1))]);
    const locked = [...archived, updated([{ key: 'locked', old_value: false, new_value: true }])];
    given(threadDecider, locked)
      .when({ type: 'UpdateThread', actor: owner, fields: { archived: false }, at: T1 })
      .thenRefuses('THREAD_LOCKED');
  });

  it('is deleted by MANAGE_THREADS holders only', () => {
    given(threadDecider, created()).when({ type: 'DeleteThread', actor: owner }).thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, created())
      .when({ type: 'DeleteThread', actor: mod })
      .then([{ type: 'ThreadDeleted', data: { guildId: 'g', thread: thread() } }]);
  });

  it('goes with its parent channel, once, whoever started it', () => {
    given(threadDecider, created())
      .when({ type: 'DeleteWithParent' })
      .then([{ type: 'ThreadDeleted', data: { guildId: 'g', thread: thread(), withParent: true } }]);
    given(threadDecider, [...created(), { type: 'ThreadDeleted' as const, data: { guildId: 'g', thread: thread() } }])
      .when({ type: 'DeleteWithParent' })
      .then([]);
  });
});

describe('thread members', () => {
  it('adds members who can see the parent, once; not to an archived thread', () => {
    given(threadDecider, created())
      .when({ type: 'AddThreadMember', actor: owner, target: alice, at: T1 })
      .then([added('alice', 2)]);
    given(threadDecider, [...created(), added('alice', 2)])
      .when({ type: 'AddThreadMember', actor: owner, target: alice, at: T1 })
      .then([]);
    given(threadDecider, created()).when({ type: 'AddThreadMember', actor: owner, target: blind, at: T1 }).thenRefuses('MISSING_ACCESS');
    given(threadDecider, created()).when({ type: 'AddThreadMember', actor: owner, target: null, at: T1 }).thenRefuses('UNKNOWN_MEMBER');
    given(threadDecider, [...created(), updated([{ key: 'archived', old_value: false, new_value: true }])])
      .when({ type: 'AddThreadMember', actor: owner, target: alice, at: T1 })
      .thenRefuses('THREAD_ARCHIVED');
  });

  it('lets only members and MANAGE_THREADS holders see a private thread; a non-invitable one takes new members from moderators', () => {
    const priv = created({ type: 12, invitable: false });
    given(threadDecider, priv).when({ type: 'AddThreadMember', actor: alice, target: alice, at: T1 }).thenRefuses('UNKNOWN_CHANNEL');
    given(threadDecider, priv).when({ type: 'AddThreadMember', actor: owner, target: alice, at: T1 }).thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, priv)
      .when({ type: 'AddThreadMember', actor: mod, target: alice, at: T1 })
      .then([added('alice', 2)]);
  });

  it('removes members: oneself, or others with MANAGE_THREADS', () => {
    const withAlice = [...created(), added('alice', 2)];
    const removed: ThreadEvent = { type: 'ThreadMemberRemoved', data: { guildId: 'g', threadId: 't', parentId: 'c', userId: 'alice', memberCount: 1 } };
    given(threadDecider, withAlice).when({ type: 'RemoveThreadMember', actor: alice, userId: 'alice' }).then([removed]);
    given(threadDecider, withAlice).when({ type: 'RemoveThreadMember', actor: owner, userId: 'alice' }).thenRefuses('MISSING_PERMISSIONS');
    given(threadDecider, withAlice).when({ type: 'RemoveThreadMember', actor: mod, userId: 'alice' }).then([removed]);
  });

  it('a message joins its author and the mentioned who can see it, and reopens an archived thread', () => {
    const archived = [...created(), updated([{ key: 'archived', old_value: false, new_value: true }])];
    given(threadDecider, archived)
      .when({ type: 'ThreadMessageSent', author: alice, mentioned: [owner, mod, blind, mod], at: T1 })
      .then([reopenedByMessage(T0, T1), added('alice', 2), added('mod', 3)]);
  });

  it('a webhook’s message joins no author and reopens an archived thread, but not a locked one', () => {
    const archived = [...created(), updated([{ key: 'archived', old_value: false, new_value: true }])];
    const sent = { type: 'ThreadMessageSent' as const, author: null, mentioned: [], at: T1 };
    given(threadDecider, archived)
      .when(sent)
      .then([reopenedByMessage(T0, T1)]);
    given(threadDecider, [...created(), updated([{ key: 'locked', old_value: false, new_value: true }])])
      .when(sent)
      .then([]);
    given(threadDecider, [...archived, updated([{ key: 'locked', old_value: false, new_value: true }])])
      .when(sent)
      .thenRefuses('THREAD_ARCHIVED');
  });
});

describe('archiving an idle thread', () => {
  // Created at T0 with auto_archive_duration 60: idle from one hour after its latest activity.
  const hourly = created({ auto_archive_duration: 60 });
  const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
  const idle = (lastActivityAt: string, minutes: number) => ({ type: 'ArchiveIdleThread' as const, lastActivityAt, at: at(minutes) });
  const archivedAt = (minutes: number): ThreadEvent => ({
    type: 'ThreadArchived',
    data: { guildId: 'g', threadId: 't', parentId: 'c', archiveTimestamp: at(minutes) },
  });

  it('archives a thread with no activity for its auto_archive_duration, as of the clock, not before', () => {
    given(threadDecider, hourly)
      .when(idle(T0, 60))
      .then([archivedAt(60)]);
    given(threadDecider, hourly).when(idle(T0, 59)).then([]);
  });

  it('counts from its last message, as the read models know it', () => {
    given(threadDecider, hourly)
      .when(idle(at(30), 89))
      .then([]);
    given(threadDecider, hourly)
      .when(idle(at(30), 90))
      .then([archivedAt(90)]);
  });

  it('counts from its unarchiving and follows a changed duration, as the log has them, whatever the read models say', () => {
    const reopened = [...hourly, updated([{ key: 'archived', old_value: false, new_value: true }]), updated(unarchiving(T0, at(45)))];
    given(threadDecider, reopened).when(idle(T0, 100)).then([]);
    given(threadDecider, reopened)
      .when(idle(T0, 105))
      .then([archivedAt(105)]);
    const longer = [...hourly, updated([{ key: 'auto_archive_duration', old_value: 60, new_value: 1440 }])];
    given(threadDecider, longer).when(idle(T0, 61)).then([]);
  });

  it('archives a locked thread too', () => {
    given(threadDecider, [...hourly, updated([{ key: 'locked', old_value: false, new_value: true }])])
      .when(idle(T0, 61))
      .then([archivedAt(61)]);
  });

  it('leaves a thread archived or deleted meanwhile as it is, and archives once', () => {
    given(threadDecider, [...hourly, updated([{ key: 'archived', old_value: false, new_value: true }])])
      .when(idle(T0, 61))
      .then([]);
    const deleted: ThreadEvent = { type: 'ThreadDeleted', data: { guildId: 'g', thread: thread({ auto_archive_duration: 60 }) } };
    given(threadDecider, [...hourly, deleted])
      .when(idle(T0, 61))
      .then([]);
    given(threadDecider, [...hourly, archivedAt(61)])
      .when(idle(T0, 62))
      .then([]);
    given(threadDecider, []).when(idle(T0, 61)).then([]);
  });

  it('once archived by the clock, the thread refuses changes until a message or an edit reopens it', () => {
    given(threadDecider, [...hourly, archivedAt(61)])
      .when({ type: 'UpdateThread', actor: owner, fields: { name: 'Renamed' }, at: at(62) })
      .thenRefuses('THREAD_ARCHIVED');
    given(threadDecider, [...hourly, archivedAt(61)])
      .when({ type: 'ThreadMessageSent', author: owner, mentioned: [], at: at(62) })
      .then([reopenedByMessage(at(61), at(62))]);
  });
});
