// The command side's cache forgets the states an erasure shows (commands/erasedStates.ts): when the erasure is appended
// or read, and again when keys are destroyed, since a load in between folds text the log could still open.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AggregateCache, CommandHandler } from '../../commands/handle.js';
import { messageStream, userStream } from '../../commands/streams.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';

/** A decider that keeps the last event's data: what the cache holds is then plain to see. */
const lastData = { initialState: (): unknown => null, evolve: (_state: unknown, event: { data: unknown }) => event.data };
const metadata = { actorId: '1', createdAt: '2024-01-01T00:00:00.000Z' };

describe('the aggregate cache after erasures', () => {
  let store: SqliteEventStore;
  let cache: AggregateCache;
  let commands: CommandHandler;
  beforeEach(() => {
    store = new SqliteEventStore(':memory:');
    cache = new AggregateCache();
    commands = new CommandHandler(store, cache);
  });
  afterEach(() => store.close());

  const append = (stream: string, type: string, data: unknown) => store.appendToStream(stream, [{ type, data, metadata }]);
  const cached = (stream: string) => cache.get(stream, lastData)?.state;

  it('a message deletion read by a load drops the message’s state, and the stream is not cached again', async () => {
    await append(messageStream('7'), 'MessageCreated', { content: 'secret' });
    await commands.load(messageStream('7'), lastData);
    expect(cached(messageStream('7'))).toEqual({ content: 'secret' });
    await append(messageStream('7'), 'MessageDeleted', { messageId: '7' });
    await commands.load(messageStream('7'), lastData);
    expect(cached(messageStream('7'))).toBeUndefined();
  });

  it('an appended deletion is not cached either; an edit (which erases only the version it replaces) is', async () => {
    const decider = {
      ...lastData,
      decide: (command: { type: string }) => [{ type: command.type, data: { messageId: '8', content: command.type } }],
    };
    await commands.handle(messageStream('8'), decider, { type: 'MessageEdited' }, metadata);
    expect(cache.get(messageStream('8'), decider)?.state).toEqual({ messageId: '8', content: 'MessageEdited' });
    await commands.handle(messageStream('8'), decider, { type: 'MessageDeleted' }, metadata);
    expect(cache.get(messageStream('8'), decider)).toBeUndefined();
  });

  it('an account’s erasure drops its user state', async () => {
    await append(userStream('3'), 'UserRegistered', { username: 'ada' });
    await commands.load(userStream('3'), lastData);
    await append(userStream('3'), 'UserErased', { userId: '3' });
    await commands.load(userStream('3'), lastData);
    expect(cached(userStream('3'))).toBeUndefined();
  });

  it('a channel’s deletion drops every message state, and again once keys are destroyed; other streams stay', async () => {
    await append(messageStream('9'), 'MessageCreated', { content: 'in the channel' });
    await append('guild-5', 'GuildCreated', { name: 'kept' });
    await commands.load(messageStream('9'), lastData);
    await commands.load('guild-5', lastData);
    await append('channel-10', 'ChannelDeleted', { guildId: '5', channel: { id: '10' } });
    await commands.load('channel-10', lastData);
    expect(cached(messageStream('9'))).toBeUndefined();
    // Loaded again before the shredder destroyed the keys: the text was still readable, and is cached until then.
    await commands.load(messageStream('9'), lastData);
    expect(cached(messageStream('9'))).toEqual({ content: 'in the channel' });
    commands.keysDestroyed();
    expect(cached(messageStream('9'))).toBeUndefined();
    expect(cached('guild-5')).toEqual({ name: 'kept' });
    // What was forgotten is forgotten once: the next destruction leaves a state loaded since alone.
    await commands.load(messageStream('9'), lastData);
    commands.keysDestroyed();
    expect(cached(messageStream('9'))).toEqual({ content: 'in the channel' });
  });
});
