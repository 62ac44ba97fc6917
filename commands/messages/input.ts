// What a send or an edit carries, as the HTTP and webhook edges hand it to the message use cases.
import type { AllowedMentions } from '../../domain/mentions.js';
import type { Embed } from '../../domain/embeds.js';
import type { ImageInfo } from '../../ports/images.js';

/** Who sends: a user (a person's session or a bot), as authenticated. */
export interface Sender {
  userId: string;
  bot: boolean;
}

/** A file of a multipart send or edit. */
export interface UploadedFile {
  /** n of the part files[n]; the attachments entry with id n describes this file. */
  index: number;
  filename: string;
  contentType: string;
  data: Buffer;
  /** What the file's header says when it is a PNG, JPEG, WebP or GIF image: read by the edge through the images port. */
  image?: ImageInfo;
}

/** An attachments entry of a send or edit: `id` is a file's index for a new upload, or an existing attachment's id. */
export interface AttachmentEntry {
  id: string | number;
  filename?: string | null;
  description?: string | null;
}

export interface MessageInput {
  content?: string;
  tts?: boolean;
  embeds?: Embed[];
  components?: unknown[];
  flags?: number;
  allowed_mentions?: AllowedMentions;
  attachments?: AttachmentEntry[];
}

export interface SendInput extends MessageInput {
  nonce?: string | number;
  message_reference?: { message_id: string; channel_id?: string; guild_id?: string; fail_if_not_exists?: boolean };
}
