// Command specs of emojis and stickers: what each use case appends, on the guild's expressions stream, with the ids
// and time of the fixed clock; whose guild permissions let them; and that images are stored only with the events
// that name them (a refusal leaves no file, a purge removes it).
import { describe, expect, it } from 'vitest';
import { createEmoji, deleteEmoji, updateEmoji } from '../../commands/emojis.js';
import { createStickers, updateSticker } from '../../commands/stickers.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { EmojiData, StickerData } from '../../domain/guildExpressions.js';
import { Permission } from '../../domain/permissions.js';
import type { Image } from '../../ports/images.js';
import { G, MEMBER_ROLE, ada, bob, cy, guildStream, roleCreated, rolesAdded } from './events.js';
import { EARLIER, type MemoryBlobStore, NEW_IDS, NOW, givenStreams } from './support.js';

const STREAM = `guild-expressions-${G}`;
const image = (over: Partial<Image> = {}): Image => ({
  data: Buffer.from('pixels'),
  format: 'png',
  contentType: 'image/png',
  animated: false,
  hash: 'c'.repeat(32),
  ...over,
});
const emoji = (id: string, over: Partial<EmojiData> = {}): EmojiData => ({
  id,
  name: 'blob',
  roles: [],
  user_id: ada.id,
  animated: false,
  created_at: EARLIER,
  ...over,
});
const expressions = (...events: object[]): [string, never[]] => [STREAM, events as never[]];
const blobsOf = (deps: CommandDeps) => (deps.blobs as MemoryBlobStore).blobs;

/** The guild, with bob given a role that lets him create expressions. */
const withCreator: typeof guildStream = [
  guildStream[0],
  [...guildStream[1], roleCreated('602', 'creators', Permission.CREATE_GUILD_EXPRESSIONS, 3), rolesAdded(bob, { id: '602', name: 'creators' })],
];

describe('createEmoji', () => {
  it('appends EmojiCreated on the guild’s expressions stream with the next id and the clock’s time, and stores the image under it', () =>
    givenStreams(guildStream)
      .when(async (deps) => {
        await createEmoji(deps, { actorId: ada.id }, G, { name: 'blob', image: async () => image(), roles: [MEMBER_ROLE] });
        expect([...blobsOf(deps).keys()]).toEqual([`emojis/${NEW_IDS[0]}`]);
      })
      .then({
        stream: STREAM,
        type: 'EmojiCreated',
        data: { guildId: G, emoji: emoji(NEW_IDS[0], { roles: [MEMBER_ROLE], created_at: NOW }) },
        metadata: { actorId: ada.id, createdAt: NOW },
      }));

  it('takes CREATE_GUILD_EXPRESSIONS from a role', () =>
    givenStreams(withCreator)
      .when((deps) => createEmoji(deps, { actorId: bob.id }, G, { name: 'blob', image: async () => image({ animated: true, hash: `a_${'c'.repeat(32)}` }) }))
      .then({ stream: STREAM, type: 'EmojiCreated', data: { guildId: G, emoji: emoji(NEW_IDS[0], { user_id: bob.id, animated: true, created_at: NOW }) } }));

  it('refuses a member without the permission, an unknown role, and a non-member, storing no image', async () => {
    const refusedWithoutFiles = (actorId: string, roles?: string[]) =>
      givenStreams(guildStream).when(async (deps) => {
        try {
          // The image is not even read for a refused actor.
          await createEmoji(deps, { actorId }, G, { name: 'blob', image: () => Promise.reject(new Error('read')), roles });
        } finally {
          expect(blobsOf(deps).size).toBe(0);
        }
      });
    await refusedWithoutFiles(cy.id).thenRefuses('MISSING_PERMISSIONS');
    await refusedWithoutFiles(ada.id, ['999']).thenRefuses('INVALID_FORM_BODY');
    await refusedWithoutFiles('404').thenRefuses('UNKNOWN_GUILD');
  });

  it('refuses past the limit with MAXIMUM_EMOJIS_REACHED, storing no image', () =>
    givenStreams(
      guildStream,
      expressions(...Array.from({ length: 50 }, (_, i) => ({ type: 'EmojiCreated', data: { guildId: G, emoji: emoji(String(100 + i)) } }))),
    )
      .when(async (deps) => {
        try {
          await createEmoji(deps, { actorId: ada.id }, G, { name: 'blob', image: async () => image() });
        } finally {
          expect(blobsOf(deps).size).toBe(0);
        }
      })
      .thenRefuses('MAXIMUM_EMOJIS_REACHED'));
});

describe('updateEmoji and deleteEmoji', () => {
  it('appends only the changes', () =>
    givenStreams(guildStream, expressions({ type: 'EmojiCreated', data: { guildId: G, emoji: emoji('10') } }))
      .when((deps) => updateEmoji(deps, { actorId: ada.id }, G, '10', { name: 'renamed' }))
      .then({
        stream: STREAM,
        type: 'EmojiUpdated',
        data: { guildId: G, emojiId: '10', changes: [{ key: 'name', old_value: 'blob', new_value: 'renamed' }] },
      }));

  it('deletes the image with purge, once EmojiDeleted is appended', () =>
    givenStreams(guildStream, expressions({ type: 'EmojiCreated', data: { guildId: G, emoji: emoji('10') } }))
      .when(async (deps) => {
        await deps.blobs.put('emojis/10', { data: Buffer.from('x'), contentType: 'image/png' });
        await deleteEmoji(deps, { actorId: ada.id }, G, '10', true);
        expect(await deps.blobs.get('emojis/10')).toBeNull();
      })
      .then({ stream: STREAM, type: 'EmojiDeleted', data: { guildId: G, emoji: emoji('10'), purged: true } }));
});

describe('stickers', () => {
  const sticker = (id: string, over: Partial<StickerData> = {}): StickerData => ({
    id,
    name: 'wave',
    description: '',
    tags: ['hi', 'hello'],
    format: 'png',
    animated: false,
    image_hash: 'c'.repeat(32),
    user_id: ada.id,
    created_at: NOW,
    updated_at: null,
    ...over,
  });

  it('creates several with ids in order and tags split on commas, storing each image', () =>
    givenStreams(guildStream)
      .when(async (deps) => {
        const input = { name: 'wave', description: '', tags: ' hi,hello, ,', image: image() };
        await createStickers(deps, { actorId: ada.id }, G, [input, { ...input, image: image({ format: 'webp', contentType: 'image/webp' }) }]);
        expect([...blobsOf(deps).keys()]).toEqual([`stickers/${NEW_IDS[0]}`, `stickers/${NEW_IDS[1]}`]);
      })
      .then(
        { stream: STREAM, type: 'StickerCreated', data: { guildId: G, sticker: sticker(NEW_IDS[0]) } },
        { stream: STREAM, type: 'StickerCreated', data: { guildId: G, sticker: sticker(NEW_IDS[1], { format: 'webp' }) } },
      ));

  it('replaces the image and stamps updated_at with the clock; a refused change keeps the old image', async () => {
    const created = expressions({ type: 'StickerCreated', data: { guildId: G, sticker: sticker('20', { created_at: EARLIER }) } });
    const old = { data: Buffer.from('old'), contentType: 'image/png' };
    await givenStreams(guildStream, created)
      .when(async (deps) => {
        await deps.blobs.put('stickers/20', old);
        await updateSticker(deps, { actorId: ada.id }, G, '20', {
          image: image({ data: Buffer.from('new'), format: 'webp', contentType: 'image/webp', hash: 'd'.repeat(32) }),
        });
        expect((await deps.blobs.get('stickers/20'))?.data.toString()).toBe('new');
      })
      .then({
        stream: STREAM,
        type: 'StickerUpdated',
        data: {
          guildId: G,
          stickerId: '20',
          changes: [
            { key: 'format', old_value: 'png', new_value: 'webp' },
            { key: 'image_hash', old_value: 'c'.repeat(32), new_value: 'd'.repeat(32) },
            { key: 'updated_at', old_value: null, new_value: NOW },
          ],
        },
      });
    await givenStreams(guildStream, created)
      .when(async (deps) => {
        await deps.blobs.put('stickers/20', old);
        try {
          await updateSticker(deps, { actorId: cy.id }, G, '20', { image: image({ data: Buffer.from('new') }) });
        } finally {
          expect((await deps.blobs.get('stickers/20'))?.data.toString()).toBe('old');
        }
      })
      .thenRefuses('MISSING_PERMISSIONS');
  });
});
