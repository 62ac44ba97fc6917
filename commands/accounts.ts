// Accounts: registration, login, applications and their bot users, profile changes.
import { type ApplicationCommand, applicationDecider, assertOwner } from '../domain/application.js';
import { invalidForm, notFound } from '../domain/errors.js';
import { userDecider } from '../domain/user.js';
import type { Image } from '../ports/images.js';
import { hashPassword, newSecret, newToken, sha256, verifyPassword } from '../ports/secrets.js';
import type { LoginDoc } from '../projections/users.js';
import { loginsByEmail, loginsByTag, loginsByUsername } from '../projections/users.queries.js';
import { type RequestMeta, type Uses, metadata } from './deps.js';
import { assertEmailAvailable, assertUsernameAvailable, claimDiscriminator, claimEmail, releaseDiscriminator } from './claims.js';
import { newApplicationKey } from './interactionEndpoint.js';
import { applicationStream, userStream } from './streams.js';

/** Refuses before anything is appended when the username has no discriminator left or the email is taken. */
async function assertRegistrable(deps: Uses<'commands' | 'secrets'>, username: string, email: string | null) {
  await assertUsernameAvailable(deps, username);
  if (email) await assertEmailAvailable(deps, email);
}

async function startSession(deps: Uses<'commands' | 'clock'>, meta: RequestMeta, userId: string) {
  const token = newToken(userId);
  const { position } = await deps.commands.handle(
    userStream(userId),
    userDecider,
    { type: 'StartSession', userId, tokenHash: sha256(token) },
    metadata(meta, deps.clock),
  );
  return { token, position };
}

export async function registerUser(
  deps: Uses<'commands' | 'ids' | 'secrets' | 'clock' | 'settle'>,
  meta: RequestMeta,
  input: { username: string; password: string; email?: string },
) {
  const email = input.email ?? null;
  await assertRegistrable(deps, input.username, email);
  const userId = deps.ids.next();
  const passwordHash = await hashPassword(input.password);
  const actor = { ...meta, actorId: userId };
  if (email) await claimEmail(deps, actor, email, userId);
  const discriminator = await claimDiscriminator(deps, actor, input.username, userId);
  await deps.commands.handle(
    userStream(userId),
    userDecider,
    { type: 'RegisterUser', userId, username: input.username, discriminator, email, passwordHash },
    metadata(actor, deps.clock),
  );
  const session = await startSession(deps, actor, userId);
  await deps.settle(session.position);
  return { token: session.token, userId };
}

const invalidLogin = () =>
  invalidForm([
    { path: 'login', message: 'Login or password is invalid.' },
    { path: 'password', message: 'Login or password is invalid.' },
  ]);

/** `login` is an email, a username#discriminator, or a username that only one account has. */
export async function login(deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>, meta: RequestMeta, input: { login: string; password: string }) {
  const text = input.login.trim();
  const tagged = /^(.+)#(\d{4})$/.exec(text);
  let candidates: LoginDoc[];
  if (text.includes('@') && !tagged) candidates = await loginsByEmail(deps.readStore, text);
  else if (tagged) candidates = await loginsByTag(deps.readStore, tagged[1], tagged[2]);
  else candidates = await loginsByUsername(deps.readStore, text, 2);
  if (candidates.length > 1) {
    throw invalidForm([{ path: 'login', message: 'Several accounts have this username: log in with username#discriminator or with your email.' }]);
  }
  const [account] = candidates;
  if (!account || !(await verifyPassword(input.password, account.password_hash))) throw invalidLogin();
  const session = await startSession(deps, { ...meta, actorId: account._id }, account._id);
  await deps.settle(session.position);
  return { token: session.token, userId: account._id };
}

export async function createApplication(
  deps: Uses<'commands' | 'ids' | 'secrets' | 'clock' | 'settle'>,
  meta: RequestMeta & { actorId: string },
  input: { name: string; redirectUris?: string[] },
) {
  const applicationId = deps.ids.next();
  const clientSecret = newSecret();
  const { position } = await deps.commands.handle(
    applicationStream(applicationId),
    applicationDecider,
    {
      type: 'CreateApplication',
      applicationId,
      name: input.name,
      ownerId: meta.actorId,
      clientSecretHash: sha256(clientSecret),
      redirectUris: input.redirectUris ?? [],
      key: newApplicationKey(deps),
    },
    metadata(meta, deps.clock),
  );
  await deps.settle(position);
  return { applicationId, clientSecret };
}

/** The application's bot user, whose id is the application's (domain/application.ts says why). */
export async function createBot(
  deps: Uses<'commands' | 'secrets' | 'clock' | 'settle'>,
  meta: RequestMeta & { actorId: string },
  applicationId: string,
  name: string,
) {
  const { state } = await deps.commands.handle(
    applicationStream(applicationId),
    applicationDecider,
    { type: 'CreateBot', applicationId, actorId: meta.actorId },
    metadata(meta, deps.clock),
  );
  const botUserId = state.botUserId!;
  const token = newToken(botUserId);
  const discriminator = await claimDiscriminator(deps, meta, name, botUserId);
  const { position } = await deps.commands.handle(
    userStream(botUserId),
    userDecider,
    { type: 'RegisterBotUser', userId: botUserId, applicationId, username: name, discriminator, tokenHash: sha256(token) },
    metadata(meta, deps.clock),
  );
  await deps.settle(position);
  return { botUserId, token, discriminator };
}

/**
 * `icon` undefined keeps the icon, null removes it. The actor is the application's bot or its owner. A new
 * interactions endpoint URL is checked with `verifyEndpoint` once the actor may change the application, before it is stored.
 */
export async function updateApplication(
  deps: Uses<'commands' | 'blobs' | 'clock' | 'settle'>,
  meta: RequestMeta & { actorId: string },
  applicationId: string,
  input: { description?: string; flags?: number; icon?: Image | null; redirect_uris?: string[]; interactions_endpoint_url?: string | null },
  verifyEndpoint: (url: string, ownerId: string) => Promise<void>,
) {
  const { icon, ...fields } = input;
  const command: ApplicationCommand = {
    type: 'UpdateApplication',
    applicationId,
    actorId: meta.actorId,
    ...fields,
    ...(icon !== undefined ? { icon: icon?.hash ?? null } : {}),
  };
  // Decided before the icon is stored and the endpoint called, so a refused change leaves no blob behind and costs no request.
  const { state } = await deps.commands.load(applicationStream(applicationId), applicationDecider);
  applicationDecider.decide(command, state);
  const url = input.interactions_endpoint_url;
  // The stored URL too: what answers there may have changed since it was verified.
  if (url) await verifyEndpoint(url, state.ownerId!);
  if (icon) await deps.blobs.put(`app-icons/${applicationId}/${icon.hash}`, icon);
  const { position } = await deps.commands.handle(applicationStream(applicationId), applicationDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
}

export async function resetBotToken(deps: Uses<'commands' | 'clock' | 'settle'>, meta: RequestMeta & { actorId: string }, applicationId: string) {
  const { state } = await deps.commands.load(applicationStream(applicationId), applicationDecider);
  assertOwner(state, meta.actorId);
  if (!state.botUserId) throw notFound('UNKNOWN_USER', 'This application has no bot user yet');
  const token = newToken(state.botUserId);
  const { position } = await deps.commands.handle(
    userStream(state.botUserId),
    userDecider,
    { type: 'ResetBotToken', userId: state.botUserId, tokenHash: sha256(token) },
    metadata(meta, deps.clock),
  );
  await deps.settle(position);
  return { token };
}

/** A new client secret for the owner; the old one stops authenticating the application at once. */
export async function resetClientSecret(deps: Uses<'commands' | 'clock' | 'settle'>, meta: RequestMeta & { actorId: string }, applicationId: string) {
  const clientSecret = newSecret();
  const command: ApplicationCommand = { type: 'ResetClientSecret', applicationId, actorId: meta.actorId, clientSecretHash: sha256(clientSecret) };
  const { position } = await deps.commands.handle(applicationStream(applicationId), applicationDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  return { clientSecret };
}

export async function updateProfile(
  deps: Uses<'commands' | 'blobs' | 'secrets' | 'clock' | 'settle'>,
  meta: RequestMeta & { actorId: string },
  input: { username?: string; avatar?: { data: Buffer; contentType: string; hash: string } | null; locale?: string },
) {
  const userId = meta.actorId;
  const { state } = await deps.commands.load(userStream(userId), userDecider);
  const change: { username?: string; discriminator?: string; avatar?: string | null; locale?: string } = { locale: input.locale };
  const renamed = input.username !== undefined && input.username !== state.username;
  if (renamed) {
    await assertRegistrable(deps, input.username!, null);
    change.username = input.username;
    change.discriminator = await claimDiscriminator(deps, meta, input.username!, userId, state.discriminator);
  }
  if (input.avatar !== undefined) {
    if (input.avatar) await deps.blobs.put(`avatars/${userId}/${input.avatar.hash}`, input.avatar);
    change.avatar = input.avatar?.hash ?? null;
  }
  const { position } = await deps.commands.handle(userStream(userId), userDecider, { type: 'UpdateProfile', userId, ...change }, metadata(meta, deps.clock));
  if (renamed) await releaseDiscriminator(deps, meta, state.username, userId, state.discriminator);
  await deps.settle(position);
}
