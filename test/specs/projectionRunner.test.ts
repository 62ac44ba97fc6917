// The runner's guarantee that makes non-idempotent projections safe: each projection applies each event once, by
// its own checkpoint written with its documents. The guild's member_count is an $inc per join, so applying a join
// twice would count the member twice; these specs show it counted once across a restart and when a projection is
// added to a log the others have already applied.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import type { GuildDoc } from '../../projections/guilds.js';
import { guildsProjection } from '../../projections/guilds.js';
import { type MemberDoc, membersProjection } from '../../projections/members.js';
import type { Projection } from '../../projections/projection.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { appendStreams } from './support.js';
import { G, ada, bob, cy, eve, guildStream, joined } from './events.js';

let eventStore: SqliteEventStore;
let readStore: SqliteReadStore;
const runners: ProjectionRunner[] = [];
const errors: unknown[] = [];

async function run(...projections: Projection[]): Promise<ProjectionRunner> {
  const runner = new ProjectionRunner(eventStore, readStore, projections, (error) => errors.push(error));
  runners.push(runner);
  await runner.start();
  await runner.caughtUp();
  return runner;
}

const memberCount = async () => (await readStore.findOne<GuildDoc>('guilds', { _id: G }))?.member_count;

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  await eventStore?.close();
  await readStore?.close();
  expect(errors.splice(0)).toEqual([]);
});

describe('projection runner: each event applied once per projection', () => {
  it('counts each member once across a restart, continuing after the checkpoint', async () => {
    eventStore = new SqliteEventStore(':memory:');
    readStore = new SqliteReadStore(':memory:');
    const first = await run(guildsProjection);
    // guildHistory: the owner and three members join.
    await first.waitFor(await appendStreams(eventStore, [guildStream]));
    expect(await memberCount()).toBe(4);
    await first.stop();

    const restarted = await run(guildsProjection);
    await restarted.waitFor(await appendStreams(eventStore, [[`guild-${G}`, [joined({ id: '9', username: 'late' })]]]));
    expect(await memberCount()).toBe(5);
  });

  it('replays the log into a projection added later without applying it again to the projections already past it', async () => {
    eventStore = new SqliteEventStore(':memory:');
    readStore = new SqliteReadStore(':memory:');
    const first = await run(guildsProjection);
    await first.waitFor(await appendStreams(eventStore, [guildStream]));
    await first.stop();

    // The members projection has no checkpoint: the runner reads the log from the start for it.
    await run(guildsProjection, membersProjection);
    const members = await readStore.find<MemberDoc>('members', { guild_id: G }, { sort: { joined_at: 1, user_id: 1 } });
    expect(members.map((m) => m.user_id)).toEqual([ada.id, bob.id, cy.id, eve.id]);
    expect(await memberCount()).toBe(4);
  });

  it('rebuilds the chosen projections inside a bulk load of their collections, to the documents incremental processing wrote', async () => {
    eventStore = new SqliteEventStore(':memory:');
    readStore = new SqliteReadStore(':memory:');
    const runner = await run(guildsProjection, membersProjection);
    await runner.waitFor(await appendStreams(eventStore, [guildStream]));
    const members = () => readStore.find<MemberDoc>('members', {}, { sort: { _id: 1 } });
    const before = await members();
    const loads = vi.spyOn(readStore, 'bulkLoad');
    await runner.rebuild([membersProjection.name]);
    expect(loads.mock.calls.map(([collections]) => collections)).toEqual([membersProjection.collections]);
    expect(await members()).toEqual(before);
    expect(await memberCount()).toBe(4);
  });
});
