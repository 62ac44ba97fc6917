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

/** Where each send's or edit's uploads are noted, from before its files are stored until its event is appended. */
export const UPLOADS_FOLDER = 'attachment-uploads';

/** A note of uploads under way: ids only (a filename is personal data), named by the first attachment's id. */
export interface UploadNote {
  channelId: string;
  messageId: string;
  attachmentIds: string[];
}

const noteFolder = (noteId: string) => `${UPLOADS_FOLDER}/${noteId}`;
const noteKey = (noteId: string) => `${noteFolder(noteId)}/note.json`;

/** Notes uploads about to be stored, durably, before any of their files is; answers the note's id. */
export async function noteUploads(deps: Uses<'blobs'>, note: UploadNote): Promise<string> {
  const noteId = note.attachmentIds[0];
  await deps.blobs.put(noteKey(noteId), { data: Buffer.from(JSON.stringify(note)), contentType: 'application/json' });
  return noteId;
}

/** The note, or null for one whose own put was cut short (then none of its files was stored). */
export async function readUploadNote(deps: Uses<'blobs'>, noteId: string): Promise<UploadNote | null> {
  const blob = await deps.blobs.get(noteKey(noteId));
  return blob && (JSON.parse(blob.data.toString()) as UploadNote);
}

/**
 * Removes the files of a note that its message does not list (the log has the last word: an append that landed but
 * whose answer was lost keeps its files), then the note.
 */
export async function takeBackUnlisted(deps: Uses<'blobs' | 'commands'>, noteId: string, note: UploadNote | null): Promise<void> {
  if (note) {
    const state = await loadMessage(deps, note.messageId);
    const listed = state.status === 'active' ? state.message!.attachments : [];
    const unlisted = note.attachmentIds.filter((id) => !listed.some((a) => a.id === id));
    await Promise.all(unlisted.map((id) => deps.blobs.deleteUnder(attachmentFolder(note.channelId, { id }))));
  }
  await deps.blobs.deleteUnder(noteFolder(noteId));
}

/**
 * Stores the uploads, then runs `append`, the append of the event that lists them. When it fails (the message was
 * deleted meanwhile, the write conflicted), no event names the files and nothing would ever remove them: they are
 * taken back, unless the message lists them after all (an append that landed but whose answer was lost). A note
 * stored before the files and removed after covers a crash in between: the attachment remover takes back the files
 * of a note older than its grace (processes/attachmentRemoval.ts).
 */
export async function appendWithFiles<T>(
  deps: Uses<'blobs' | 'commands'>,
  channelId: string,
  messageId: string,
  uploads: ReadonlyMap<UploadedFile, Attachment>,
  append: () => Promise<T>,
): Promise<T> {
  if (uploads.size === 0) return append();
  const note: UploadNote = { channelId, messageId, attachmentIds: [...uploads.values()].map((attachment) => attachment.id) };
  const noteId = await noteUploads(deps, note);
  let appended: T;
  try {
    await Promise.all(
      [...uploads].map(([file, attachment]) => deps.blobs.put(attachmentKey(channelId, attachment), { data: file.data, contentType: attachment.content_type })),
    );
    appended = await append();
  } catch (error) {
    await takeBackUnlisted(deps, noteId, note);
    throw error;
  }
  await deps.blobs.deleteUnder(noteFolder(noteId));
  return appended;
}
