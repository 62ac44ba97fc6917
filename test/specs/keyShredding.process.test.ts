// Specs of the key shredder over a real (in-memory) log and key store: given sealed events in the log, when the
// shredder follows them, then the keys the log erased are gone and the others open.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SealingEventStore } from '../../infra/eventStore/sealing.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteKeyStore } from '../../infra/keys/sqlite.js';
import { SecretBox } from '../../infra/secrets.js';
import type { NewEvent } from '../../ports/eventStore.js';
import { KeyShredder } from '../../processes/keyShredding.js';
import { messageFields } from '../support/messageFields.js';

const meta = { actorId: '9', createdAt: '2026-01-01T00:00:00.000Z' };
const ids = { messageId: '1', channelId: '2', guildId: null, authorId: '9' };
const author = { id: '9', username: 'ada', discriminator: '0001', global_name: null, avatar: null, bot: false, public_flags: 0 };
const message = (content: string) => messageFields({ id: '1', channel_id: '2', guild_id: null, author, content, timestamp: meta.createdAt });
const created = (content: string): NewEvent => ({ type: 'MessageCreated', data: { ...ids, message: message(content) }, metadata: meta });
const edited = (content: string): NewEvent => ({
  type: 'MessageEdited',
  data: { ...ids, editorId: '9', changes: { content }, message: message(content), removedAttachments: [] },
  metadata: meta,
});
const deleted: NewEvent = { type: 'MessageDeleted', data: { ...ids, deletedBy: '9', bulk: false, attachments: [] }, metadata: meta };

/** Given the events in the log before the shredder starts (so it reads them in one batch), the events it leaves readable. */
async function readableAfter(events: NewEvent[]) {
  const keys = new SqliteKeyStore(':memory:', SecretBox.fromKey(randomBytes(32)));
  const writer = new SealingEventStore(new SqliteEventStore(':memory:'), keys);
  for (const event of events) await writer.appendToStream('message-1', [event]);
  const shredder = new KeyShredder(writer.sealedLog, keys);
  await shredder.start();
  await shredder.caughtUp();
  await shredder.stop();
  // A reader that sealed none of them, as another process or a restart reads the log.
  const reader = new SealingEventStore(writer.sealedLog, keys);
  const read = await reader.readStream('message-1');
  await writer.close();
  return read;
}

async function contentsAfter(events: NewEvent[]): Promise<unknown[]> {
  return (await readableAfter(events)).map((event) => (event.data as { message?: { content: string } }).message?.content ?? null);
}

describe('key shredder', () => {
  it('an edit erases the version it replaced, and a second edit in the same batch the first edit’s, never its own', async () => {
    expect(await contentsAfter([created('first'), edited('second'), edited('third')])).toEqual(['', '', 'third']);
  });

  it('an edit that drops an attachment erases its name and description with the version it replaced, and keeps the new version’s', async () => {
    const file = (id: string) => ({ id, filename: `${id}.png`, description: `alt ${id}`, content_type: 'image/png', size: 1 });
    const [gone, kept] = [file('6'), file('7')];
    const dropping: NewEvent = {
      type: 'MessageEdited',
      data: { ...ids, editorId: '9', changes: { attachments: [kept] }, message: { ...message('text'), attachments: [kept] }, removedAttachments: [gone] },
      metadata: meta,
    };
    const [, edit] = await readableAfter([{ ...created('text'), data: { ...ids, message: { ...message('text'), attachments: [gone, kept] } } }, dropping]);
    expect(edit.data).toMatchObject({
      message: { content: 'text', attachments: [kept] },
      changes: { attachments: [kept] },
      removedAttachments: [{ ...gone, filename: null, description: null }],
    });
  });

  it('a deletion erases every version', async () => {
    expect(await contentsAfter([created('first'), edited('second'), deleted])).toEqual(['', '', null]);
  });

  it('leaves a message nobody erased whole', async () => {
    expect(await contentsAfter([created('kept')])).toEqual(['kept']);
  });
});

describe('waiting for the key shredder', () => {
  it('answers whether the keys were destroyed in time: false while it is held back, true once it got there', async () => {
    const keys = new SqliteKeyStore(':memory:', SecretBox.fromKey(randomBytes(32)));
    const log = new SealingEventStore(new SqliteEventStore(':memory:'), keys);
    const shredder = new KeyShredder(log.sealedLog, keys);
    await shredder.start();
    try {
      await log.appendToStream('message-1', [created('held')]);
      await shredder.caughtUp();
      // The key store's write is held back, as a slow disk or a busy writer would.
      let letGo!: () => void;
      const held = new Promise<void>((resolve) => (letGo = resolve));
      const apply = keys.apply.bind(keys);
      keys.apply = async (changes, checkpoint) => {
        await held;
        return apply(changes, checkpoint);
      };
      const { position } = await log.appendToStream('message-1', [deleted]);
      expect(await shredder.waitFor(position, 50)).toBe(false);
      letGo();
      expect(await shredder.waitFor(position, 5000)).toBe(true);
      expect(await shredder.waitFor(null, 0)).toBe(true);
    } finally {
      await shredder.stop();
      await log.close();
    }
  });
});
