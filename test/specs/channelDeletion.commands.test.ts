// Command specs of a channel's deletion: its threads (archived too) go first, only once the deletion is allowed, and
// the guild's state that allowed it is loaded once; a guild that changed before the append has it decided again.
import { describe, expect, it } from 'vitest';
import { deleteChannel } from '../../commands/channels.js';
import { createThread } from '../../commands/threads.js';
import { THREADS } from '../../projections/collections.js';
import type { ThreadCreated, ThreadData } from '../../domain/thread.js';
import { DomainError } from '../../domain/errors.js';
import { EARLIER, appendStreams, commandDeps, givenStreams } from './support.js';
import { G, GENERAL, accounts, ada, bob, cy, eve, guildStream, threadData } from './events.js';

const people = accounts(ada, bob, cy, eve);
const GUILD = `guild-${G}`;

const thread = (id: string, archived: boolean): ThreadData => threadData(id, 11, archived, bob.id);
const OPEN = thread('700', false);
const ARCHIVED = thread('701', true);
const created = (data: ThreadData): [string, ThreadCreated[]] => [
  `thread-${data.id}`,
  [{ type: 'ThreadCreated', data: { guildId: G, thread: data, fromMessage: false } }],
];
const history = [...people, guildStream, created(OPEN), created(ARCHIVED)];

const deletedWithParent = (data: ThreadData) => ({ stream: `thread-${data.id}`, type: 'ThreadDeleted', data: { guildId: G, thread: data, withParent: true } });
const channelDeleted = { stream: GUILD, type: 'ChannelDeleted', data: { guildId: G, channel: expect.objectContaining({ id: GENERAL }) } };

describe('deleteChannel', () => {
  it('deletes its threads, archived too, then the channel', () =>
    givenStreams(...history)
      .when((deps) => deleteChannel(deps, { actorId: ada.id }, G, GENERAL))
      .then(deletedWithParent(OPEN), deletedWithParent(ARCHIVED), channelDeleted));

  it('refused (no MANAGE_CHANNELS) deletes no thread and appends nothing', () =>
    givenStreams(...history)
      .when((deps) => deleteChannel(deps, { actorId: bob.id }, G, GENERAL))
      .thenRefuses('MISSING_PERMISSIONS'));
});

describe('deleteChannel and the guild stream', () => {
  async function world() {
    const w = await commandDeps();
    await w.deps.settle(await appendStreams(w.eventStore, history));
    const reads: string[] = [];
    const readStream = w.eventStore.readStream.bind(w.eventStore);
    w.eventStore.readStream = (streamId, options) => {
      reads.push(streamId);
      return readStream(streamId, options);
    };
    const channelDeletions = async () => (await w.eventStore.readStream(GUILD)).filter((e) => e.type === 'ChannelDeleted').length;
    return { ...w, reads, channelDeletions };
  }

  it('is read once: the decision that let the threads go is the one appended', async () => {
    const w = await world();
    try {
      await deleteChannel(w.deps, { actorId: ada.id }, G, GENERAL);
      expect(w.reads.filter((id) => id === GUILD)).toEqual([GUILD]);
      expect(await w.channelDeletions()).toBe(1);
    } finally {
      await w.close();
    }
  });

  it('changed by another process before the append: decided again, so a channel deleted meanwhile is not deleted twice', async () => {
    const w = await world();
    try {
      // Another process deletes the channel while this one deletes its threads.
      const append = w.eventStore.appendToStream.bind(w.eventStore);
      let interfered = false;
      w.eventStore.appendToStream = async (streamId, events, options) => {
        if (!interfered && streamId.startsWith('thread-')) {
          interfered = true;
          const guild = (await w.eventStore.readStream(GUILD)).find((e) => e.type === 'GuildCreated')!;
          const channel = (guild.data as { channels: { id: string }[] }).channels.find((c) => c.id === GENERAL);
          await append(GUILD, [{ type: 'ChannelDeleted', data: { guildId: G, channel }, metadata: { actorId: ada.id, createdAt: EARLIER } }]);
        }
        return append(streamId, events, options);
      };
      const refusal = await deleteChannel(w.deps, { actorId: ada.id }, G, GENERAL).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(DomainError);
      expect((refusal as DomainError).code).toBe('UNKNOWN_CHANNEL');
      expect(await w.channelDeletions()).toBe(1);
    } finally {
      await w.close();
    }
  });

  it('deleted twice at once in this process: one ChannelDeleted, the other decided again and refused', async () => {
    const w = await world();
    try {
      const outcomes = await Promise.allSettled([0, 1].map(() => deleteChannel(w.deps, { actorId: ada.id }, G, GENERAL)));
      const refusals = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as DomainError).code] : []));
      expect(refusals).toEqual(['UNKNOWN_CHANNEL']);
      expect(await w.channelDeletions()).toBe(1);
    } finally {
      await w.close();
    }
  });

  it('a thread opened while its threads are being deleted: refused, so none outlives the channel', async () => {
    const w = await world();
    try {
      // Ada opens a thread just after the deletion has listed the channel's threads (given 300 ms to get it appended).
      const find = w.readStore.find.bind(w.readStore);
      let opening = null as Promise<unknown> | null;
      w.readStore.find = (async (collection: string, filter: object, ...rest: unknown[]) => {
        const found = await (find as (...args: unknown[]) => Promise<unknown>)(collection, filter, ...rest);
        if (collection === THREADS && !opening) {
          opening = createThread(w.deps, { actorId: ada.id }, GENERAL, { name: 'late', type: 11 }, null, false).catch((error: unknown) => error);
          await Promise.race([opening, new Promise((resolve) => setTimeout(resolve, 300))]);
        }
        return found;
      }) as typeof w.readStore.find;
      await deleteChannel(w.deps, { actorId: ada.id }, G, GENERAL);
      const refusal = await opening;
      expect(refusal).toBeInstanceOf(DomainError);
      expect((refusal as DomainError).code).toBe('UNKNOWN_CHANNEL');
      expect(await find(THREADS, { parent_id: GENERAL })).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
