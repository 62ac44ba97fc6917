// Images a request names in a JSON field: a data URI, or (where the route allows it) an https URL the service fetches
// under the outbound checks (never a private address unless configured for development); or a file part of a form.
// Either way the bytes are decoded to know what they are, and refused as a form error at the field's path.
import { invalidForm } from '../domain/errors.js';
import type { Image } from '../ports/images.js';
import { type GetBytes, OutboundUrlError } from '../ports/outbound.js';
import type { HttpDeps } from './context.js';

export interface ImageRules {
  /** Formats taken (png, jpeg, webp, gif); all four by default. */
  allowed?: readonly string[];
  /** The largest file taken, in bytes. */
  maxBytes: number;
  /** Whether an https URL is taken besides a data URI. */
  url?: boolean;
}

/** How long fetching an image may take: the request that names it waits meanwhile. */
const FETCH_TIMEOUT_MS = 5_000;

const refused = (path: string, message: string) => invalidForm([{ path, message }]);

const kib = (bytes: number) => `${Math.floor(bytes / 1024)} KiB`;

const URL_REFUSALS = {
  not_https: 'must use https',
  invalid_url: 'is not a valid URL',
  unresolvable: 'has a host that does not resolve',
  private_address: 'is not a public address',
};

async function fetchImage(deps: { getBytes: GetBytes; allowPrivate: boolean }, url: string, path: string, maxBytes: number): Promise<Buffer> {
  let fetched: Awaited<ReturnType<GetBytes>>;
  try {
    fetched = await deps.getBytes(url, { allowPrivate: deps.allowPrivate, timeoutMs: FETCH_TIMEOUT_MS, maxBytes });
  } catch (error) {
    // The client named the URL: whatever keeps it from answering is a problem with the field, not with the service.
    throw refused(path, error instanceof OutboundUrlError ? `The image URL ${URL_REFUSALS[error.reason]}` : 'The image URL could not be fetched');
  }
  if (fetched.tooLarge) throw refused(path, `The image at this URL is larger than ${kib(maxBytes)}`);
  if (fetched.status !== 200) throw refused(path, `The image URL answered ${fetched.status}`);
  return fetched.data;
}

/** The image a field names (or a file part holds), checked against the rules. */
export async function readImage(
  deps: Pick<HttpDeps, 'images' | 'getBytes' | 'config'>,
  value: string | Buffer,
  path: string,
  rules: ImageRules,
): Promise<Image> {
  const { images } = deps;
  let image: Image;
  if (Buffer.isBuffer(value)) image = await images.inspect(value, path, rules.allowed);
  else if (value.startsWith('data:')) image = await images.parseDataUri(value, path, rules.allowed);
  else if (rules.url && /^https?:\/\//i.test(value)) {
    const data = await fetchImage({ getBytes: deps.getBytes, allowPrivate: deps.config.interactionsAllowPrivate }, value, path, rules.maxBytes);
    image = await images.inspect(data, path, rules.allowed);
  } else
    throw refused(
      path,
      rules.url ? 'Must be a data URI (data:image/<type>;base64,<data>) or an https URL' : 'Must be a data URI: data:image/<type>;base64,<data>',
    );
  if (image.data.length > rules.maxBytes) throw refused(path, `The image is larger than ${kib(rules.maxBytes)}`);
  return image;
}
