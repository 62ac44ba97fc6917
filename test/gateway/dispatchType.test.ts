// A dispatch's name is tied to its data at compile time: each `@ts-expect-error` below is a dispatch of one event
// with another's data, and `npm test`'s type-check fails should any of them compile (the directive is then unused).
// The run-time part routes a well-formed one to a session, as the gateway does.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Dispatch } from '../../gateway/dispatch.js';
import { dispatch } from '../../gateway/dispatches/deriver.js';
import type { DispatchData } from '../../gateway/protocol.js';
import { SessionRegistry } from '../../gateway/registry.js';
import { Session } from '../../gateway/session.js';

const routing = { intent: null, audience: { users: ['10'] } };
const deleted: DispatchData['MESSAGE_DELETE'] = { id: '20', channel_id: '30' };
const typing: DispatchData['TYPING_START'] = { channel_id: '30', user_id: '10', timestamp: 1 };

describe('Dispatch', () => {
  it("refuses an event's name with another event's data", () => {
    // @ts-expect-error: TYPING_START's data is no MESSAGE_DELETE's (it has no id)
    const mismatched: Dispatch = { t: 'MESSAGE_DELETE', d: typing, ...routing };
    // @ts-expect-error: what a session without MESSAGE_CONTENT gets instead is the same event's data
    const withheld: Dispatch = { t: 'MESSAGE_DELETE', d: deleted, withoutContent: { d: typing, authorId: '10', mentionIds: [] }, ...routing };
    expect([mismatched, withheld]).toHaveLength(2);
  });

  it('refuses, through the deriver helper and a session, data that is not every named event’s', () => {
    const pick = (deleting: boolean) =>
      // @ts-expect-error: a name chosen at run time needs data each of the names takes
      dispatch(deleting ? 'MESSAGE_DELETE' : 'TYPING_START', deleted, routing);
    // @ts-expect-error: the same when the names are given
    const given = () => dispatch<'MESSAGE_DELETE' | 'TYPING_START'>('TYPING_START', deleted, routing);
    const own = (session: Session) =>
      // @ts-expect-error: a session's own dispatch is checked as well
      session.dispatchOwn<'MESSAGE_DELETE' | 'TYPING_START'>('TYPING_START', deleted);
    expect([pick, given, own]).toHaveLength(3);
  });

  it('narrows its data by its name, and routes it to the audience under that name', async () => {
    const routed: Dispatch = dispatch('MESSAGE_DELETE', deleted, routing);
    if (routed.t === 'MESSAGE_DELETE') expectTypeOf(routed.d).toEqualTypeOf<DispatchData['MESSAGE_DELETE']>();
    const registry = new SessionRegistry(async () => () => true);
    const session = new Session({ id: 's', userId: '10', bot: true, intents: 0, shard: [0, 1] });
    registry.register(session, []);
    await registry.route(routed);
    expect(session.framesAfter(0)?.map((frame) => JSON.parse(frame))).toEqual([{ op: 0, s: 1, t: 'MESSAGE_DELETE', d: deleted }]);
  });
});
