// Command specs of moderation in bulk: a prune judges activity by the read model and membership by the guild stream, a
// bulk ban leaves unknown users out, and a send that passed its access check finds its author pruned meanwhile.
import { describe, expect, it } from 'vitest';
import { sendMessage } from '../../commands/messages/send.js';
import { banUsers, countPrunable, pruneMembers } from '../../commands/moderation.js';
import type { DomainError } from '../../domain/errors.js';
import { Permission } from '../../domain/permissions.js';
import type { MembersPruned } from '../../domain/moderation.js';
import { comparePositions } from '../../ports/eventStore.js';
import { G, GENERAL, accounts, ada, bob, cy, finn, guildStream, joined, messageUser, roleCreated, rolesAdded, sent } from './events.js';
import { NOW, appendStreams, by, commandDeps, givenStreams } from './support.js';

const people = accounts(ada, bob, finn);
const DAY_MS = 24 * 60 * 60 * 1000;
const daysBefore = (days: number) => new Date(Date.parse(NOW) - days * DAY_MS).toISOString();
const prunedData = (userIds: string[]): MembersPruned['data'] => ({ guildId: G, userIds, days: 7, part: 0, total: userIds.length });

describe('pruneMembers', () => {
  it('prunes the members the activity read model shows inactive for `days`, and not one who sent a message since', () => {
    const message = by(bob.id, sent({ id: '100', author: messageUser(bob) }), { createdAt: daysBefore(2) });
    return givenStreams(...people, [guildStream[0], [...guildStream[1], joined(finn)]], ['message-100', [message]])
      .when((deps) => pruneMembers(deps, { actorId: ada.id }, G, { days: 7, includeRoles: [] }))
      .then({ stream: `guild-${G}`, type: 'MembersPruned', data: prunedData([finn.id]), metadata: { actorId: ada.id } });
  });

  it('keeps a member who joined within `days`', () =>
    givenStreams(
      ...people,
      [guildStream[0], [...guildStream[1], joined(finn, { joinedAt: daysBefore(3) })]],
      ['message-100', [by(bob.id, sent({ id: '100', author: messageUser(bob) }), { createdAt: daysBefore(1) })]],
    )
      .when((deps) => pruneMembers(deps, { actorId: ada.id }, G, { days: 7, includeRoles: [] }))
      .then());
});

describe('countPrunable', () => {
  it('counts for a moderator whose own timeout has run out, judged at the clock’s time', () => {
    const pruner = { id: '602', name: 'pruner' };
    const timeoutEnded = {
      type: 'MemberUpdated',
      data: { guildId: G, userId: cy.id, changes: [{ key: 'communication_disabled_until', new_value: daysBefore(1) }] },
    };
    const history = [
      ...guildStream[1],
      joined(finn),
      roleCreated(pruner.id, 'pruner', Permission.KICK_MEMBERS | Permission.MANAGE_GUILD, 3),
      rolesAdded(cy, pruner),
      timeoutEnded,
    ];
    return givenStreams(...people, [guildStream[0], history] as [string, typeof history])
      .when(async (deps) => expect(await countPrunable(deps, { actorId: cy.id }, G, { days: 7, includeRoles: [] })).toBe(2))
      .then();
  });
});

describe('banUsers', () => {
  it('bans the known users it can, one MemberBanned each, and reports unknown ones and the owner as failed', async () => {
    let result: unknown;
    await givenStreams(...people, guildStream)
      .when(async (deps) => (result = await banUsers(deps, { actorId: ada.id }, G, { userIds: [bob.id, '999', finn.id, ada.id], deleteMessageSeconds: 0 })))
      .then(
        { stream: `guild-${G}`, type: 'MemberBanned', data: { guildId: G, userId: bob.id, deleteMessageSeconds: 0, removedMember: true, bannedAt: NOW } },
        { stream: `guild-${G}`, type: 'MemberBanned', data: { guildId: G, userId: finn.id, deleteMessageSeconds: 0, removedMember: false, bannedAt: NOW } },
      );
    expect(result).toEqual({ banned: [bob.id, finn.id], failed: ['999', ada.id] });
  });
});

describe('a send meeting a prune', () => {
  it('is refused, appending nothing, when its author was pruned after its access check', async () => {
    const world = await commandDeps();
    try {
      await world.deps.settle(await appendStreams(world.eventStore, [...people, guildStream]));
      // The prune lands between the send's access check (the first load of the guild) and its append.
      const load = world.deps.commands.load.bind(world.deps.commands);
      let loads = 0;
      world.deps.commands.load = (async (...args: Parameters<typeof load>) => {
        const loaded = await load(...args);
        if (++loads === 1) await appendStreams(world.eventStore, [[`guild-${G}`, [{ type: 'MembersPruned', data: prunedData([bob.id]) }]]]);
        return loaded;
      }) as typeof load;
      const head = await world.eventStore.headPosition();
      const refused = await sendMessage(world.deps, { actorId: bob.id }, GENERAL, { content: 'back!' }, [], { userId: bob.id, bot: false }).catch(
        (e: DomainError) => e,
      );
      expect((refused as DomainError).code).toBe('UNKNOWN_CHANNEL');
      const after = (await world.eventStore.readAll({ fromPosition: head! })).filter((e) => comparePositions(e.position, head!) > 0);
      expect(after.map((e) => e.type)).toEqual(['MembersPruned']);
    } finally {
      await world.close();
    }
  });
});
