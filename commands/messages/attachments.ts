// Attachments of sends and edits: files become attachments (images measured by the edge), stored in the blob store
// before the event that names them, and taken back if it is not appended. The events that drop them (a deletion, an
// edit, the channel's or the guild's deletion) are followed by processes/attachmentRemoval.ts, which removes them.
import { invalidForm } from '../../domain/errors.js';
import type { Attachment } from '../../domain/message.js';
import type { Uses } from '../deps.js';
import type { AttachmentEntry, UploadedFile } from './input.js';
import { loadMessage } from './state.js';

/** The folder of a channel's files: removed whole when the channel goes. */
export const channelAttachmentsFolder = (channelId: string) => `attachments/${channelId}`;
/** Where an attachment's file lies: its folder holds that one file. */
export const attachmentFolder = (channelId: string, attachment: Pick<Attachment, 'id'>) => `${channelAttachmentsFolder(channelId)}/${attachment.id}`;
export const attachmentKey = (channelId: string, attachment: Pick<Attachment, 'id' | 'filename'>) =>
  `${attachmentFolder(channelId, attachment)}/${attachment.filename}`;

/** Sanitized for storage keys and URLs: letters, digits, dot, dash and underscore, as the widely used API does. */
function safeFilename(name: string): string {
  const base = name
    .split(/[\\/]/)
    .pop()!
    .replace(/\s+/g, '_')
    .replace(/[^\w.-]/g, '');
  return (base.replace(/^\.+$/, '') || 'file').slice(0, 128);
}

/** A new attachment: images are recognized by their bytes (and measured); other files keep their declared type. */
function attachmentOf(deps: Uses<'ids'>, file: UploadedFile, entry: AttachmentEntry | undefined): Attachment {
  const attachment: Attachment = {
    id: deps.ids.next(),
    filename: safeFilename(entry?.filename ?? file.filename),
    content_type: file.contentType || 'application/octet-stream',
    size: file.data.length,
  };
  if (entry?.description) attachment.description = entry.description;
  // Measured from its header alone (http/multipart.ts): an image too large to render is still a file to keep.
  const { image } = file;
  if (image) Object.assign(attachment, { content_type: image.contentType, width: image.width, height: image.height });
  return attachment;
}

/**
 * The attachments of a send or edit. Each file becomes a new attachment, described by the entry whose id is its index.
 * `listed` follows the entries (an edit's entries may also name existing attachments by id), then the files no entry
 * names; `added` are the new attachments, `uploads` pairs them with their files.
 */
export function resolveAttachments(deps: Uses<'ids'>, entries: AttachmentEntry[] | undefined, files: UploadedFile[], existing: readonly Attachment[]) {
  const errors = files.flatMap((file, i) =>
    files.findIndex((f) => f.index === file.index) !== i ? [{ path: `files[${file.index}]`, message: 'Duplicate file index' }] : [],
  );
  const uploads = new Map<UploadedFile, Attachment>();
  for (const file of files)
    uploads.set(
      file,
      attachmentOf(
        deps,
        file,
        entries?.find((e) => String(e.id) === String(file.index)),
      ),
    );
  const listed: (string | Attachment)[] = [];
  (entries ?? []).forEach((entry, i) => {
    const id = String(entry.id);
    const file = files.find((f) => String(f.index) === id);
    if (existing.some((a) => a.id === id)) listed.push(id);
    else if (file) listed.push(uploads.get(file)!);
    else errors.push({ path: `attachments.${i}.id`, message: 'No file or attachment has this id' });
  });
  if (errors.length) throw invalidForm(errors);
  const added = [...uploads.values()];
  return { listed: [...listed, ...added.filter((attachment) => !listed.includes(attachment))], added, uploads };
}

/**
 * Stores the uploads, then runs `append`, the append of the event that lists them. When it fails (the message was
 * deleted meanwhile, the write conflicted), no event names the files and nothing would ever remove them: they are
 * taken back, unless the message lists them after all (an append that landed but whose answer was lost).
 */
export async function appendWithFiles<T>(
  deps: Uses<'blobs' | 'commands'>,
  channelId: string,
  messageId: string,
  uploads: ReadonlyMap<UploadedFile, Attachment>,
  append: () => Promise<T>,
): Promise<T> {
  await Promise.all(
    [...uploads].map(([file, attachment]) => deps.blobs.put(attachmentKey(channelId, attachment), { data: file.data, contentType: attachment.content_type })),
  );
  try {
    return await append();
  } catch (error) {
    const state = await loadMessage(deps, messageId);
    const listed = state.status === 'active' ? state.message!.attachments : [];
    const unlisted = [...uploads.values()].filter((attachment) => !listed.some((a) => a.id === attachment.id));
    await Promise.all(unlisted.map((attachment) => deps.blobs.delete(attachmentKey(channelId, attachment))));
    throw error;
  }
}
