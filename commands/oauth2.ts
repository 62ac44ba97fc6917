// OAuth2 use cases: a person's consent becomes a grant with a code (the authorization page), the client exchanges the
// code for tokens, refreshes them (rotation) and revokes them (the token endpoints); the bot flow adds an
// application's bot to a guild; a bot adds a person who granted guilds.join. Codes and tokens are made here, handed
// out once, and enter the log as SHA-256 hashes only; each names its grant's stream before the dot.
import { type ApplicationState, applicationDecider } from '../domain/application.js';
import { badRequest, forbidden } from '../domain/errors.js';
import { type GuildCommand, guildDecider } from '../domain/guild.js';
import { guildPermissions } from '../domain/guildState.js';
import { CODE_TTL_MS, OAuth2Error, type Scope } from '../domain/oauth2.js';
import { type IssuedTokens, oauth2GrantDecider } from '../domain/oauth2Grant.js';
import { ALL_PERMISSIONS, Permission, hasPermission, requirePermission } from '../domain/permissions.js';
import { isoNow } from '../ports/clock.js';
import { matchesHash, newToken, sha256, tokenSubject } from '../ports/secrets.js';
import { applicationIdFor } from '../projections/applications.queries.js';
import { membershipsOf } from '../projections/members.queries.js';
import { oauth2TokenByHash } from '../projections/oauth2.queries.js';
import { userById } from '../projections/users.queries.js';
import { guildAccess, loadGuild } from './access.js';
import { type ActorMeta, type RequestMeta, type Uses, metadata } from './deps.js';
import { runGuildCommand } from './guilds.js';
import { applicationStream, guildStream, oauth2GrantStream } from './streams.js';

/** The spec's OAuth2 token response. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export type OAuth2Client = ApplicationState & { id: string };

/** The registered application a client_id names (by its id, or its bot user's: applicationIdFor), or null. */
export async function oauth2Client(deps: Uses<'commands' | 'readStore'>, clientId: string): Promise<OAuth2Client | null> {
  const id = await applicationIdFor(deps.readStore, clientId);
  const { state } = await deps.commands.load(applicationStream(id), applicationDecider);
  return state.exists ? { ...state, id } : null;
}

/** The application when `clientSecret` is its current secret; invalid_client (401) for anything else. */
export async function authenticateClient(deps: Uses<'commands' | 'readStore'>, clientId: string, clientSecret: string): Promise<OAuth2Client> {
  const client = await oauth2Client(deps, clientId);
  if (!client || !matchesHash(clientSecret, client.clientSecretHash)) throw new OAuth2Error('invalid_client', 'Unknown client, or a wrong client secret');
  return client;
}

/** The person consents: a new grant whose code the page hands to the redirect URI. */
export async function authorizeClient(
  deps: Uses<'commands' | 'ids' | 'clock'>,
  meta: ActorMeta,
  input: { applicationId: string; scopes: Scope[]; redirectUri: string },
): Promise<{ code: string }> {
  const grantId = deps.ids.next();
  const code = newToken(grantId);
  const expiresAt = new Date(deps.clock.now() + CODE_TTL_MS).toISOString();
  const command = { type: 'IssueCode', grantId, userId: meta.actorId, ...input, codeHash: sha256(code), expiresAt } as const;
  await deps.commands.handle(oauth2GrantStream(grantId), oauth2GrantDecider, command, metadata(meta, deps.clock));
  return { code };
}

/** A fresh access and refresh token for the grant, in clear for the answer and as the hashes the log keeps. */
function newTokens(deps: Uses<'clock'>, grantId: string, ttlSeconds: number) {
  const accessToken = newToken(grantId);
  const refreshToken = newToken(grantId);
  const hashes: IssuedTokens = {
    accessTokenHash: sha256(accessToken),
    refreshTokenHash: sha256(refreshToken),
    expiresAt: new Date(deps.clock.now() + ttlSeconds * 1000).toISOString(),
  };
  const answer = (scopes: Scope[]): TokenResponse => ({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ttlSeconds,
    refresh_token: refreshToken,
    scope: scopes.join(' '),
  });
  return { hashes, answer };
}

/** The grant a code or token names; invalid_grant when it names none. */
function grantOf(token: string, what: string): string {
  const grantId = tokenSubject(token);
  if (!grantId) throw new OAuth2Error('invalid_grant', `The ${what} is invalid`);
  return grantId;
}

/** grant_type=authorization_code. A code presented again after its exchange revokes what it gave (RFC 6749 §4.1.2). */
export async function exchangeCode(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: RequestMeta,
  client: OAuth2Client,
  input: { code: string; redirectUri: string; accessTokenTtl: number },
): Promise<TokenResponse> {
  const grantId = grantOf(input.code, 'authorization code');
  // An account deletion revokes the grants it finds by their tokens; a code not yet exchanged has none, so it is refused here.
  const { state: grant } = await deps.commands.load(oauth2GrantStream(grantId), oauth2GrantDecider);
  if (grant.userId && (await userById(deps.readStore, grant.userId))?.deleted)
    throw new OAuth2Error('invalid_grant', 'The account that approved this code is deleted');
  const tokens = newTokens(deps, grantId, input.accessTokenTtl);
  const command = {
    type: 'ExchangeCode',
    applicationId: client.id,
    codeHash: sha256(input.code),
    redirectUri: input.redirectUri,
    now: deps.clock.now(),
    issued: tokens.hashes,
  } as const;
  const { events, position } = await deps.commands.handle(oauth2GrantStream(grantId), oauth2GrantDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  const issued = events.find((e) => e.type === 'OAuth2TokensIssued');
  if (issued?.type !== 'OAuth2TokensIssued') throw new OAuth2Error('invalid_grant', 'The authorization code was already used: the tokens it gave are revoked');
  return tokens.answer(issued.data.scopes);
}

/** grant_type=refresh_token: a new pair, the old refresh and access tokens stop working. `scopes` null keeps the grant's. */
export async function refreshGrant(
  deps: Uses<'commands' | 'clock' | 'settle'>,
  meta: RequestMeta,
  client: OAuth2Client,
  input: { refreshToken: string; scopes: Scope[] | null; accessTokenTtl: number },
): Promise<TokenResponse> {
  const grantId = grantOf(input.refreshToken, 'refresh token');
  const tokens = newTokens(deps, grantId, input.accessTokenTtl);
  const command = {
    type: 'RefreshTokens',
    applicationId: client.id,
    refreshTokenHash: sha256(input.refreshToken),
    scopes: input.scopes,
    issued: tokens.hashes,
  } as const;
  const { events, position } = await deps.commands.handle(oauth2GrantStream(grantId), oauth2GrantDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  const [refreshed] = events;
  return tokens.answer(refreshed.type === 'OAuth2TokensRefreshed' ? refreshed.data.scopes : []);
}

/** RFC 7009: an access or refresh token revokes its whole grant; a token that is not (or no longer) valid changes nothing. */
export async function revokeToken(deps: Uses<'commands' | 'clock' | 'settle'>, meta: RequestMeta, client: OAuth2Client, token: string): Promise<void> {
  const grantId = tokenSubject(token);
  if (!grantId) return;
  const command = { type: 'RevokeToken', applicationId: client.id, tokenHash: sha256(token) } as const;
  const { position } = await deps.commands.handle(oauth2GrantStream(grantId), oauth2GrantDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
}

/** The guilds the bot flow may add a bot to for this person: those where they have MANAGE_GUILD, by name. */
export async function manageableGuilds(deps: Uses<'commands' | 'readStore' | 'clock'>, userId: string): Promise<{ id: string; name: string }[]> {
  const memberships = await membershipsOf(deps.readStore, userId);
  const guilds = await Promise.all(memberships.map(({ guild_id }) => loadGuild(deps, guild_id).catch(() => null)));
  return guilds
    .filter((guild) => guild !== null && hasPermission(guildPermissions(guild, userId), Permission.MANAGE_GUILD))
    .map((guild) => ({ id: guild!.id, name: guild!.settings.name }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** The bot flow: the application's bot joins the guild, with a managed role carrying `permissions` when any. */
export async function addBotToGuild(
  deps: Uses<'commands' | 'ids' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  input: { client: OAuth2Client; guildId: string; permissions: bigint },
): Promise<{ added: boolean; guildName: string }> {
  const { botUserId } = input.client;
  if (!botUserId) throw badRequest('APPLICATION_HAS_NO_BOT', 'This application has no bot user to add');
  const bot = await userById(deps.readStore, botUserId);
  const command: GuildCommand = {
    type: 'AddBot',
    actorId: meta.actorId,
    userId: botUserId,
    roleId: deps.ids.next(),
    roleName: bot?.username ?? input.client.name,
    // The bits that name no permission are dropped, as role permissions are.
    permissions: (input.permissions & ALL_PERMISSIONS).toString(),
    joinedAt: isoNow(deps.clock),
  };
  const { events, state } = await runGuildCommand(deps, meta, input.guildId, command);
  return { added: events.length > 0, guildName: state.settings.name };
}

const invalidAccessToken = (why: string) => forbidden('INVALID_OAUTH2_ACCESS_TOKEN', `Invalid OAuth2 access token: ${why}`);

/**
 * PUT /guilds/:id/members/:user_id by a bot: the person joins with an access token they gave the bot's application
 * with guilds.join. The bot needs CREATE_INSTANT_INVITE there, and MANAGE_NICKNAMES / MANAGE_ROLES for a nick or roles;
 * every check is made before anything is appended. Returns false when the person was already a member (nothing changes).
 */
export async function addMemberWithAccessToken(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  input: { guildId: string; userId: string; accessToken: string; nick?: string | null; roles?: string[] },
): Promise<boolean> {
  const bot = await userById(deps.readStore, meta.actorId);
  if (!bot?.application_id) throw forbidden('BOTS_ONLY', "Only a bot adds members with an access token, its application's");
  const { permissions } = await guildAccess(deps, input.guildId, meta.actorId);
  requirePermission(permissions, Permission.CREATE_INSTANT_INVITE);
  const token = await oauth2TokenByHash(deps.readStore, sha256(input.accessToken));
  if (!token || Date.parse(token.expires_at) <= deps.clock.now()) throw invalidAccessToken('unknown, revoked or expired');
  if (token.user_id !== input.userId) throw invalidAccessToken('it was granted by another user');
  if (token.application_id !== bot.application_id) throw invalidAccessToken("it was granted to another application than the bot's");
  if (!token.scopes.includes('guilds.join')) throw invalidAccessToken('it lacks the guilds.join scope');

  const join: GuildCommand = { type: 'JoinGuild', userId: input.userId, joinedAt: isoNow(deps.clock), inviteCode: null, vanity: false, temporary: false };
  const { state } = await deps.commands.load(guildStream(input.guildId), guildDecider);
  const joined = guildDecider.decide(join, state, deps.clock.now());
  if (joined.length === 0) return false;
  const update: GuildCommand | null =
    input.nick !== undefined || input.roles !== undefined
      ? { type: 'UpdateMember', actorId: meta.actorId, userId: input.userId, nick: input.nick, roles: input.roles }
      : null;
  // Decided on the state the join makes, so that a refused nick or role refuses the join too.
  if (update) guildDecider.decide(update, joined.reduce(guildDecider.evolve, state), deps.clock.now());
  await runGuildCommand(deps, meta, input.guildId, join);
  if (update) await runGuildCommand(deps, meta, input.guildId, update);
  return true;
}
