// The personal-data rules are a map over the event union: every event type names the fields it seals and whom it
// erases, or says 'none', and a rule reads its own event's data. Each `@ts-expect-error` below is a rule map or a rule
// the compiler must refuse, and `npm test`'s type-check fails should any of them compile (the directive is then
// unused). The run-time part holds the map to the event catalogue, which is generated from the same union.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EventData } from '../../domain/events.js';
import { PERSONAL_DATA, type PersonalDataRule, type PersonalDataRules, erasures } from '../../domain/personalData.js';
import catalogue from '../../http/asyncapi/eventSchemas.json' with { type: 'json' };

/** Where a rule of MessageEdited starts: the place of the event's data. */
type EditedData = Parameters<Exclude<PersonalDataRule<EventData<'MessageEdited'>>['seals'], 'none'>>[1];

describe('the personal-data rules', () => {
  it('name a rule, or none, for every event type the log holds, and for no other', () => {
    expect(Object.keys(PERSONAL_DATA).sort()).toEqual(Object.keys(catalogue.events).sort());
  });

  it('do not compile without a rule for each event type', () => {
    const { GroupDmRenamed: _renamed, ...withoutOne } = PERSONAL_DATA;
    // @ts-expect-error: GroupDmRenamed, an event type of the union, has no rule
    const incomplete: PersonalDataRules = withoutOne;
    expect(Object.keys(incomplete)).not.toContain('GroupDmRenamed');
  });

  it("check a rule's fields against its event's data", () => {
    expectTypeOf<EditedData['at']>().toBeCallableWith('removedAttachments');
    // @ts-expect-error: MessageEdited's data has removedAttachments, no removedAttachment
    expectTypeOf<EditedData['at']>().toBeCallableWith('removedAttachment');
    const misread: PersonalDataRules = {
      ...PERSONAL_DATA,
      // @ts-expect-error: GuildDeleted names its guild by guildId
      GuildDeleted: { seals: 'none', erases: (data) => [{ subject: `guild:${data.id}` }] },
    };
    expect(erasures({ type: 'GuildDeleted', data: { guildId: '3', vanityCode: null } })).toEqual([{ subject: 'guild:3' }]);
    expect(misread.GuildDeleted).not.toBe(PERSONAL_DATA.GuildDeleted);
  });
});
