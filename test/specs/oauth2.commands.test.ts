// Command specs of OAuth2: the code exchanged on its grant's stream for tokens that enter the log as hashes only, the
// refresh rotating them, revocation, the bot flow adding a bot with its managed role, and the read model of access
// tokens (events → documents) with the audit log's BOT_ADD.
import { describe, expect, it } from 'vitest';
import type { ApplicationBotCreated, ApplicationCreated } from '../../domain/application.js';
import type { OAuth2GrantEvent } from '../../domain/oauth2Grant.js';
import { Permission } from '../../domain/permissions.js';
import { addBotToGuild, exchangeCode, oauth2Client, refreshGrant, revokeToken } from '../../commands/oauth2.js';
import type { CommandDeps } from '../../commands/deps.js';
import { sha256 } from '../../ports/secrets.js';
import { auditLogProjection } from '../../projections/auditLog.js';
import { AUDIT_LOG_ENTRIES, OAUTH2_TOKENS } from '../../projections/collections.js';
import { oauth2Projection } from '../../projections/oauth2.js';
import { EARLIER, NEW_IDS, NOW, givenProjections, givenStreams } from './support.js';
import { G, accounts, ada, cy, guildStream } from './events.js';

const APP = '900';
const BOT = '800';
const GRANT = '70';
const REDIRECT = 'https://client.example/cb';
/** A code as the service makes them: the grant's id, base64url, a dot, the secret part. */
const CODE = `${Buffer.from(GRANT).toString('base64url')}.spec-code`;
const REFRESH = `${Buffer.from(GRANT).toString('base64url')}.spec-refresh`;
const HASH = expect.stringMatching(/^[0-9a-f]{64}$/);
const IN_A_WEEK = new Date(Date.parse(NOW) + 604_800_000).toISOString();

const application: [string, (ApplicationCreated | ApplicationBotCreated)[]] = [
  `application-${APP}`,
  [
    { type: 'ApplicationCreated', data: { applicationId: APP, name: 'Robo', ownerId: ada.id, clientSecretHash: sha256('secret'), redirectUris: [REDIRECT] } },
    { type: 'ApplicationBotCreated', data: { applicationId: APP, botUserId: BOT } },
  ],
];
const bot: [string, { type: 'UserRegistered'; data: Record<string, unknown> }[]] = [
  `user-${BOT}`,
  [{ type: 'UserRegistered', data: { userId: BOT, username: 'Robo', discriminator: '0001', email: null, passwordHash: null, bot: true, applicationId: APP } }],
];
const codeIssued: OAuth2GrantEvent = {
  type: 'OAuth2CodeIssued',
  data: {
    grantId: GRANT,
    applicationId: APP,
    userId: ada.id,
    scopes: ['identify'],
    redirectUri: REDIRECT,
    codeHash: sha256(CODE),
    expiresAt: '2025-06-01T12:05:00.000Z',
  },
};
const tokensIssued: OAuth2GrantEvent = {
  type: 'OAuth2TokensIssued',
  data: {
    grantId: GRANT,
    applicationId: APP,
    userId: ada.id,
    scopes: ['identify'],
    accessTokenHash: 'a1',
    refreshTokenHash: sha256(REFRESH),
    expiresAt: EARLIER,
  },
};
const GRANT_STREAM = `oauth2-grant-${GRANT}`;
const client = async (deps: CommandDeps) => (await oauth2Client(deps, APP))!;

describe('exchangeCode', () => {
  it('appends OAuth2TokensIssued with the tokens’ hashes only, the access token expiring after the TTL', () =>
    givenStreams(application, [GRANT_STREAM, [codeIssued]])
      .when(async (deps) => {
        const answer = await exchangeCode(deps, { actorId: null }, await client(deps), { code: CODE, redirectUri: REDIRECT, accessTokenTtl: 604_800 });
        expect(answer).toMatchObject({ token_type: 'Bearer', expires_in: 604_800, scope: 'identify' });
        expect(answer.access_token.startsWith(`${Buffer.from(GRANT).toString('base64url')}.`)).toBe(true);
      })
      .then({
        stream: GRANT_STREAM,
        type: 'OAuth2TokensIssued',
        data: { grantId: GRANT, applicationId: APP, userId: ada.id, scopes: ['identify'], accessTokenHash: HASH, refreshTokenHash: HASH, expiresAt: IN_A_WEEK },
      }));

  it('refuses a code for another redirect_uri with invalid_grant, appending nothing', () =>
    givenStreams(application, [GRANT_STREAM, [codeIssued]])
      .when(async (deps) => exchangeCode(deps, { actorId: null }, await client(deps), { code: CODE, redirectUri: `${REDIRECT}/x`, accessTokenTtl: 60 }))
      .thenRefuses('INVALID_GRANT'));

  it('refuses text that names no grant', () =>
    givenStreams(application)
      .when(async (deps) => exchangeCode(deps, { actorId: null }, await client(deps), { code: 'not-a-code', redirectUri: REDIRECT, accessTokenTtl: 60 }))
      .thenRefuses('INVALID_GRANT'));
});

describe('refreshGrant and revokeToken', () => {
  it('rotates the pair with the current refresh token', () =>
    givenStreams(application, [GRANT_STREAM, [codeIssued, tokensIssued]])
      .when(async (deps) => refreshGrant(deps, { actorId: null }, await client(deps), { refreshToken: REFRESH, scopes: null, accessTokenTtl: 60 }))
      .then({
        stream: GRANT_STREAM,
        type: 'OAuth2TokensRefreshed',
        data: {
          grantId: GRANT,
          applicationId: APP,
          userId: ada.id,
          scopes: ['identify'],
          accessTokenHash: HASH,
          refreshTokenHash: HASH,
          expiresAt: new Date(Date.parse(NOW) + 60_000).toISOString(),
          previousAccessTokenHash: 'a1',
        },
      }));

  it('revokes the grant by its refresh token', () =>
    givenStreams(application, [GRANT_STREAM, [codeIssued, tokensIssued]])
      .when(async (deps) => revokeToken(deps, { actorId: null }, await client(deps), REFRESH))
      .then({
        stream: GRANT_STREAM,
        type: 'OAuth2GrantRevoked',
        data: { grantId: GRANT, applicationId: APP, userId: ada.id, accessTokenHash: 'a1', reason: 'revoked' },
      }));
});

describe('addBotToGuild', () => {
  it('appends the bot’s join, its managed role and the role given, with the person who authorized as actor', () =>
    givenStreams(...accounts(ada, cy), bot, application, guildStream)
      .when(async (deps) => {
        const outcome = await addBotToGuild(
          deps,
          { actorId: ada.id },
          { client: await client(deps), guildId: G, permissions: Permission.SEND_MESSAGES | (1n << 62n) },
        );
        expect(outcome).toEqual({ added: true, guildName: 'Spec Guild' });
      })
      .then(
        {
          stream: `guild-${G}`,
          type: 'MemberJoined',
          data: { guildId: G, userId: BOT, joinedAt: NOW, inviteCode: null, vanity: false, temporary: false, botAdd: true },
          metadata: { actorId: ada.id },
        },
        {
          stream: `guild-${G}`,
          type: 'RoleCreated',
          // The bit that names no permission (1 << 62) is dropped.
          data: {
            guildId: G,
            role: {
              id: NEW_IDS[0],
              name: 'Robo',
              color: 0,
              hoist: false,
              mentionable: false,
              permissions: Permission.SEND_MESSAGES.toString(),
              position: 1,
              tags: { bot_id: BOT },
            },
          },
        },
        {
          stream: `guild-${G}`,
          type: 'MemberUpdated',
          data: { guildId: G, userId: BOT, changes: [{ key: '$add', new_value: [{ id: NEW_IDS[0], name: 'Robo' }] }] },
        },
      ));

  it('refuses someone without MANAGE_GUILD, appending nothing', () =>
    givenStreams(...accounts(ada, cy), bot, application, guildStream)
      .when(async (deps) => addBotToGuild(deps, { actorId: cy.id }, { client: await client(deps), guildId: G, permissions: 0n }))
      .thenRefuses('MISSING_PERMISSIONS'));
});

describe('the access tokens read model', () => {
  const tokens = givenProjections(oauth2Projection);
  const refreshed: OAuth2GrantEvent = {
    type: 'OAuth2TokensRefreshed',
    data: {
      grantId: GRANT,
      applicationId: APP,
      userId: ada.id,
      scopes: ['identify'],
      accessTokenHash: 'a2',
      refreshTokenHash: 'r2',
      expiresAt: NOW,
      previousAccessTokenHash: 'a1',
    },
  };

  it('keeps each live access token by hash with its user, client, scopes and expiry, and nothing of the refresh token', async () => {
    await tokens(codeIssued)
      .when(tokensIssued)
      .thenFind(OAUTH2_TOKENS, {}, [{ _id: 'a1', user_id: ada.id, application_id: APP, grant_id: GRANT, scopes: ['identify'], expires_at: EARLIER }]);
  });

  it('drops the replaced access token on refresh, and the current one on revocation', async () => {
    await tokens(codeIssued, tokensIssued)
      .when(refreshed)
      .thenFind(OAUTH2_TOKENS, {}, [{ _id: 'a2', expires_at: NOW }]);
    const revoked: OAuth2GrantEvent = {
      type: 'OAuth2GrantRevoked',
      data: { grantId: GRANT, applicationId: APP, userId: ada.id, accessTokenHash: 'a2', reason: 'revoked' },
    };
    await tokens(codeIssued, tokensIssued, refreshed).when(revoked).thenFind(OAUTH2_TOKENS, {}, []);
  });

  it('writes a BOT_ADD audit entry (28) for a bot the flow added, none for a join by invite', async () => {
    const join = (botAdd?: boolean) => ({
      type: 'MemberJoined',
      data: { guildId: G, userId: BOT, joinedAt: NOW, inviteCode: null, vanity: false, temporary: false, ...(botAdd ? { botAdd } : {}) },
      metadata: { actorId: ada.id },
    });
    await givenProjections(auditLogProjection)()
      .when(join(true))
      .thenFind(AUDIT_LOG_ENTRIES, {}, [{ action_type: 28, target_id: BOT, user_id: ada.id, guild_id: G }]);
    await givenProjections(auditLogProjection)().when(join()).thenFind(AUDIT_LOG_ENTRIES, {}, []);
  });
});
