// Hints read from another process (BUS=kafka): only well-formed, fresh typing and presence hints pass.
import { describe, expect, it } from 'vitest';
import { HINT_MAX_AGE_MS, type Hint, hintKey, parseHint } from '../../ports/hints.js';
import { hintTopic } from '../../infra/bus/kafka.js';

const now = 1_700_000_000_000;
const hint: Hint = { type: 'TYPING_START', channelId: '2', guildId: '1', userId: '3', timestamp: now - 1000 };

describe('hints between processes', () => {
  it('round-trips a typing hint, DM recipients included', () => {
    expect(parseHint(JSON.stringify(hint), now)).toEqual(hint);
    const dm = { ...hint, guildId: null, recipientIds: ['3', '4'] };
    expect(parseHint(JSON.stringify(dm), now)).toEqual(dm);
  });

  it('drops stale hints and anything that is not a hint', () => {
    expect(parseHint(JSON.stringify({ ...hint, timestamp: now - HINT_MAX_AGE_MS - 1 }), now)).toBeNull();
    for (const text of [
      'not json',
      'null',
      '{}',
      JSON.stringify({ ...hint, type: 'OTHER' }),
      JSON.stringify({ ...hint, userId: 3 }),
      JSON.stringify({ ...hint, recipientIds: [1] }),
    ]) {
      expect(parseHint(text, now)).toBeNull();
    }
  });

  it('round-trips a presence hint, and drops one with an unknown status, activities that are not objects or a `connected` that is no boolean', () => {
    const presence: Hint = {
      type: 'PRESENCE_UPDATE',
      node: 'n1',
      userId: '3',
      status: 'dnd',
      activities: [{ name: 'chess', type: 0 }],
      setAt: now - 5000,
      timestamp: now - 1000,
    };
    expect(parseHint(JSON.stringify(presence), now)).toEqual(presence);
    expect(parseHint(JSON.stringify({ ...presence, connected: true }), now)).toEqual({ ...presence, connected: true });
    for (const bad of [
      { ...presence, status: 'invisible' },
      { ...presence, activities: ['chess'] },
      { ...presence, node: 1 },
      { ...presence, setAt: undefined },
      { ...presence, connected: 'yes' },
    ]) {
      expect(parseHint(JSON.stringify(bad), now)).toBeNull();
    }
  });

  it('are keyed by channel (typing) or by user (presence), so each stays in order on its partition', () => {
    expect(hintKey(hint)).toBe('2');
    expect(hintKey({ type: 'PRESENCE_UPDATE', node: 'n1', userId: '3', status: 'online', activities: [], setAt: now, timestamp: now })).toBe('3');
  });

  it('travel on a topic beside the log’s', () => {
    expect(hintTopic('parley.events')).toBe('parley.events.hints');
  });
});
