// Multipart message bodies as the widely used API sends them: a `payload_json` part holding the JSON body, and file
// parts `files[0]`, `files[1]`, … (any other file part name counts in arrival order). At most 10 files of 25 MiB each:
// a larger file answers 413 FILE_TOO_LARGE, an 11th file 400 TOO_MANY_ATTACHMENTS; either only after the whole
// request is read (what is past a limit is discarded, not kept), so the client sees the answer instead of a reset
// connection. The whole body is capped at what the limits allow: past that the request is cut off with a 413.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable, finished } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import type { Context } from 'koa';
import type { UploadedFile } from '../commands/messages/input.js';
import { DomainError, badRequest } from '../domain/errors.js';
import { MAX_ATTACHMENTS } from '../domain/message.js';
import type { Images } from '../ports/images.js';
import { parseJsonText } from './body.js';

export const MAX_FILE_BYTES = 25 * 1024 * 1024;

export interface MessageBody {
  /** The JSON body (payload_json of a multipart request). */
  payload: unknown;
  files: UploadedFile[];
}

export const isMultipart = (ctx: Context) => ctx.request.type === 'multipart/form-data';

/** The body of a message send or edit, JSON or multipart; each file's image header is read through the images port. */
export async function readMessageBody(ctx: Context, jsonLimit: number, images: Pick<Images, 'probe'>): Promise<MessageBody> {
  if (!isMultipart(ctx)) return { payload: ctx.request.body, files: [] };
  return probed(await parseMultipart(requestSource(ctx), jsonLimit), images);
}

/**
 * A message body received whole rather than as a request (an interactions endpoint's answer): JSON, or multipart with
 * payload_json and files, read with the same rules as a request's.
 */
export async function messageBodyOf(contentType: string | null, data: Buffer, jsonLimit: number, images: Pick<Images, 'probe'>): Promise<MessageBody> {
  if (!contentType?.startsWith('multipart/form-data')) return { payload: parseJsonText(data.toString('utf8'), 'The body'), files: [] };
  const source = { headers: { 'content-type': contentType }, stream: Readable.from([data]), length: data.length, cutOff: () => {} };
  return probed(await parseMultipart(source, jsonLimit), images);
}

/** Each file's image header read: an image too large to render is still a file to keep (the CDN refuses to resize it). */
async function probed(body: MessageBody, images: Pick<Images, 'probe'>): Promise<MessageBody> {
  for (const file of body.files) file.image = await images.probe(file.data);
  return body;
}

/** Where a multipart body comes from: a request, or bytes already received. */
interface MultipartSource {
  headers: IncomingHttpHeaders;
  stream: Readable;
  /** The declared length, if any. */
  length: number | undefined;
  /** Ends the connection after the answer (a body cut off at the cap is not read on). */
  cutOff(): void;
}

const requestSource = (ctx: Context): MultipartSource => ({
  headers: ctx.req.headers,
  stream: ctx.req,
  length: ctx.request.length,
  cutOff: () => ctx.set('Connection', 'close'),
});

/** A form of plain fields and files, as the widely used API's clients send uploads other than messages (stickers). */
export interface FormBody {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/** A multipart form's text fields and files, within the limits of message bodies. */
export async function readFormBody(ctx: Context, jsonLimit: number): Promise<FormBody> {
  const { fields, files } = await parseMultipart(requestSource(ctx), jsonLimit);
  return { fields, files };
}

/** Every file at its limit, payload_json at its limit, and room for the parts' headers and the other fields. */
export const maxMultipartBytes = (jsonLimit: number) => MAX_ATTACHMENTS * MAX_FILE_BYTES + 2 * jsonLimit + 1024 * 1024;

const bodyTooLarge = () => new DomainError('too_large', 'REQUEST_ENTITY_TOO_LARGE', 'The request body is too large');

const unreadable = () => badRequest('INVALID_MULTIPART', 'The multipart body could not be read');

/**
 * Settles exactly once, whatever the request and the parser do. A body cut short, malformed or aborted is refused with
 * 400 INVALID_MULTIPART and the rest of it read and discarded, so the connection can carry the answer: busboy reports
 * it as 'error' events on the parser and on each file stream, and an 'error' event nobody listens for ends the process.
 */
function parseMultipart(source: MultipartSource, jsonLimit: number): Promise<MessageBody & FormBody> {
  const cap = maxMultipartBytes(jsonLimit);
  const input = source.stream;
  if ((source.length ?? 0) > cap) return Promise.reject(bodyTooLarge());
  return new Promise((resolve, reject) => {
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: source.headers as { 'content-type': string },
        limits: { fileSize: MAX_FILE_BYTES, files: MAX_ATTACHMENTS, fieldSize: jsonLimit, fields: 20 },
      });
    } catch {
      reject(badRequest('INVALID_MULTIPART', 'The multipart body has no boundary'));
      return;
    }
    // In arrival order; each file's data is filled in when its part ends.
    const files: UploadedFile[] = [];
    let payload: unknown;
    // A Map, not an object: a field named __proto__ stays a field.
    const fields = new Map<string, string>();
    let failure: DomainError | null = null;
    const fail = (error: DomainError) => (failure ??= error);
    let settled = false;
    /** Refuses the request now: the parser is cut off and the rest of the body drained. */
    const refuse = (error: DomainError) => {
      if (settled) return;
      settled = true;
      input.unpipe(parser);
      input.resume();
      reject(error);
    };
    // busboy emits 'finish' once every file stream has ended, but before this module's own 'end' listener has run.
    let parsed = false;
    let open = 0;
    const complete = () => {
      if (settled || !parsed || open > 0) return;
      settled = true;
      if (failure) reject(failure);
      else resolve({ payload, files, fields: Object.fromEntries(fields) });
    };

    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (name !== 'payload_json') {
        if (valueTruncated) fail(new DomainError('too_large', 'REQUEST_ENTITY_TOO_LARGE', `${name} is too large`));
        else fields.set(name, value);
        return;
      }
      if (valueTruncated) return fail(new DomainError('too_large', 'REQUEST_ENTITY_TOO_LARGE', 'payload_json is too large'));
      try {
        payload = parseJsonText(value, 'payload_json');
      } catch (error) {
        fail(error as DomainError);
      }
    });
    parser.on('file', (name, stream, filename, _encoding, mimeType) => {
      const numbered = /^files\[(\d+)\]$/.exec(name);
      const index = numbered ? Number(numbered[1]) : files.length;
      const file: UploadedFile = { index, filename: filename || `file${index}`, contentType: mimeType, data: Buffer.alloc(0) };
      files.push(file);
      open += 1;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new DomainError('too_large', 'FILE_TOO_LARGE', `${filename || name} is larger than the 25 MiB limit per file`)));
      // "Part terminated early": the body ended inside this file.
      stream.on('error', () => refuse(unreadable()));
      stream.on('end', () => {
        file.data = Buffer.concat(chunks);
        open -= 1;
        complete();
      });
    });
    parser.on('filesLimit', () => fail(badRequest('TOO_MANY_ATTACHMENTS', `A message can have at most ${MAX_ATTACHMENTS} files`)));
    parser.on('error', () => refuse(unreadable()));
    parser.on('finish', () => {
      parsed = true;
      complete();
    });
    // A connection that ended or reset before the whole body came, even while the route was still checking the caller:
    // the parser would wait for the rest forever.
    finished(input, (error) => {
      if (error) refuse(unreadable());
    });
    // A chunked body declares no length: count it, and cut it off at the cap instead of reading on without end.
    let received = 0;
    input.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= cap) return;
      input.unpipe(parser);
      input.pause();
      source.cutOff();
      settled = true;
      reject(bodyTooLarge());
    });
    input.pipe(parser);
  });
}
