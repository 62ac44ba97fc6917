// DMs and group DMs: opening, recipients, closing and leaving; and the access check every message route uses, which
// answers for DM channels here and hands guild channels to the guild side's channelAccess.
import { type DmChannelCommand, dmChannelDecider, dmPairStream } from '../domain/dmChannel.js';
import { invalidForm, notFound } from '../domain/errors.js';
import { type GroupDmCommand, groupDmDecider } from '../domain/groupDm.js';
import type { GuildState } from '../domain/guildState.js';
import type { MessageUser } from '../domain/message.js';
import { Permission } from '../domain/permissions.js';
import { partialUser } from '../presenters/objects.js';
import type { Doc } from '../ports/readStore.js';
import type { DmChannelDoc } from '../projections/dms.js';
import type { UserDoc } from '../projections/users.js';
import { channelAccess } from './access.js';
import { type CommandDeps, metadata } from './deps.js';
import type { ActorMeta } from './guilds.js';

export const groupDmStream = (channelId: string) => `group-dm-${channelId}`;

/** What participants may do in a DM: take part, but not manage others' messages or mention @everyone. */
export const DM_PERMISSIONS =
  Permission.VIEW_CHANNEL |
  Permission.SEND_MESSAGES |
  Permission.SEND_TTS_MESSAGES |
  Permission.EMBED_LINKS |
  Permission.ATTACH_FILES |
  Permission.READ_MESSAGE_HISTORY |
  Permission.ADD_REACTIONS |
  Permission.USE_EXTERNAL_EMOJIS;

export interface MessageChannelAccess {
  channelId: string;
  guildId: string | null;
  type: number;
  /** The user's permissions in the channel; always includes VIEW_CHANNEL. */
  permissions: bigint;
  /** The guild, for guild channels (roles and channels that mentions name). */
  guild: GuildState | null;
  /** The DM document, for DMs and group DMs. */
  dm: DmChannelDoc | null;
}

const unknownChannel = () => notFound('UNKNOWN_CHANNEL', 'Unknown Channel');
const isDm = (doc: Doc | null): doc is DmChannelDoc => doc !== null && doc.guild_id === null && (doc.type === 1 || doc.type === 3);

/** A channel the user can see (a guild channel, or a DM they take part in); otherwise 404 UNKNOWN_CHANNEL. */
export async function messageChannelAccess(deps: CommandDeps, channelId: string, userId: string): Promise<MessageChannelAccess> {
  const doc = await deps.readStore.findOne('channels', { _id: channelId });
  if (isDm(doc)) {
    if (!doc.recipient_ids.includes(userId)) throw unknownChannel();
    return { channelId, guildId: null, type: doc.type, permissions: DM_PERMISSIONS, guild: null, dm: doc };
  }
  const access = await channelAccess(deps, channelId, userId);
  return { channelId, guildId: access.guildId, type: access.channel.type, permissions: access.permissions, guild: access.guild, dm: null };
}

/** A user as messages and DMs embed them: the API's partial user, as of the event. */
export const toMessageUser = (doc: UserDoc): MessageUser => partialUser(doc);

/** The users with these ids, in the order given; a missing one is a form error at `path`.index. */
async function requireUsers(deps: CommandDeps, ids: readonly string[], path: (i: number) => string): Promise<MessageUser[]> {
  const docs = await deps.readStore.find<UserDoc>('users', { _id: { $in: [...ids] } });
  const errors = ids.flatMap((id, i) => (docs.some((d) => d._id === id) ? [] : [{ path: path(i), message: 'Unknown user' }]));
  if (errors.length) throw invalidForm(errors);
  return ids.map((id) => toMessageUser(docs.find((d) => d._id === id)!));
}

async function dmDoc(deps: CommandDeps, channelId: string): Promise<DmChannelDoc> {
  const doc = await deps.readStore.findOne('channels', { _id: channelId });
  if (!isDm(doc)) throw unknownChannel();
  return doc;
}

/** Opens the DM between the actor and `recipientId`, creating it the first time. */
export async function openDm(deps: CommandDeps, meta: ActorMeta, recipientId: string): Promise<DmChannelDoc> {
  const [opener, recipient] = await requireUsers(deps, [meta.actorId, recipientId], () => 'recipient_id');
  const command: DmChannelCommand = { type: 'OpenDm', channelId: deps.ids.next(), opener, recipient };
  const { state, position } = await deps.commands.handle(dmPairStream(meta.actorId, recipientId), dmChannelDecider, command, metadata(meta));
  await deps.settle(position);
  return dmDoc(deps, state.channelId!);
}

export async function createGroupDm(deps: CommandDeps, meta: ActorMeta, recipientIds: string[]): Promise<DmChannelDoc> {
  const [owner] = await requireUsers(deps, [meta.actorId], () => '_root');
  const recipients = await requireUsers(deps, recipientIds, (i) => `recipients.${i}`);
  const channelId = deps.ids.next();
  const { position } = await deps.commands.handle(groupDmStream(channelId), groupDmDecider, { type: 'CreateGroupDm', channelId, owner, recipients }, metadata(meta));
  await deps.settle(position);
  return dmDoc(deps, channelId);
}

async function runGroupDmCommand(deps: CommandDeps, meta: ActorMeta, channelId: string, command: GroupDmCommand): Promise<void> {
  const doc = await dmDoc(deps, channelId);
  if (doc.type !== 3) throw invalidForm([{ path: '_root', message: 'Only group DMs have recipients and a name to change' }]);
  const { position } = await deps.commands.handle(groupDmStream(channelId), groupDmDecider, command, metadata(meta));
  await deps.settle(position);
}

export async function addRecipient(deps: CommandDeps, meta: ActorMeta, channelId: string, userId: string): Promise<void> {
  await messageChannelAccess(deps, channelId, meta.actorId);
  const [user] = await requireUsers(deps, [userId], () => 'user_id');
  await runGroupDmCommand(deps, meta, channelId, { type: 'AddRecipient', actorId: meta.actorId, user });
}

export async function removeRecipient(deps: CommandDeps, meta: ActorMeta, channelId: string, userId: string): Promise<void> {
  await messageChannelAccess(deps, channelId, meta.actorId);
  await runGroupDmCommand(deps, meta, channelId, { type: 'RemoveRecipient', actorId: meta.actorId, userId });
}

/** Renames a group DM; returns the channel after. */
export async function renameGroupDm(deps: CommandDeps, meta: ActorMeta, channelId: string, name: string | null): Promise<DmChannelDoc> {
  await messageChannelAccess(deps, channelId, meta.actorId);
  await runGroupDmCommand(deps, meta, channelId, { type: 'RenameGroupDm', actorId: meta.actorId, name });
  return dmDoc(deps, channelId);
}

/** DELETE /channels/:id on a DM: closes a DM for the actor, or leaves a group DM. Returns the channel as it was. */
export async function closeDm(deps: CommandDeps, meta: ActorMeta, channelId: string): Promise<DmChannelDoc> {
  const { dm } = await messageChannelAccess(deps, channelId, meta.actorId);
  if (!dm) throw unknownChannel();
  if (dm.type === 3) {
    await runGroupDmCommand(deps, meta, channelId, { type: 'RemoveRecipient', actorId: meta.actorId, userId: meta.actorId });
    return dm;
  }
  const other = dm.recipient_ids.find((id) => id !== meta.actorId)!;
  const { position } = await deps.commands.handle(dmPairStream(meta.actorId, other), dmChannelDecider, { type: 'CloseDm', userId: meta.actorId }, metadata(meta));
  await deps.settle(position);
  return dm;
}

/** The DMs and group DMs the user takes part in and has not closed, newest activity first. */
export async function listDms(deps: CommandDeps, userId: string): Promise<DmChannelDoc[]> {
  const docs = await deps.readStore.find<DmChannelDoc>('channels', { recipient_ids: { $all: [userId] }, guild_id: null });
  const activity = (doc: DmChannelDoc) => doc.last_message_id ?? doc._id;
  return docs.filter((doc) => !doc.closed_by.includes(userId)).sort((a, b) => (activity(a) < activity(b) ? 1 : -1));
}
