// THREAD_LIST_SYNC's cost follows what an access change can change: permissions are computed only for the members
// with a session in the guild on this node whom the change concerns, and only in the channels with active threads
// whose permissions it changes. Counted through channelPermissions, which every visibility judgement goes through.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GuildEvent } from '../../domain/guild.js';
import { channelPermissions } from '../../domain/guildState.js';
import { Permission } from '../../domain/permissions.js';
import type { ThreadData, ThreadEvent } from '../../domain/thread.js';
import type { GatewayDeps } from '../../gateway/deps.js';
import { threadListSyncDispatches } from '../../gateway/dispatches/threadListSync.js';
import { type CommandWorld, EARLIER, appendStreams, commandDeps } from '../specs/support.js';
import { EVERYONE_PERMISSIONS, G, GENERAL, MOD_PERMISSIONS, MOD_ROLE, accounts, ada, bob, cy, eve, guildHistory } from '../specs/events.js';

vi.mock('../../domain/guildState.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../domain/guildState.js')>();
  return { ...actual, channelPermissions: vi.fn(actual.channelPermissions) };
});

const GUILD = `guild-${G}`;
/** #secret: hidden from @everyone. */
const SECRET = '12';
const secretCreated: GuildEvent = {
  type: 'ChannelCreated',
  data: {
    guildId: G,
    channel: {
      id: SECRET,
      type: 0,
      name: 'secret',
      position: 2,
      parent_id: null,
      permission_overwrites: [{ id: G, type: 0, allow: '0', deny: Permission.VIEW_CHANNEL.toString() }],
      topic: null,
      nsfw: false,
      rate_limit_per_user: 0,
    },
  },
};
const thread = (id: string, parentId: string): ThreadData => ({
  id,
  type: 11,
  guild_id: G,
  parent_id: parentId,
  owner_id: ada.id,
  name: `thread ${id}`,
  rate_limit_per_user: 0,
  archived: false,
  auto_archive_duration: 4320,
  archive_timestamp: EARLIER,
  locked: false,
  create_timestamp: EARLIER,
});
const threadStream = (data: ThreadData, ...members: string[]): [string, ThreadEvent[]] => [
  `thread-${data.id}`,
  [
    { type: 'ThreadCreated', data: { guildId: G, thread: data, fromMessage: false } },
    ...members.map((userId, i): ThreadEvent => ({
      type: 'ThreadMemberAdded',
      data: { guildId: G, threadId: data.id, parentId: data.parent_id, userId, joinTimestamp: EARLIER, memberCount: i + 1 },
    })),
  ],
];
// #general and #secret hold an active thread each, #announcements none; bob has joined #secret's.
const [GENERAL_THREAD, SECRET_THREAD] = [thread('700', GENERAL), thread('701', SECRET)];

let world: CommandWorld;
beforeEach(async () => {
  world = await commandDeps();
  const streams = [
    ...accounts(ada, bob, cy, eve),
    [GUILD, [...guildHistory, secretCreated]],
    threadStream(GENERAL_THREAD),
    threadStream(SECRET_THREAD, bob.id),
  ];
  await world.deps.settle(await appendStreams(world.eventStore, streams as [string, (GuildEvent | ThreadEvent)[]][]));
});
afterEach(() => world.close());

/** Appends the access change, then derives its dispatches for these users' sessions: each dispatch, and the [user, channel] pairs judged. */
async function derived(change: GuildEvent, sessionsOf: string[]) {
  await world.deps.settle(await appendStreams(world.eventStore, [[GUILD, [change]]]));
  const event = (await world.eventStore.readStream(GUILD)).at(-1)!;
  const judged = vi.mocked(channelPermissions);
  judged.mockClear();
  const listeners = { usersIn: (guildId: string) => new Set(guildId === G ? sessionsOf : []) };
  const dispatches = await threadListSyncDispatches.derive(event, world.deps as GatewayDeps, listeners);
  const pairs = new Set(judged.mock.calls.map(([, userId, channel]) => `${userId} ${channel.id}`));
  return { dispatches, pairs: [...pairs].sort() };
}

const sync = (userId: string, channelIds: string[], threadIds: string[], memberIds: string[] = []) => ({
  t: 'THREAD_LIST_SYNC',
  audience: { users: [userId] },
  d: expect.objectContaining({
    guild_id: G,
    channel_ids: channelIds,
    threads: threadIds.map((id) => expect.objectContaining({ id })),
    members: memberIds.map((id) => expect.objectContaining({ id, user_id: userId })),
  }),
});

describe('THREAD_LIST_SYNC for an access change', () => {
  it("of one member's overwrite judges that member, if connected, in that channel only", async () => {
    const overwrite = { id: bob.id, type: 1 as const, allow: Permission.VIEW_CHANNEL.toString(), deny: '0' };
    const { dispatches, pairs } = await derived({ type: 'ChannelOverwriteSet', data: { guildId: G, channelId: SECRET, overwrite, previous: null } }, [
      bob.id,
      cy.id,
    ]);
    expect(dispatches).toEqual([expect.objectContaining(sync(bob.id, [SECRET], [SECRET_THREAD.id], [SECRET_THREAD.id]))]);
    expect(pairs).toEqual([`${bob.id} ${SECRET}`]);
  });

  it("of a role's permissions judges its connected holders, in the channels with active threads only", async () => {
    const granted = (MOD_PERMISSIONS | Permission.ADMINISTRATOR).toString();
    const change = { key: 'permissions', old_value: MOD_PERMISSIONS.toString(), new_value: granted };
    // cy and bob are connected; eve holds the role too, without a session here.
    const { dispatches, pairs } = await derived({ type: 'RoleUpdated', data: { guildId: G, roleId: MOD_ROLE, changes: [change] } }, [bob.id, cy.id]);
    expect(dispatches).toEqual([expect.objectContaining(sync(cy.id, [SECRET], [SECRET_THREAD.id]))]);
    // Not bob (no such role) nor eve (no session), and not #announcements (no active thread).
    expect(pairs).toEqual([`${cy.id} ${GENERAL}`, `${cy.id} ${SECRET}`]);
  });

  it('with no session in the guild judges no one', async () => {
    const change = { key: 'permissions', old_value: EVERYONE_PERMISSIONS.toString(), new_value: (EVERYONE_PERMISSIONS | Permission.ADMINISTRATOR).toString() };
    const { dispatches, pairs } = await derived({ type: 'RoleUpdated', data: { guildId: G, roleId: G, changes: [change] } }, []);
    expect(dispatches).toEqual([]);
    expect(pairs).toEqual([]);
  });
});
