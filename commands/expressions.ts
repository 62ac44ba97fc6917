// What the emoji and sticker use cases share: the actor's standing in the guild, the decision on the guild's
// expressions stream, and their images, which are stored only once the decision is known to pass and removed again
// when the append does not happen, so a refused request leaves no file behind.
import type { GuildState } from '../domain/guildState.js';
import {
  type ExpressionActor,
  type GuildExpressionCommand,
  type GuildExpressionEvent,
  expressionActor,
  guildExpressionsDecider,
} from '../domain/guildExpressions.js';
import { invalidForm } from '../domain/errors.js';
import type { Blob } from '../ports/blobs.js';
import { guildAccess } from './access.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { guildExpressionsStream } from './streams.js';

/** Where an emoji's image is stored; it never changes, so its CDN answers may be cached for long. */
export const emojiImageKey = (emojiId: string) => `emojis/${emojiId}`;
/** Where a sticker's image is stored; PATCH may replace it. */
export const stickerImageKey = (stickerId: string) => `stickers/${stickerId}`;

/** The guild (UNKNOWN_GUILD unless the actor is a member) and what the actor may do with its expressions. */
export async function expressionAccess(
  deps: Uses<'commands' | 'clock'>,
  guildId: string,
  actorId: string,
): Promise<{ guild: GuildState; actor: ExpressionActor }> {
  const { guild, permissions } = await guildAccess(deps, guildId, actorId);
  return { guild, actor: expressionActor(actorId, permissions) };
}

/** Refuses role ids that are not roles of the guild, each at its place in `path`. */
export function requireGuildRoles(guild: GuildState, roles: readonly string[] | undefined, path: string): void {
  const errors = (roles ?? []).flatMap((id, i) => (guild.roles.has(id) ? [] : [{ path: `${path}.${i}`, message: 'Unknown role' }]));
  if (errors.length) throw invalidForm(errors);
}

/** An image to store for the expression `id`, should the command's events name it. */
export interface ExpressionImage {
  id: string;
  key: string;
  blob: Blob;
}

/** The emoji or sticker an event is about. */
const idOf = ({ data }: GuildExpressionEvent): string => {
  if ('emoji' in data) return data.emoji.id;
  if ('sticker' in data) return data.sticker.id;
  return 'emojiId' in data ? data.emojiId : data.stickerId;
};

/**
 * Decides a command on the guild's expressions and appends its events, after this process's earlier commands on the
 * stream. With images: the command is decided first on the current state (a refusal stores nothing), the images its
 * events name are stored, and those the appended events do not name (a concurrent command took the last places, or
 * refused it) are taken back: deleted, or the image they replaced put back.
 */
export async function runExpressionCommand(
  deps: Uses<'commands' | 'blobs' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  command: GuildExpressionCommand,
  images: ExpressionImage[] = [],
) {
  const stream = guildExpressionsStream(guildId);
  // What each stored image replaced (a sticker's new image replaces its old one), to put back if it is not used.
  const replaced = new Map<ExpressionImage, Blob | null>();
  if (images.length) {
    const { state } = await deps.commands.load(stream, guildExpressionsDecider);
    const named = new Set(guildExpressionsDecider.decide(command, state).map(idOf));
    for (const image of images.filter((candidate) => named.has(candidate.id))) {
      replaced.set(image, await deps.blobs.get(image.key));
      await deps.blobs.put(image.key, image.blob);
    }
  }
  let appended = new Set<string>();
  try {
    const handled = await deps.commands.handle(stream, guildExpressionsDecider, command, metadata(meta, deps.clock));
    appended = new Set(handled.events.map(idOf));
    await deps.settle(handled.position);
    return handled;
  } finally {
    for (const [image, previous] of replaced) {
      if (appended.has(image.id)) continue;
      if (previous) await deps.blobs.put(image.key, previous);
      else await deps.blobs.delete(image.key);
    }
  }
}
