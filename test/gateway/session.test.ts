// A session's replay buffer: what a RESUME gets again, in order, once; bounded by count and by payload bytes, so a
// client that stays away under a flood costs a bounded amount of memory and identifies again instead.
import { describe, expect, it } from 'vitest';
import { ErasedSubjects, subjectsOf } from '../../gateway/erasures.js';
import { Session } from '../../gateway/session.js';

const session = () => new Session({ id: 's', userId: 'u', bot: true, intents: 0, shard: [0, 1] });
const payload = (bytes: number) => JSON.stringify('x'.repeat(bytes - 2));

describe('the replay buffer of a session whose client is away', () => {
  it('gives a RESUME the frames after its sequence, built around the shared payloads, and forgets what a heartbeat acknowledged', () => {
    const away = session();
    for (let i = 1; i <= 3; i++) away.dispatch('MESSAGE_CREATE', `{"n":${i}}`);
    expect(away.framesAfter(1)).toEqual(['{"op":0,"s":2,"t":"MESSAGE_CREATE","d":{"n":2}}', '{"op":0,"s":3,"t":"MESSAGE_CREATE","d":{"n":3}}']);
    away.acknowledge(2);
    expect(away.framesAfter(2)).toEqual(['{"op":0,"s":3,"t":"MESSAGE_CREATE","d":{"n":3}}']);
    expect(away.framesAfter(1)).toBeNull();
  });

  it('holds at most 2 MiB of payloads: past that, the oldest are dropped, and a RESUME that misses them is refused (the client identifies again)', () => {
    const away = session();
    for (let i = 0; i < 21; i++) away.dispatch('MESSAGE_CREATE', payload(100 * 1024));
    expect(away.framesAfter(0)).toBeNull();
    // A client that got the dropped frame before it went away misses nothing.
    expect(away.framesAfter(1)).toHaveLength(20);
    expect(away.framesAfter(20)).toHaveLength(1);
  });

  it('keeps what fits: 1.9 MiB of payloads all come back', () => {
    const away = session();
    for (let i = 0; i < 19; i++) away.dispatch('MESSAGE_CREATE', payload(100 * 1024));
    expect(away.framesAfter(0)).toHaveLength(19);
  });
});

describe('erasures while a session is away', () => {
  it('blank in a replay only what was buffered before them, and are forgotten once no buffer predates them', () => {
    const erasures = new ErasedSubjects();
    const away = new Session({ id: 's', userId: 'u', bot: true, intents: 0, shard: [0, 1] }, erasures);
    const message = (id: string, content: string) => ({
      id,
      channel_id: 'c',
      content,
      author: { id: 'a', username: 'ada' },
      embeds: [],
      attachments: [],
      components: [],
    });
    const dispatch = (d: object) => away.dispatch('MESSAGE_CREATE', JSON.stringify(d), subjectsOf(d));
    dispatch(message('m1', 'before'));
    erasures.erase('message:m1');
    dispatch(message('m1', 'after'));
    dispatch(message('m2', 'other'));
    expect(away.framesAfter(0)!.map((frame) => JSON.parse(frame).d.content)).toEqual(['', 'after', 'other']);
    away.acknowledge(1);
    erasures.forgetUpTo(away.oldestMark);
    expect(erasures.size).toBe(0);
  });
});
