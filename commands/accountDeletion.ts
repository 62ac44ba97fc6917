// Account deletion: POST /users/@me/delete (the person, with their password) and the operator's erasure (no password).
// Every effect is an event on the stream it belongs to, in an order that lets a deletion cut short by a crash be
// finished by running it again: the account stays live, its tokens working, until the last step appends UserErased,
// and every step before it acts only on what is still left (a guild still joined, a grant still open, a claim still held).
import { type DmChannelCommand, DmChannelType, dmChannelDecider, dmPairStream } from '../domain/dmChannel.js';
import { oauth2GrantDecider } from '../domain/oauth2Grant.js';
import { type UserCommand, userDecider } from '../domain/user.js';
import { isoNow } from '../ports/clock.js';
import type { Position } from '../ports/eventStore.js';
import { verifyPassword } from '../ports/secrets.js';
import { applicationsOwnedBy } from '../projections/applications.queries.js';
import type { DmChannelDoc } from '../projections/dms.js';
import { dmChannelsOf } from '../projections/dms.queries.js';
import { guildsByIds } from '../projections/guilds.queries.js';
import { membershipsOf } from '../projections/members.queries.js';
import { oauth2TokensOfUser } from '../projections/oauth2.queries.js';
import { loginById, usersByIds } from '../projections/users.queries.js';
import { releaseDiscriminator, releaseEmail } from './claims.js';
import { type ActorMeta, type RequestMeta, type Uses, lastPosition, metadata, settleWithFiles } from './deps.js';
import { closeDm } from './dms.js';
import { runGuildCommand } from './guilds.js';
import { oauth2GrantStream, userStream } from './streams.js';

/** The person's password, or null for an operator carrying out an erasure request. */
export type DeletionProof = { password: string } | null;

type DeletionDeps = Uses<'commands' | 'readStore' | 'secrets' | 'clock' | 'settle' | 'settleFiles'>;

/** Whether the password is the account's; null when none was asked for. */
async function checkPassword(deps: DeletionDeps, userId: string, proof: DeletionProof): Promise<boolean | null> {
  if (!proof) return null;
  const login = await loginById(deps.readStore, userId);
  return login ? verifyPassword(proof.password, login.password_hash) : false;
}

async function erasureCommand(deps: DeletionDeps, userId: string, passwordMatches: boolean | null): Promise<UserCommand> {
  const memberships = await membershipsOf(deps.readStore, userId);
  const guilds = await guildsByIds(
    deps.readStore,
    memberships.map((m) => m.guild_id),
  );
  return {
    type: 'EraseUser',
    userId,
    erasedAt: isoNow(deps.clock),
    passwordMatches,
    ownedGuildIds: guilds.filter((g) => g.owner_id === userId).map((g) => g._id),
    ownedApplicationIds: (await applicationsOwnedBy(deps.readStore, userId)).map((a) => a._id),
  };
}

/**
 * `userId` leaves these DMs (type 1) for good, as their account's deletion does (DmRecipientLeft); the leaving ends a DM
 * whose other side is gone, and the log's followers destroy its keys and drop its messages and files. That other side
 * counts as gone when the read models know its account deleted, though it was deleted before DMs recorded the leaving.
 * The last position appended (null: none).
 */
export async function leaveDms(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  meta: RequestMeta,
  userId: string,
  dms: DmChannelDoc[],
): Promise<Position | null> {
  const otherOf = (dm: DmChannelDoc) => dm.recipient_ids.find((id) => id !== userId)!;
  const deletedIds = (await usersByIds(deps.readStore, dms.map(otherOf))).filter((user) => user.deleted).map((user) => user._id);
  let last: Position | null = null;
  for (const dm of dms) {
    const command: DmChannelCommand = { type: 'LeaveDm', userId, deletedIds };
    const { position } = await deps.commands.handle(dmPairStream(userId, otherOf(dm)), dmChannelDecider, command, metadata(meta, deps.clock));
    last = lastPosition(last, position);
  }
  return last;
}

/**
 * Deletes the account `meta.actorId` names: refused (nothing appended) for a wrong password or while it owns a guild
 * or an application. `progress` hears each step as it is done.
 */
export async function deleteAccount(deps: DeletionDeps, meta: ActorMeta, proof: DeletionProof, progress: (step: string) => void = () => {}): Promise<void> {
  const userId = meta.actorId;
  const { state } = await deps.commands.load(userStream(userId), userDecider);
  const passwordMatches = await checkPassword(deps, userId, proof);
  userDecider.decide(await erasureCommand(deps, userId, passwordMatches), state);

  const memberships = await membershipsOf(deps.readStore, userId);
  for (const { guild_id } of memberships) await runGuildCommand(deps, meta, guild_id, { type: 'LeaveGuild', userId });
  progress(`left ${memberships.length} guild(s)`);

  // Every DM and group DM is left for good, and the last participant's leaving ends it: its keys are destroyed by the
  // time the erasure below is answered.
  const dms = await dmChannelsOf(deps.readStore, userId);
  for (const dm of dms) if (dm.type === DmChannelType.GROUP_DM) await closeDm(deps, meta, dm._id);
  const pairDms = dms.filter((dm) => dm.type === DmChannelType.DM);
  await leaveDms(deps, meta, userId, pairDms);
  progress(`left ${dms.length} DM(s) and group DM(s)`);

  const grantIds = new Set((await oauth2TokensOfUser(deps.readStore, userId)).map((t) => t.grant_id));
  for (const grantId of grantIds) {
    await deps.commands.handle(oauth2GrantStream(grantId), oauth2GrantDecider, { type: 'RevokeForDeletedAccount' }, metadata(meta, deps.clock));
  }
  progress(`revoked ${grantIds.size} OAuth2 grant(s)`);

  // Released before the erasure, so that a retry still finds the name and address in the account's state to release.
  const { username, discriminator, email } = state;
  await releaseDiscriminator(deps, meta, username, userId, discriminator);
  if (email) await releaseEmail(deps, meta, email, userId);
  progress('released the username and email');

  // Decided again on the stream: anything appended to the account meanwhile (a new guild owned) is checked as well.
  const { position } = await deps.commands.handle(
    userStream(userId),
    userDecider,
    await erasureCommand(deps, userId, passwordMatches),
    metadata(meta, deps.clock),
  );
  // Answered once the account's keys are destroyed: a 2xx means its names and email are gone (docs/privacy.md).
  await settleWithFiles(deps, position);
  progress('erased the account: its sessions and tokens are revoked');
}
