// Events are routed by type (Emmett's canHandle): each projection and gateway dispatch deriver names the event types it
// takes, and the runners hand it those and no others. These specs hold the declarations to the deciders' events and
// the runners to the declarations.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ParleyEventType } from '../../domain/events.js';
import { dispatchDerivers, deriveDispatches } from '../../gateway/dispatches/index.js';
import type { GatewayDeps } from '../../gateway/deps.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import type { RecordedEvent } from '../../ports/eventStore.js';
import { allProjections } from '../../projections/index.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { appendStreams, recorded } from './support.js';

/** Every event type a decider produces: the compiler holds this list to the deciders' union (domain/events.ts), both ways. */
const PRODUCED = Object.keys({
  ApplicationBotCreated: true,
  ApplicationCommandCreated: true,
  ApplicationCommandDeleted: true,
  ApplicationCommandUpdated: true,
  ApplicationCreated: true,
  ApplicationKeyCreated: true,
  ApplicationSecretReset: true,
  ApplicationUpdated: true,
  AutoModerationActionExecuted: true,
  AutoModerationRuleCreated: true,
  AutoModerationRuleDeleted: true,
  AutoModerationRuleUpdated: true,
  BotTokenIssued: true,
  CallJoined: true,
  CallLeft: true,
  CallRegionChanged: true,
  CallRingingStopped: true,
  CallRung: true,
  CallSelfStateChanged: true,
  ChannelCreated: true,
  ChannelDeleted: true,
  ChannelOverwriteDeleted: true,
  ChannelOverwriteSet: true,
  ChannelUpdated: true,
  DiscriminatorClaimed: true,
  DiscriminatorReleased: true,
  DmChannelClosed: true,
  DmChannelOpened: true,
  DmChannelReopened: true,
  DmRecipientLeft: true,
  EmailClaimed: true,
  EmailReleased: true,
  EmojiCreated: true,
  EmojiDeleted: true,
  EmojiUpdated: true,
  GatewaySessionStarted: true,
  GroupDmRenamed: true,
  GuildCreated: true,
  GuildDeleted: true,
  GuildUpdated: true,
  InteractionClicked: true,
  InteractionCreated: true,
  InteractionDelivered: true,
  InteractionDeliveryAttempted: true,
  InteractionDeliveryDropped: true,
  InteractionDeliveryFailed: true,
  InteractionFailed: true,
  InteractionResponded: true,
  InviteAccepted: true,
  InviteCreated: true,
  InviteDeleted: true,
  MemberBanned: true,
  MemberJoined: true,
  MemberKicked: true,
  MemberLeft: true,
  MemberUnbanned: true,
  MemberUpdated: true,
  MembersPruned: true,
  MessageCreated: true,
  MessageDeleted: true,
  MessageEdited: true,
  MessageNonceClaimed: true,
  MessagePinned: true,
  MessageUnpinned: true,
  MessagesBulkDeleted: true,
  ModalSubmitted: true,
  OAuth2CodeIssued: true,
  OAuth2GrantRevoked: true,
  OAuth2TokensIssued: true,
  OAuth2TokensRefreshed: true,
  ReactionAdded: true,
  ReactionRemoved: true,
  ReactionsCleared: true,
  RecipientAdded: true,
  RecipientRemoved: true,
  RoleCreated: true,
  RoleDeleted: true,
  RoleUpdated: true,
  SessionStarted: true,
  SlowmodeSendAdmitted: true,
  SlowmodeThreadAdmitted: true,
  StickerCreated: true,
  StickerDeleted: true,
  StickerUpdated: true,
  ThreadArchived: true,
  ThreadCreated: true,
  ThreadDeleted: true,
  ThreadMemberAdded: true,
  ThreadMemberRemoved: true,
  ThreadUpdated: true,
  UserErased: true,
  UserProfileUpdated: true,
  UserRegistered: true,
  VanityCodeClaimed: true,
  VanityCodeReleased: true,
  VanityCodeSet: true,
  VoiceChannelJoined: true,
  VoiceChannelLeft: true,
  VoiceChannelMoved: true,
  VoiceSelfStateChanged: true,
  WebhookCreated: true,
  WebhookDeleted: true,
  WebhookUpdated: true,
} satisfies Record<ParleyEventType, true>);

/** The takers' declared types against the ones they were handed, as sorted lists by name. */
const declared = (takers: { name: string; handles: readonly string[] }[]) => Object.fromEntries(takers.map((t) => [t.name, [...new Set(t.handles)].sort()]));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('event routing: declarations', () => {
  it('every type a projection or dispatch deriver declares is one a decider produces', () => {
    const takers = [
      ...allProjections.map((p) => ({ name: p.name, handles: p.handles })),
      ...dispatchDerivers.map((d, i) => ({ name: `deriver ${i}`, handles: d.handles })),
    ];
    expect(Object.fromEntries(takers.map((t) => [t.name, t.handles.filter((type) => !PRODUCED.includes(type))]))).toEqual(
      Object.fromEntries(takers.map((t) => [t.name, []])),
    );
  });
});

describe('event routing: runners', () => {
  it('the projection runner hands each projection every event of the types it declares, and no other', async () => {
    const eventStore = new SqliteEventStore(':memory:');
    const readStore = new SqliteReadStore(':memory:');
    const handed = new Map<string, string[]>(allProjections.map((p) => [p.name, []]));
    // The real declarations, with a project that only records: one event of every type the deciders produce.
    const spies = allProjections.map((p) => ({ ...p, project: (event: RecordedEvent) => (handed.get(p.name)!.push(event.type), []) }));
    const runner = new ProjectionRunner(eventStore, readStore, spies);
    try {
      await appendStreams(eventStore, [['routing', PRODUCED.map((type) => ({ type, data: {} }))]]);
      await runner.start();
      await runner.caughtUp();
      expect(Object.fromEntries([...handed].map(([name, types]) => [name, types.sort()]))).toEqual(declared(allProjections));
    } finally {
      await runner.stop();
      await eventStore.close();
      await readStore.close();
    }
  });

  it('the gateway hands each dispatch deriver the events of the types it declares, and no other', async () => {
    const handed = dispatchDerivers.map((deriver) => {
      const types: string[] = [];
      vi.spyOn(deriver, 'derive').mockImplementation(async (event) => (types.push(event.type), []));
      return types;
    });
    for (const [i, type] of PRODUCED.entries()) await deriveDispatches(recorded({ type, data: {} }, i), {} as GatewayDeps, { usersIn: () => new Set() });
    expect(Object.fromEntries(handed.map((types, i) => [`deriver ${i}`, types.sort()]))).toEqual(
      declared(dispatchDerivers.map((d, i) => ({ name: `deriver ${i}`, handles: d.handles }))),
    );
  });
});
