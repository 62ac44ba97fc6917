// Command specs of member moderation on the guild stream: kicks, role grants and bans (whose actor and reason, carried
// in the events' metadata, are what the audit log is built from).
import { describe, expect, it, vi } from 'vitest';
import { addMemberRole, banUser, kickMember } from '../../commands/members.js';
import { guildDecider } from '../../domain/guild.js';
import { NOW, givenStreams } from './support.js';
import { G, GENERAL, MEMBER_ROLE, MOD_ROLE, accounts, ada, bob, cy, eve, finn, guildStream, messageUser, sent } from './events.js';

const people = accounts(ada, bob, cy, eve, finn);
const GUILD = `guild-${G}`;
const minutesBefore = (minutes: number) => new Date(Date.parse(NOW) - minutes * 60_000).toISOString();

describe('kickMember', () => {
  it("appends MemberKicked for a moderator's kick of a member below them, with the moderator and reason as metadata", () =>
    givenStreams(...people, guildStream)
      .when((deps) => kickMember(deps, { actorId: cy.id, reason: 'rude' }, G, bob.id))
      .then({ stream: GUILD, type: 'MemberKicked', data: { guildId: G, userId: bob.id }, metadata: { actorId: cy.id, reason: 'rude', createdAt: NOW } }));

  it('refuses a kick by a member without KICK_MEMBERS, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => kickMember(deps, { actorId: bob.id }, G, cy.id))
      .thenRefuses('MISSING_PERMISSIONS'));

  it("refuses a moderator's kick of a member whose highest role is as high as theirs, appending nothing", () =>
    givenStreams(...people, guildStream)
      .when((deps) => kickMember(deps, { actorId: cy.id }, G, eve.id))
      .thenRefuses('MISSING_PERMISSIONS'));

  it('refuses to kick someone who is not a member: UNKNOWN_MEMBER, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => kickMember(deps, { actorId: cy.id }, G, finn.id))
      .thenRefuses('UNKNOWN_MEMBER'));
});

describe('addMemberRole', () => {
  it('appends MemberUpdated adding the role, named, when a moderator grants a role below their own', () =>
    givenStreams(...people, guildStream)
      .when((deps) => addMemberRole(deps, { actorId: cy.id }, G, bob.id, MEMBER_ROLE))
      .then({
        stream: GUILD,
        type: 'MemberUpdated',
        data: { guildId: G, userId: bob.id, changes: [{ key: '$add', new_value: [{ id: MEMBER_ROLE, name: 'member' }] }] },
        metadata: { actorId: cy.id },
      }));

  it("refuses to grant a role that is not below the granter's highest role, appending nothing", () =>
    givenStreams(...people, guildStream)
      .when((deps) => addMemberRole(deps, { actorId: cy.id }, G, bob.id, MOD_ROLE))
      .thenRefuses('MISSING_PERMISSIONS'));
});

describe('banUser', () => {
  it('appends MemberBanned at the time of the request, carrying the moderator and the reason the ban and its audit entry show', () =>
    givenStreams(...people, guildStream)
      .when((deps) => banUser(deps, { actorId: cy.id, reason: 'spam' }, G, bob.id, 0))
      .then({
        stream: GUILD,
        type: 'MemberBanned',
        data: { guildId: G, userId: bob.id, deleteMessageSeconds: 0, removedMember: true, bannedAt: NOW },
        metadata: { actorId: cy.id, reason: 'spam', createdAt: NOW },
      }));

  it('decides the ban once: the decision that passed its checks is the one appended', async () => {
    const decide = vi.spyOn(guildDecider, 'decide');
    try {
      await givenStreams(...people, guildStream)
        .when((deps) => banUser(deps, { actorId: cy.id }, G, finn.id, 0))
        .then({ stream: GUILD, type: 'MemberBanned', data: { guildId: G, userId: finn.id, deleteMessageSeconds: 0, removedMember: false, bannedAt: NOW } });
      expect(decide.mock.calls.filter(([command]) => command.type === 'BanMember')).toHaveLength(1);
    } finally {
      decide.mockRestore();
    }
  });

  it('bans a user who never joined, so they cannot join: the ban removes no member', () =>
    givenStreams(...people, guildStream)
      .when((deps) => banUser(deps, { actorId: cy.id }, G, finn.id, 0))
      .then({ stream: GUILD, type: 'MemberBanned', data: { guildId: G, userId: finn.id, deleteMessageSeconds: 0, removedMember: false, bannedAt: NOW } }));

  it("deletes the banned user's messages sent within delete_message_seconds, and only theirs, under the ban's reason", () =>
    givenStreams(
      ...people,
      guildStream,
      ['message-200', [sent({ id: '200', author: messageUser(bob), timestamp: minutesBefore(10) })]],
      ['message-201', [sent({ id: '201', author: messageUser(bob), timestamp: minutesBefore(2 * 24 * 60) })]],
      ['message-202', [sent({ id: '202', author: messageUser(ada), timestamp: minutesBefore(5) })]],
    )
      .when((deps) => banUser(deps, { actorId: cy.id, reason: 'spam' }, G, bob.id, 3600))
      .then(
        {
          stream: GUILD,
          type: 'MemberBanned',
          data: { guildId: G, userId: bob.id, deleteMessageSeconds: 3600, removedMember: true, bannedAt: NOW },
          metadata: { reason: 'spam' },
        },
        {
          stream: 'message-200',
          type: 'MessageDeleted',
          data: { messageId: '200', channelId: GENERAL, guildId: G, authorId: bob.id, deletedBy: cy.id, bulk: false, attachments: [] },
          metadata: { actorId: cy.id, reason: 'spam' },
        },
      ));

  it('refuses to ban a user that does not exist: UNKNOWN_USER, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => banUser(deps, { actorId: cy.id, reason: 'spam' }, G, '999', 0))
      .thenRefuses('UNKNOWN_USER'));

  it('refuses a ban by a member without BAN_MEMBERS, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => banUser(deps, { actorId: bob.id, reason: 'spam' }, G, eve.id, 0))
      .thenRefuses('MISSING_PERMISSIONS'));

  it('refuses to ban the owner, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => banUser(deps, { actorId: cy.id }, G, ada.id, 0))
      .thenRefuses('MISSING_PERMISSIONS'));
});
