// Given/when/then on the OAuth2 rules: the grant's life (code, exchange, refresh with rotation, revocation), an
// application's redirect URIs and client secret, and the bot flow's AddBot on the guild with its managed role.
import { describe, expect, it } from 'vitest';
import { type ApplicationCreated, applicationDecider } from '../../domain/application.js';
import { type GuildEvent, guildDecider } from '../../domain/guild.js';
import { OAuth2Error, parseScopes, redirectUriProblem } from '../../domain/oauth2.js';
import { type OAuth2CodeIssued, type OAuth2GrantEvent, type OAuth2TokensIssued, oauth2GrantDecider } from '../../domain/oauth2Grant.js';
import { Permission } from '../../domain/permissions.js';
import { given } from '../support/given.js';
import { G, ada, bob, cy, guildHistory, joined } from '../specs/events.js';

const APP = '900';
const OTHER_APP = '901';
const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const REDIRECT = 'https://client.example/cb';

const codeIssued: OAuth2CodeIssued = {
  type: 'OAuth2CodeIssued',
  data: {
    grantId: '70',
    applicationId: APP,
    userId: '1',
    scopes: ['identify', 'guilds'],
    redirectUri: REDIRECT,
    codeHash: 'code#',
    expiresAt: '2025-06-01T12:10:00.000Z',
  },
};
const tokensIssued: OAuth2TokensIssued = {
  type: 'OAuth2TokensIssued',
  data: {
    grantId: '70',
    applicationId: APP,
    userId: '1',
    scopes: ['identify', 'guilds'],
    accessTokenHash: 'a1',
    refreshTokenHash: 'r1',
    expiresAt: '2025-06-08T12:00:00.000Z',
  },
};
const second = { accessTokenHash: 'a2', refreshTokenHash: 'r2', expiresAt: '2025-06-08T12:00:00.000Z' };
const exchange = (over: Partial<{ applicationId: string; codeHash: string; redirectUri: string; now: number }> = {}) =>
  ({
    type: 'ExchangeCode',
    applicationId: APP,
    codeHash: 'code#',
    redirectUri: REDIRECT,
    now: NOW,
    issued: { accessTokenHash: 'a1', refreshTokenHash: 'r1', expiresAt: tokensIssued.data.expiresAt },
    ...over,
  }) as const;
const refresh = (refreshTokenHash: string, scopes: ('identify' | 'guilds' | 'email')[] | null = null, applicationId = APP) =>
  ({ type: 'RefreshTokens', applicationId, refreshTokenHash, scopes, issued: second }) as const;
const grant = (...events: OAuth2GrantEvent[]) => given(oauth2GrantDecider, events);

describe('the grant', () => {
  it('exchanges its code once, for tokens with the scopes consented to', () => grant(codeIssued).when(exchange()).then([tokensIssued]));

  it.each([
    ['another client', { applicationId: OTHER_APP }],
    ['another code', { codeHash: 'guess#' }],
    ['another redirect_uri', { redirectUri: 'https://client.example/other' }],
    ['an expired code (10 minutes)', { now: Date.parse(codeIssued.data.expiresAt) }],
  ])('refuses the exchange with invalid_grant for %s', (_, over) => {
    const error = grant(codeIssued).when(exchange(over)).thenRefuses('INVALID_GRANT');
    expect(error).toBeInstanceOf(OAuth2Error);
  });

  it('refuses a code no grant issued', () => grant().when(exchange()).thenRefuses('INVALID_GRANT'));

  it('revokes the tokens when the code comes back after its exchange (RFC 6749 §4.1.2)', () =>
    grant(codeIssued, tokensIssued)
      .when(exchange())
      .then([{ type: 'OAuth2GrantRevoked', data: { grantId: '70', applicationId: APP, userId: '1', accessTokenHash: 'a1', reason: 'code_reused' } }]));

  it('refreshes with the current refresh token, rotating both tokens and naming the access token replaced', () =>
    grant(codeIssued, tokensIssued)
      .when(refresh('r1'))
      .then([
        {
          type: 'OAuth2TokensRefreshed',
          data: { grantId: '70', applicationId: APP, userId: '1', scopes: ['identify', 'guilds'], ...second, previousAccessTokenHash: 'a1' },
        },
      ]));

  it('narrows one refreshed token to fewer scopes, and refuses more than was granted with invalid_scope', () => {
    grant(codeIssued, tokensIssued)
      .when(refresh('r1', ['identify']))
      .then([
        {
          type: 'OAuth2TokensRefreshed',
          data: { grantId: '70', applicationId: APP, userId: '1', scopes: ['identify'], ...second, previousAccessTokenHash: 'a1' },
        },
      ]);
    grant(codeIssued, tokensIssued)
      .when(refresh('r1', ['identify', 'email']))
      .thenRefuses('INVALID_SCOPE');
  });

  it('refuses a rotated refresh token, another client’s refresh, and any refresh after revocation', () => {
    const rotated: OAuth2GrantEvent = { type: 'OAuth2TokensRefreshed', data: { ...tokensIssued.data, ...second, previousAccessTokenHash: 'a1' } };
    grant(codeIssued, tokensIssued, rotated).when(refresh('r1')).thenRefuses('INVALID_GRANT');
    grant(codeIssued, tokensIssued)
      .when(refresh('r1', null, OTHER_APP))
      .thenRefuses('INVALID_GRANT');
    const revoked: OAuth2GrantEvent = {
      type: 'OAuth2GrantRevoked',
      data: { grantId: '70', applicationId: APP, userId: '1', accessTokenHash: 'a1', reason: 'revoked' },
    };
    grant(codeIssued, tokensIssued, revoked).when(refresh('r1')).thenRefuses('INVALID_GRANT');
  });

  it('revokes the pair by either token; an unknown or already revoked token changes nothing; another client’s is refused', () => {
    const revoked = { type: 'OAuth2GrantRevoked', data: { grantId: '70', applicationId: APP, userId: '1', accessTokenHash: 'a1', reason: 'revoked' } } as const;
    grant(codeIssued, tokensIssued).when({ type: 'RevokeToken', applicationId: APP, tokenHash: 'a1' }).then([revoked]);
    grant(codeIssued, tokensIssued).when({ type: 'RevokeToken', applicationId: APP, tokenHash: 'r1' }).then([revoked]);
    grant(codeIssued, tokensIssued).when({ type: 'RevokeToken', applicationId: APP, tokenHash: 'nope' }).then([]);
    grant(codeIssued, tokensIssued, revoked).when({ type: 'RevokeToken', applicationId: APP, tokenHash: 'r1' }).then([]);
    grant(codeIssued, tokensIssued).when({ type: 'RevokeToken', applicationId: OTHER_APP, tokenHash: 'r1' }).thenRefuses('INVALID_GRANT');
  });

  it('ends an unused code or live tokens when the account is deleted, once', () => {
    const ended = (accessTokenHash: string | null) =>
      ({ type: 'OAuth2GrantRevoked', data: { grantId: '70', applicationId: APP, userId: '1', accessTokenHash, reason: 'account_deleted' } }) as const;
    grant(codeIssued)
      .when({ type: 'RevokeForDeletedAccount' })
      .then([ended(null)]);
    grant(codeIssued, tokensIssued)
      .when({ type: 'RevokeForDeletedAccount' })
      .then([ended('a1')]);
    grant(codeIssued, tokensIssued, ended('a1')).when({ type: 'RevokeForDeletedAccount' }).then([]);
    grant(codeIssued, ended(null)).when(exchange()).thenRefuses('INVALID_GRANT');
  });
});

describe('scopes and redirect URIs', () => {
  it('reads a space-delimited scope list, refusing unknown or no scopes with invalid_scope', () => {
    expect(parseScopes('identify  guilds identify')).toEqual(['identify', 'guilds']);
    expect(() => parseScopes('identify admin')).toThrow(/Unknown scope: admin/);
    expect(() => parseScopes(' ')).toThrow(OAuth2Error);
  });

  it('takes https anywhere and http on loopback only, never a fragment or user info', () => {
    expect([REDIRECT, 'http://127.0.0.1:8765/cb', 'http://localhost/cb', 'http://[::1]:9/'].map(redirectUriProblem)).toEqual([null, null, null, null]);
    for (const bad of [
      'http://client.example/cb',
      'https://client.example/cb#x',
      'https://u:p@client.example/',
      'javascript:alert(1)',
      '/relative',
      'custom:cb',
    ]) {
      expect(redirectUriProblem(bad), bad).not.toBeNull();
    }
  });
});

describe('the application as an OAuth2 client', () => {
  const created: ApplicationCreated = {
    type: 'ApplicationCreated',
    data: { applicationId: APP, name: 'App', ownerId: ada.id, clientSecretHash: 's1', redirectUris: [REDIRECT] },
  };

  const KEY = { verifyKey: 'ab'.repeat(32), sealedPrivateKey: 's1.sealed' };

  it('registers redirect URIs checked one by one, at most 10', () => {
    const create = (redirectUris: string[]) =>
      ({ type: 'CreateApplication', applicationId: APP, name: 'App', ownerId: ada.id, clientSecretHash: 's1', redirectUris, key: KEY }) as const;
    given(applicationDecider, [])
      .when(create([REDIRECT]))
      .then([created, { type: 'ApplicationKeyCreated', data: { applicationId: APP, ...KEY } }]);
    const refusal = given(applicationDecider, [])
      .when(create([REDIRECT, 'http://client.example/', REDIRECT]))
      .thenRefuses('INVALID_FORM_BODY');
    expect(refusal.errors).toEqual([
      { path: 'redirect_uris.1', message: 'Must be an https URL (http only on localhost, 127.0.0.1 or [::1])' },
      { path: 'redirect_uris.2', message: 'Listed twice' },
    ]);
    const eleven = Array.from({ length: 11 }, (_, i) => `https://client.example/${i}`);
    expect(given(applicationDecider, []).when(create(eleven)).thenRefuses('INVALID_FORM_BODY').errors).toEqual([
      { path: 'redirect_uris', message: 'At most 10 redirect URIs' },
    ]);
  });

  it('changes redirect URIs only when they differ, for the owner', () => {
    const update = (actorId: string, redirect_uris: string[]) => ({ type: 'UpdateApplication', applicationId: APP, actorId, redirect_uris }) as const;
    given(applicationDecider, [created])
      .when(update(ada.id, [REDIRECT]))
      .then([]);
    given(applicationDecider, [created])
      .when(update(ada.id, ['http://localhost:3000/cb']))
      .then([{ type: 'ApplicationUpdated', data: { applicationId: APP, redirect_uris: ['http://localhost:3000/cb'] } }]);
    given(applicationDecider, [created]).when(update(bob.id, [])).thenRefuses('MISSING_ACCESS');
  });

  it('resets the client secret for the owner only', () => {
    given(applicationDecider, [created])
      .when({ type: 'ResetClientSecret', applicationId: APP, actorId: ada.id, clientSecretHash: 's2' })
      .then([{ type: 'ApplicationSecretReset', data: { applicationId: APP, clientSecretHash: 's2' } }]);
    given(applicationDecider, [created])
      .when({ type: 'ResetClientSecret', applicationId: APP, actorId: bob.id, clientSecretHash: 's2' })
      .thenRefuses('MISSING_ACCESS');
  });
});

describe('the bot flow on the guild', () => {
  const BOT = '800';
  const ROLE = '850';
  const addBot = (actorId: string, permissions: bigint) =>
    ({
      type: 'AddBot',
      actorId,
      userId: BOT,
      roleId: ROLE,
      roleName: 'Robo',
      permissions: permissions.toString(),
      joinedAt: '2025-06-01T12:00:00.000Z',
    }) as const;
  const botJoined: GuildEvent = {
    type: 'MemberJoined',
    data: { guildId: G, userId: BOT, joinedAt: '2025-06-01T12:00:00.000Z', inviteCode: null, vanity: false, temporary: false, botAdd: true },
  };
  const managedRole = {
    id: ROLE,
    name: 'Robo',
    color: 0,
    hoist: false,
    mentionable: false,
    permissions: Permission.SEND_MESSAGES.toString(),
    position: 1,
    tags: { bot_id: BOT },
  };
  const withBot: GuildEvent[] = [
    ...guildHistory,
    botJoined,
    { type: 'RoleCreated', data: { guildId: G, role: managedRole } },
    { type: 'MemberUpdated', data: { guildId: G, userId: BOT, changes: [{ key: '$add', new_value: [{ id: ROLE, name: 'Robo' }] }] } },
  ];

  it('adds the bot with a managed role carrying the permissions, for someone with MANAGE_GUILD', () =>
    given(guildDecider, guildHistory).when(addBot(ada.id, Permission.SEND_MESSAGES)).then(withBot.slice(guildHistory.length)));

  it('adds the bot without a role when no permission is asked, and adds nothing for a bot already there', () => {
    given(guildDecider, guildHistory).when(addBot(ada.id, 0n)).then([botJoined]);
    given(guildDecider, withBot).when(addBot(ada.id, Permission.SEND_MESSAGES)).then([]);
  });

  it('refuses a member without MANAGE_GUILD (403), an outsider (404), and permissions the adder does not hold', () => {
    given(guildDecider, guildHistory).when(addBot(cy.id, 0n)).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guildHistory).when(addBot('6', 0n)).thenRefuses('UNKNOWN_GUILD');
    // mia manages the guild but may not ban: she cannot hand a bot BAN_MEMBERS.
    const { tags: _, ...unmanaged } = managedRole;
    const managers = { ...unmanaged, id: '860', name: 'managers', permissions: Permission.MANAGE_GUILD.toString(), position: 3 };
    const manager: GuildEvent[] = [
      ...guildHistory,
      { type: 'RoleCreated', data: { guildId: G, role: managers } },
      joined({ id: '7', username: 'mia' }),
      { type: 'MemberUpdated', data: { guildId: G, userId: '7', changes: [{ key: '$add', new_value: [{ id: '860', name: 'managers' }] }] } },
    ];
    given(guildDecider, manager).when(addBot('7', Permission.BAN_MEMBERS)).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, manager).when(addBot('7', 0n)).then([botJoined]);
  });

  it('keeps the managed role to its bot: not given, not taken, not deleted while the bot is there', () => {
    given(guildDecider, withBot).when({ type: 'AddMemberRole', actorId: ada.id, userId: bob.id, roleId: ROLE }).thenRefuses('MANAGED_ROLE');
    given(guildDecider, withBot).when({ type: 'RemoveMemberRole', actorId: ada.id, userId: BOT, roleId: ROLE }).thenRefuses('MANAGED_ROLE');
    given(guildDecider, withBot).when({ type: 'DeleteRole', actorId: ada.id, roleId: ROLE }).thenRefuses('MANAGED_ROLE');
    // A client sending the bot's whole role list back keeps the managed role; leaving it out does not remove it.
    given(guildDecider, withBot)
      .when({ type: 'UpdateMember', actorId: ada.id, userId: BOT, roles: [ROLE] })
      .then([]);
    given(guildDecider, withBot).when({ type: 'UpdateMember', actorId: ada.id, userId: BOT, roles: [] }).then([]);
    given(guildDecider, withBot)
      .when({ type: 'UpdateMember', actorId: ada.id, userId: bob.id, roles: [ROLE] })
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('lets the role go once its bot is gone', () => {
    const kicked: GuildEvent = { type: 'MemberKicked', data: { guildId: G, userId: BOT } };
    given(guildDecider, [...withBot, kicked])
      .when({ type: 'DeleteRole', actorId: ada.id, roleId: ROLE })
      .then([{ type: 'RoleDeleted', data: { guildId: G, role: managedRole } }]);
  });
});
