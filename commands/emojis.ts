// A guild's custom emojis: create (the image stored under the emoji's id), rename or restrict to roles, delete (and
// with purge, the image too). Decided on the guild's expressions stream, with the actor's standing from the guild.
import { missingPermissions } from '../domain/errors.js';
import { type EmojiData, guildExpressionsDecider } from '../domain/guildExpressions.js';
import { isoNow } from '../ports/clock.js';
import type { Image } from '../ports/images.js';
import { type ActorMeta, type Uses } from './deps.js';
import { emojiImageKey, expressionAccess, requireGuildRoles, runExpressionCommand } from './expressions.js';
import { guildExpressionsStream } from './streams.js';

type Deps = Uses<'commands' | 'blobs' | 'clock' | 'settle'>;

/** The ids of the guild's custom emojis, as its expressions stream has them: what a forum's tags may name (domain/forum.ts). */
export async function guildEmojiIds(deps: Uses<'commands'>, guildId: string): Promise<ReadonlySet<string>> {
  const { state } = await deps.commands.load(guildExpressionsStream(guildId), guildExpressionsDecider);
  return new Set(state.emojis.keys());
}

/**
 * `image` reads the image (a data URI decoded, or a URL fetched) only once the actor is known to be allowed to create
 * emojis, so nobody else can make the service fetch anything.
 */
export async function createEmoji(
  deps: Deps & Uses<'ids'>,
  meta: ActorMeta,
  guildId: string,
  input: { name: string; image: () => Promise<Image>; roles?: string[] },
): Promise<EmojiData> {
  const { guild, actor } = await expressionAccess(deps, guildId, meta.actorId);
  if (!actor.create) throw missingPermissions();
  requireGuildRoles(guild, input.roles, 'roles');
  const read = await input.image();
  const emoji: EmojiData = {
    id: deps.ids.next(),
    name: input.name,
    roles: [...new Set(input.roles ?? [])],
    user_id: meta.actorId,
    animated: read.animated,
    created_at: isoNow(deps.clock),
  };
  const image = { id: emoji.id, key: emojiImageKey(emoji.id), blob: { data: read.data, contentType: read.contentType } };
  await runExpressionCommand(deps, meta, guildId, { type: 'CreateEmoji', guildId, actor, emoji }, [image]);
  return emoji;
}

/** Only the fields given change. */
export async function updateEmoji(
  deps: Deps,
  meta: ActorMeta,
  guildId: string,
  emojiId: string,
  input: { name?: string; roles?: string[] },
): Promise<EmojiData> {
  const { guild, actor } = await expressionAccess(deps, guildId, meta.actorId);
  requireGuildRoles(guild, input.roles, 'roles');
  const { state } = await runExpressionCommand(deps, meta, guildId, { type: 'UpdateEmoji', guildId, actor, emojiId, ...input });
  return state.emojis.get(emojiId)!;
}

/** `purge` also deletes the stored image, once the deletion is in the log. */
export async function deleteEmoji(deps: Deps, meta: ActorMeta, guildId: string, emojiId: string, purge: boolean): Promise<void> {
  const { actor } = await expressionAccess(deps, guildId, meta.actorId);
  await runExpressionCommand(deps, meta, guildId, { type: 'DeleteEmoji', guildId, actor, emojiId, purge });
  if (purge) await deps.blobs.delete(emojiImageKey(emojiId));
}
