// A guild's channels: read as far as the reader can see them; created, moved, changed and deleted, and their permission
// overwrites set and deleted, by commands on the guild's stream, checked by its decider (domain/channel.ts).
import type { ChannelFields, ChannelMove, OverwriteInput } from '../domain/channel.js';
import { type ForumTag, type ForumTagInput, withTagIds } from '../domain/forum.js';
import { unknownChannel } from '../domain/guildState.js';
import type { ChannelDoc } from '../projections/channels.js';
import { channelById, channelsOfGuild } from '../projections/channels.queries.js';
import { canViewChannel, channelAccess, guildAccess } from './access.js';
import type { ActorMeta, Uses } from './deps.js';
import { guildEmojiIds } from './emojis.js';
import { commitGuildCommand, decideGuildCommand, runGuildCommand } from './guilds.js';
import { channelSendsGate, exclusive } from './queue.js';
import { deleteThreadsWithParent } from './threads.js';

/** The guild's channels by position, those the reader can see (VIEW_CHANNEL, overwrites applied); 404 to outsiders. */
export async function readChannels(deps: Uses<'commands' | 'readStore' | 'clock'>, guildId: string, readerId: string): Promise<ChannelDoc[]> {
  const { guild } = await guildAccess(deps, guildId, readerId);
  const docs = await channelsOfGuild(deps.readStore, guildId);
  return docs.filter((doc) => canViewChannel(guild, readerId, doc._id));
}

/** The channel as the read model shows it, whoever asks: what a write on it answers. */
export async function channelDocOf(deps: Uses<'readStore'>, channelId: string): Promise<ChannelDoc> {
  const doc = await channelById(deps.readStore, channelId);
  if (!doc) throw unknownChannel();
  return doc;
}

/** A guild channel the reader can see (404 otherwise). */
export async function readChannel(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string, readerId: string): Promise<ChannelDoc> {
  await channelAccess(deps, channelId, readerId);
  return channelDocOf(deps, channelId);
}

/** A channel's fields as a request gives them: a forum's tags by the ids they had, if any. */
export type ChannelInput = Omit<ChannelFields, 'available_tags'> & { available_tags?: readonly ForumTagInput[] };

/** The fields with each forum tag's id: one of the channel's `current` tags, or minted. */
function withTags(deps: Uses<'ids'>, input: ChannelInput, current: readonly ForumTag[]): ChannelFields {
  const { available_tags: tags, ...fields } = input;
  // Absent when not given: a key set to undefined would hide a new channel's default.
  return tags ? { ...input, available_tags: withTagIds(tags, current, () => deps.ids.next()) } : fields;
}

/** Needs MANAGE_CHANNELS; overwrites may not grant permissions the actor lacks. Answers the new channel's id. */
export async function createChannel(
  deps: Uses<'commands' | 'ids' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  input: ChannelInput & { name: string; type: number },
): Promise<string> {
  const channelId = deps.ids.next();
  const fields = { ...withTags(deps, input, []), name: input.name, type: input.type };
  const emojiIds = await guildEmojiIds(deps, guildId);
  await runGuildCommand(deps, meta, guildId, { type: 'CreateChannel', actorId: meta.actorId, channelId, fields, emojiIds });
  return channelId;
}

export async function moveChannels(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, guildId: string, moves: ChannelMove[]): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'MoveChannels', actorId: meta.actorId, moves });
}

/** A guild channel's fields, by MANAGE_CHANNELS holders who can see it (404 for others). */
export async function updateChannel(
  deps: Uses<'commands' | 'readStore' | 'ids' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  input: ChannelInput,
): Promise<void> {
  const { guildId, channel } = await channelAccess(deps, channelId, meta.actorId);
  const fields = withTags(deps, input, channel.available_tags ?? []);
  const emojiIds = await guildEmojiIds(deps, guildId);
  await runGuildCommand(deps, meta, guildId, { type: 'UpdateChannel', actorId: meta.actorId, channelId, fields, emojiIds });
}

/** For a role (type 0) or a member (type 1); needs MANAGE_ROLES and may not grant permissions the actor lacks. */
export async function setChannelOverwrite(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  overwrite: OverwriteInput,
): Promise<void> {
  const { guildId } = await channelAccess(deps, channelId, meta.actorId);
  await runGuildCommand(deps, meta, guildId, { type: 'SetChannelOverwrite', actorId: meta.actorId, channelId, overwrite });
}

export async function deleteChannelOverwrite(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  overwriteId: string,
): Promise<void> {
  const { guildId } = await channelAccess(deps, channelId, meta.actorId);
  await runGuildCommand(deps, meta, guildId, { type: 'DeleteChannelOverwrite', actorId: meta.actorId, channelId, overwriteId });
}

/**
 * A channel's deletion waits for the sends under way in it, and holds back new ones until it is appended; its files
 * leave the blob store before the answer (the attachment remover follows ChannelDeleted). Its threads go first, once
 * the deletion is known to be allowed, so that no thread outlives its parent with its messages readable. The guild is
 * loaded once: the decision that allowed the threads' deletion is the one appended, unless the guild changed meanwhile
 * (then it is decided again, and may still be refused).
 */
export async function deleteChannel(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'>,
  meta: ActorMeta,
  guildId: string,
  channelId: string,
) {
  const command = { type: 'DeleteChannel', actorId: meta.actorId, channelId } as const;
  const decision = await decideGuildCommand(deps, guildId, command);
  const { position } = await exclusive(channelSendsGate(channelId), async () => {
    // Under the gate that threads are opened under (commands/threads.ts): none can be opened after these are found.
    await deleteThreadsWithParent(deps, meta, channelId);
    // Settled here, so that read models show the deletion before the sends held back run.
    return commitGuildCommand(deps, meta, decision);
  });
  await deps.settleFiles(position);
}
