// Usernames' and email addresses' claims. New claims go to streams named by a keyed hash (commands/streams.ts);
// earlier versions named them by a plain SHA-256, and what was claimed then is still held there. So a name or an
// address is taken when either stream holds it, and a release goes to whichever holds it. The legacy streams only
// lose claims now, so reading one before deciding on the keyed stream misses no claim made meanwhile.
import { randomInt } from 'node:crypto';
import { emailClaimDecider } from '../domain/emailClaim.js';
import { usernameClaimDecider } from '../domain/usernameClaim.js';
import { sha256 } from '../ports/secrets.js';
import { type RequestMeta, type Uses, metadata } from './deps.js';
import { emailFingerprint, emailStream, legacyEmailStream, legacyUsernameStream, usernameStream } from './streams.js';

type ClaimDeps = Uses<'commands' | 'secrets' | 'clock'>;

/** The discriminators of `username` held on its legacy stream. */
async function legacyDiscriminators(deps: Uses<'commands'>, username: string): Promise<string[]> {
  return [...(await deps.commands.load(legacyUsernameStream(username), usernameClaimDecider)).state.keys()];
}

/** Refuses, appending nothing, when `username` has no discriminator left. */
export async function assertUsernameAvailable(deps: Uses<'commands' | 'secrets'>, username: string): Promise<void> {
  const { state } = await deps.commands.load(usernameStream(deps.secrets, username), usernameClaimDecider);
  usernameClaimDecider.decide({ type: 'ClaimDiscriminator', username, userId: '', start: 1, heldElsewhere: await legacyDiscriminators(deps, username) }, state);
}

/** Picks a discriminator for `username`, keeping `preferred` when it is free. Appends the claim. */
export async function claimDiscriminator(deps: ClaimDeps, meta: RequestMeta, username: string, userId: string, preferred?: string): Promise<string> {
  const heldElsewhere = await legacyDiscriminators(deps, username);
  const { state } = await deps.commands.handle(
    usernameStream(deps.secrets, username),
    usernameClaimDecider,
    { type: 'ClaimDiscriminator', username, userId, start: randomInt(1, 10000), preferred, heldElsewhere },
    metadata(meta, deps.clock),
  );
  const discriminator = [...state].find(([, holder]) => holder === userId)?.[0];
  if (!discriminator) throw new Error('discriminator claim did not record the user');
  return discriminator;
}

/** Gives `username#discriminator` back on whichever stream holds it for `userId`; the other appends nothing. */
export async function releaseDiscriminator(deps: ClaimDeps, meta: RequestMeta, username: string, userId: string, discriminator: string): Promise<void> {
  for (const stream of [usernameStream(deps.secrets, username), legacyUsernameStream(username)]) {
    await deps.commands.handle(stream, usernameClaimDecider, { type: 'ReleaseDiscriminator', username, userId, discriminator }, metadata(meta, deps.clock));
  }
}

/** The email's claim streams, keyed first, each with the hash its events carry. */
const emailClaims = (deps: Uses<'secrets'>, email: string) => [
  { stream: emailStream(deps.secrets, email), emailHash: emailFingerprint(deps.secrets, email) },
  { stream: legacyEmailStream(email), emailHash: sha256(email.toLowerCase()) },
];

/** Refuses, appending nothing, when the address is held on either stream. */
export async function assertEmailAvailable(deps: Uses<'commands' | 'secrets'>, email: string): Promise<void> {
  for (const { stream } of emailClaims(deps, email)) {
    emailClaimDecider.decide({ type: 'ClaimEmail', emailHash: '', userId: '' }, (await deps.commands.load(stream, emailClaimDecider)).state);
  }
}

/** Claims the address for `userId` on its keyed stream, refused when someone holds it on either. */
export async function claimEmail(deps: ClaimDeps, meta: RequestMeta, email: string, userId: string): Promise<void> {
  const [keyed, legacy] = emailClaims(deps, email);
  emailClaimDecider.decide({ type: 'ClaimEmail', emailHash: legacy.emailHash, userId }, (await deps.commands.load(legacy.stream, emailClaimDecider)).state);
  await deps.commands.handle(keyed.stream, emailClaimDecider, { type: 'ClaimEmail', emailHash: keyed.emailHash, userId }, metadata(meta, deps.clock));
}

/** Gives the address back on whichever stream holds it for `userId`; the other appends nothing. */
export async function releaseEmail(deps: ClaimDeps, meta: RequestMeta, email: string, userId: string): Promise<void> {
  for (const { stream, emailHash } of emailClaims(deps, email)) {
    await deps.commands.handle(stream, emailClaimDecider, { type: 'ReleaseEmail', emailHash, userId }, metadata(meta, deps.clock));
  }
}
