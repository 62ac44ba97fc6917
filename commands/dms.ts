// DMs and group DMs: opening, recipients, closing and leaving. Who may use a DM channel is checked in access.ts.
import { type DmChannelCommand, cannotSendMessagesToUser, dmChannelDecider, dmPairStream } from '../domain/dmChannel.js';
import { type DomainError, invalidForm } from '../domain/errors.js';
import { type GroupDmCommand, groupDmDecider } from '../domain/groupDm.js';
import { unknownChannel } from '../domain/guildState.js';
import type { MessageUser } from '../domain/message.js';
import { partialUser } from '../presenters/users.js';
import type { Position } from '../ports/eventStore.js';
import type { DmChannelDoc } from '../projections/dms.js';
import type { UserDoc } from '../projections/users.js';
import { anyChannelById } from '../projections/channels.queries.js';
import { dmChannelsOf } from '../projections/dms.queries.js';
import { usersByIds } from '../projections/users.queries.js';
import { isDm, messageChannelAccess } from './access.js';
import { type ActorMeta, type Uses, metadata, settleWithFiles } from './deps.js';
import { groupDmStream } from './streams.js';

/** A user as messages and DMs embed them: the API's partial user, as of the event. */
export const toMessageUser = (doc: UserDoc): MessageUser => partialUser(doc);

/**
 * The users with these ids, in the order given; a missing (or deleted) one is a form error at `path`.index, unless
 * `ifDeleted` refuses a deleted one with its own error.
 */
async function requireUsers(
  deps: Uses<'readStore'>,
  ids: readonly string[],
  path: (i: number) => string,
  ifDeleted?: () => DomainError,
): Promise<MessageUser[]> {
  const found = await usersByIds(deps.readStore, [...ids]);
  if (ifDeleted && found.some((doc) => doc.deleted)) throw ifDeleted();
  const docs = found.filter((doc) => !doc.deleted);
  const errors = ids.flatMap((id, i) => (docs.some((d) => d._id === id) ? [] : [{ path: path(i), message: 'Unknown user' }]));
  if (errors.length) throw invalidForm(errors);
  return ids.map((id) => toMessageUser(docs.find((d) => d._id === id)!));
}

async function dmDoc(deps: Uses<'readStore'>, channelId: string): Promise<DmChannelDoc> {
  const doc = await anyChannelById(deps.readStore, channelId);
  if (!isDm(doc)) throw unknownChannel();
  return doc;
}

/** Opens the DM between the actor and `recipientId`, creating it the first time; a deleted account takes none. */
export async function openDm(deps: Uses<'commands' | 'readStore' | 'ids' | 'clock' | 'settle'>, meta: ActorMeta, recipientId: string): Promise<DmChannelDoc> {
  const [opener, recipient] = await requireUsers(deps, [meta.actorId, recipientId], () => 'recipient_id', cannotSendMessagesToUser);
  const command: DmChannelCommand = { type: 'OpenDm', channelId: deps.ids.next(), opener, recipient };
  const { state, position } = await deps.commands.handle(dmPairStream(meta.actorId, recipientId), dmChannelDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  return dmDoc(deps, state.channelId!);
}

export async function createGroupDm(
  deps: Uses<'commands' | 'readStore' | 'ids' | 'clock' | 'settle'>,
  meta: ActorMeta,
  recipientIds: string[],
): Promise<DmChannelDoc> {
  const [owner] = await requireUsers(deps, [meta.actorId], () => '_root');
  const recipients = await requireUsers(deps, recipientIds, (i) => `recipients.${i}`);
  const channelId = deps.ids.next();
  const { position } = await deps.commands.handle(
    groupDmStream(channelId),
    groupDmDecider,
    { type: 'CreateGroupDm', channelId, owner, recipients },
    metadata(meta, deps.clock),
  );
  await deps.settle(position);
  return dmDoc(deps, channelId);
}

/** Ports of a removal: the last participant's ends the group DM, which is answered once its keys are destroyed. */
type RemovalDeps = Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'>;

/** Where the command's events landed, for the caller to settle: a removal may erase, the rest do not. */
async function runGroupDmCommand(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  meta: ActorMeta,
  channelId: string,
  command: GroupDmCommand,
): Promise<Position | null> {
  const doc = await dmDoc(deps, channelId);
  if (doc.type !== 3) throw invalidForm([{ path: '_root', message: 'Only group DMs have recipients and a name to change' }]);
  const { position } = await deps.commands.handle(groupDmStream(channelId), groupDmDecider, command, metadata(meta, deps.clock));
  return position;
}

export async function addRecipient(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  userId: string,
): Promise<void> {
  await messageChannelAccess(deps, channelId, meta.actorId);
  const [user] = await requireUsers(deps, [userId], () => 'user_id');
  await deps.settle(await runGroupDmCommand(deps, meta, channelId, { type: 'AddRecipient', actorId: meta.actorId, user }));
}

export async function removeRecipient(deps: RemovalDeps, meta: ActorMeta, channelId: string, userId: string): Promise<void> {
  await messageChannelAccess(deps, channelId, meta.actorId);
  await settleWithFiles(deps, await runGroupDmCommand(deps, meta, channelId, { type: 'RemoveRecipient', actorId: meta.actorId, userId }));
}

/** Renames a group DM; returns the channel after. */
export async function renameGroupDm(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  name: string | null,
): Promise<DmChannelDoc> {
  await messageChannelAccess(deps, channelId, meta.actorId);
  await deps.settle(await runGroupDmCommand(deps, meta, channelId, { type: 'RenameGroupDm', actorId: meta.actorId, name }));
  return dmDoc(deps, channelId);
}

/** DELETE /channels/:id on a DM: closes a DM for the actor, or leaves a group DM. Returns the channel as it was. */
export async function closeDm(deps: RemovalDeps, meta: ActorMeta, channelId: string): Promise<DmChannelDoc> {
  const { dm } = await messageChannelAccess(deps, channelId, meta.actorId);
  if (!dm) throw unknownChannel();
  if (dm.type === 3) {
    await settleWithFiles(deps, await runGroupDmCommand(deps, meta, channelId, { type: 'RemoveRecipient', actorId: meta.actorId, userId: meta.actorId }));
    return dm;
  }
  const other = dm.recipient_ids.find((id) => id !== meta.actorId)!;
  const { position } = await deps.commands.handle(
    dmPairStream(meta.actorId, other),
    dmChannelDecider,
    { type: 'CloseDm', userId: meta.actorId },
    metadata(meta, deps.clock),
  );
  await deps.settle(position);
  return dm;
}

/** The DMs and group DMs the user takes part in and has not closed, newest activity first. */
export async function listDms(deps: Uses<'readStore'>, userId: string): Promise<DmChannelDoc[]> {
  const docs = await dmChannelsOf(deps.readStore, userId);
  const activity = (doc: DmChannelDoc) => doc.last_message_id ?? doc._id;
  return docs.filter((doc) => !doc.closed_by.includes(userId)).sort((a, b) => (activity(a) < activity(b) ? 1 : -1));
}

/** A DM or group DM the reader takes part in (404 otherwise). The channel routes pass only DMs' ids on here. */
export async function readDm(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string, readerId: string): Promise<DmChannelDoc> {
  return (await messageChannelAccess(deps, channelId, readerId)).dm!;
}
