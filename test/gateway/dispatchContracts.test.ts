// The dispatches' contracts (contracts/dispatches.ts), at compile time and on the wire. Each `@ts-expect-error` below
// is data the event's type (gateway/protocol.ts) lets through but its contract does not, so `npm test`'s type-check
// fails should the dispatch builder stop checking it (the directive is then unused). On the wire, real WebSocket
// sessions receive what the HTTPS API's writes cause, and ajv checks each dispatch with its contract.
import { ChannelType, type GuildMemberFlags } from 'discord-api-types/v10';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  DISPATCH_CONTRACTS,
  type ContractedDispatch,
  GuildCreate,
  MessageDispatch,
  MessageReactionAdd,
  Ready,
  ThreadCreate,
} from '../../contracts/dispatches.js';
import type { Contract } from '../../contracts/schema.js';
import { dispatch } from '../../gateway/dispatches/deriver.js';
import { ALL_INTENTS, type DispatchData } from '../../gateway/protocol.js';
import type { Session } from '../../gateway/session.js';
import { threadMemberObject, threadObject } from '../../presenters/threads.js';
import { eventSchemas } from '../../http/asyncapi/document.js';
import { createGuild, join } from '../http/guildSupport.js';
import { type Payload, fileGateway } from '../support/gateway.js';
import { createBot } from '../support/server.js';
import { expectShape, shapeProblems } from '../support/shapes.js';

const routing = { intent: null, audience: { users: ['10'] } };
const thread = threadObject(
  {
    id: '20',
    type: ChannelType.PublicThread,
    guild_id: '30',
    parent_id: '40',
    owner_id: '10',
    name: 'plans',
    rate_limit_per_user: 0,
    archived: false,
    auto_archive_duration: 1440,
    archive_timestamp: '2026-01-01T00:00:00.000Z',
    locked: false,
    create_timestamp: '2026-01-01T00:00:00.000Z',
  },
  { message_count: 0, total_message_sent: 0, member_count: 1, last_message_id: null },
);
const reaction = { user_id: '10', channel_id: '40', message_id: '50', emoji: { id: null, name: '🔥' }, burst: false, type: 0 } as const;

describe('the dispatch builder', () => {
  it('refuses data its event’s type takes but its contract does not', () => {
    const { thread_metadata: _metadata, ...withoutMetadata } = thread;
    // @ts-expect-error: the API's type leaves a thread's metadata optional; every thread Parley sends has it
    const bare = () => dispatch('THREAD_CREATE', withoutMetadata, routing);
    const memberWithoutAvatar = {
      user: { id: '10', username: 'ada', discriminator: '0', global_name: null, avatar: null },
      roles: [],
      joined_at: thread.thread_metadata.archive_timestamp,
    };
    const reacted = () =>
      // @ts-expect-error: a member without its avatar and banner is the API's type's, not the Member contract's
      dispatch('MESSAGE_REACTION_ADD', { ...reaction, member: { ...memberWithoutAvatar, deaf: false, mute: false, flags: 0 as GuildMemberFlags } }, routing);
    // @ts-expect-error: a thread member's join_timestamp is a timestamp string, for the contract as for the API's type
    const member = () => dispatch('THREAD_MEMBER_UPDATE', { id: '20', user_id: '10', flags: 0, join_timestamp: 1, guild_id: '30' }, routing);
    expect([bare, reacted, member]).toHaveLength(3);
  });

  it('takes what the presenters build, which the contract’s schema takes too', () => {
    const created = dispatch(
      'THREAD_CREATE',
      {
        ...thread,
        newly_created: true,
        member: threadMemberObject({ thread_id: '20', user_id: '10', join_timestamp: thread.thread_metadata.create_timestamp! }),
      },
      routing,
    );
    expectShape(created.d, ThreadCreate);
    expectShape(dispatch('MESSAGE_REACTION_ADD', reaction, routing).d, MessageReactionAdd);
  });

  it('a session’s own dispatches (READY, the connect-time GUILD_CREATE) are checked against their contracts too', () => {
    const { thread_metadata: _metadata, ...withoutMetadata } = thread;
    const own = (session: Session) =>
      // @ts-expect-error: the API's type leaves a thread's metadata optional; the THREAD_CREATE contract does not
      session.dispatchOwn('THREAD_CREATE', withoutMetadata);
    const whole = (session: Session) => session.dispatchOwn('THREAD_CREATE', thread);
    expect([own, whole]).toHaveLength(2);
  });

  it('READY, which the session builds itself, meets its contract by its declared type', () => {
    expectTypeOf<DispatchData['READY']>().toMatchTypeOf<Contract<typeof Ready>>();
  });

  it('names only dispatches the gateway sends', () => {
    expect(Object.keys(DISPATCH_CONTRACTS).filter((t) => !eventSchemas().dispatches.includes(t))).toEqual([]);
  });
});

const GUILDS = 1 << 0;
const { server, gateway } = await fileGateway();

/** The dispatches with a contract among those received, each with what is wrong with it. */
const problems = (received: Payload[]) =>
  received
    .filter((p): p is Payload & { t: ContractedDispatch } => p.op === 0 && typeof p.t === 'string' && p.t in DISPATCH_CONTRACTS)
    .map((p) => ({ t: p.t, problems: shapeProblems(p.d, DISPATCH_CONTRACTS[p.t]) }))
    .filter((checked) => checked.problems.length > 0);

describe('dispatches on the wire', () => {
  it('are what their contracts describe: READY, GUILD_CREATE, MESSAGE_CREATE, THREAD_CREATE and MESSAGE_REACTION_ADD with its member', async () => {
    const guild = await createGuild(server, undefined, 'Contracts');
    const bot = await createBot(server);
    const owner = await gateway.session(guild.owner.token, ALL_INTENTS);
    // The bot's session opens before it joins: its GUILD_CREATE is the dispatch builder's, the owner's the session's own.
    const botSession = await gateway.session(bot.token, GUILDS | (1 << 9) | (1 << 10));
    expectShape(owner.received.find((p) => p.t === 'READY')!.d, Ready);
    expectShape((await owner.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id)).d, GuildCreate);
    await join(server, guild, bot, 'Bot');
    expectShape((await botSession.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id)).d, GuildCreate);

    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: `hi <@${bot.id}>` } });
    expect(sent.status).toBe(200);
    const created = await botSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === sent.body.id);
    expectShape(created.d, MessageDispatch);
    expect(created.d).toMatchObject({ guild_id: guild.id, mentions: [{ id: bot.id }] });

    const started = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: guild.owner.token, body: { name: 'private', type: 12 } });
    expect(started.status).toBe(201);
    expectShape((await owner.next((p) => p.t === 'THREAD_CREATE' && p.d.id === started.body.id)).d, ThreadCreate);
    // Added to a private thread, the bot is shown it with its own membership.
    expect((await server.api('PUT', `/channels/${started.body.id}/thread-members/${bot.id}`, { token: guild.owner.token })).status).toBe(204);
    const shown = await botSession.next((p) => p.t === 'THREAD_CREATE' && p.d.id === started.body.id);
    expectShape(shown.d, ThreadCreate);
    expect(shown.d.member).toMatchObject({ id: started.body.id, user_id: bot.id });

    const put = `/channels/${guild.channelId}/messages/${sent.body.id}/reactions/${encodeURIComponent('🔥')}/@me`;
    expect((await server.api('PUT', put, { token: bot.token, scheme: 'Bot' })).status).toBe(204);
    const reacted = await owner.next((p) => p.t === 'MESSAGE_REACTION_ADD' && p.d.message_id === sent.body.id);
    expectShape(reacted.d, MessageReactionAdd);
    expect(reacted.d.member.user.id).toBe(bot.id);

    // And every other dispatch with a contract that reached either session on the way.
    expect([...problems(owner.received), ...problems(botSession.received)]).toEqual([]);
  });
});
