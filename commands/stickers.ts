// A guild's stickers (its sticker pack): create one or several at once (each image stored under the sticker's id),
// change their name, description, tags or image, delete them (with purge, the image too). Decided on the guild's
// expressions stream, with the actor's standing from the guild.
import { type StickerChanges, type StickerData, type StickerFormat } from '../domain/guildExpressions.js';
import { isoNow } from '../ports/clock.js';
import type { Image } from '../ports/images.js';
import { type ActorMeta, type Uses } from './deps.js';
import { type ExpressionImage, expressionAccess, runExpressionCommand, stickerImageKey } from './expressions.js';

type Deps = Uses<'commands' | 'blobs' | 'clock' | 'settle'>;

export interface StickerInput {
  name: string;
  description: string;
  /** As clients send them: one comma-separated string. */
  tags: string;
  /** A PNG or WebP image, checked by the route. */
  image: Image;
}

/** Tags as stored and answered: the comma-separated parts, trimmed, empty ones left out. */
const tagList = (tags: string) =>
  tags
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);

const imageOf = (id: string, image: Image): ExpressionImage => ({ id, key: stickerImageKey(id), blob: { data: image.data, contentType: image.contentType } });
const imageFields = (image: Image) => ({ format: image.format as StickerFormat, animated: image.animated, image_hash: image.hash });

/**
 * Creates the stickers in order, as many as the guild has room for; answers the created ones (those left out had no
 * room). A guild with no room at all refuses with MAXIMUM_STICKERS_REACHED.
 */
export async function createStickers(deps: Deps & Uses<'ids'>, meta: ActorMeta, guildId: string, inputs: StickerInput[]): Promise<StickerData[]> {
  const { actor } = await expressionAccess(deps, guildId, meta.actorId);
  const createdAt = isoNow(deps.clock);
  const stickers: StickerData[] = inputs.map((input) => ({
    id: deps.ids.next(),
    name: input.name,
    description: input.description,
    tags: tagList(input.tags),
    ...imageFields(input.image),
    user_id: meta.actorId,
    created_at: createdAt,
    updated_at: null,
  }));
  const { events } = await runExpressionCommand(
    deps,
    meta,
    guildId,
    { type: 'CreateStickers', guildId, actor, stickers },
    stickers.map((sticker, i) => imageOf(sticker.id, inputs[i].image)),
  );
  return events.flatMap((event) => (event.type === 'StickerCreated' ? [event.data.sticker] : []));
}

/** Only the fields given change; a new image replaces the stored one. */
export async function updateSticker(
  deps: Deps,
  meta: ActorMeta,
  guildId: string,
  stickerId: string,
  input: Partial<Omit<StickerInput, 'image'>> & { image?: Image },
): Promise<StickerData> {
  const { actor } = await expressionAccess(deps, guildId, meta.actorId);
  const changes: StickerChanges = {
    name: input.name,
    description: input.description,
    tags: input.tags === undefined ? undefined : tagList(input.tags),
    ...(input.image ? imageFields(input.image) : {}),
  };
  const command = { type: 'UpdateSticker', guildId, actor, stickerId, changes, updatedAt: isoNow(deps.clock) } as const;
  const { state } = await runExpressionCommand(deps, meta, guildId, command, input.image ? [imageOf(stickerId, input.image)] : []);
  return state.stickers.get(stickerId)!;
}

/** `purge` also deletes the stored image, once the deletion is in the log. */
export async function deleteSticker(deps: Deps, meta: ActorMeta, guildId: string, stickerId: string, purge: boolean): Promise<void> {
  const { actor } = await expressionAccess(deps, guildId, meta.actorId);
  await runExpressionCommand(deps, meta, guildId, { type: 'DeleteSticker', guildId, actor, stickerId, purge });
  if (purge) await deps.blobs.delete(stickerImageKey(stickerId));
}
