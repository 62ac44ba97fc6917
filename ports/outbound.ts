// Outbound HTTP to URLs that users choose (interaction delivery, emoji images given by URL): the check a URL must
// pass before it is stored or fetched. infra/outbound.ts implements it, and checks again on every connection.
export type OutboundRefusal = 'not_https' | 'invalid_url' | 'unresolvable' | 'private_address';

export class OutboundUrlError extends Error {
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundUrlError';
  }
}

/** POSTs a JSON body to a checked URL within timeoutMs; refuses (OutboundUrlError) as CheckOutboundUrl does. */
export type PostJson = (
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs: number },
) => Promise<{ status: number }>;

/** What an endpoint answered: its status, its Content-Type, and its body up to maxBytes (`tooLarge` when cut off there). */
export interface OutboundAnswer {
  status: number;
  contentType: string | null;
  data: Buffer;
  tooLarge: boolean;
}

/** POSTs a body to a checked URL within timeoutMs and reads the answer (an interactions endpoint's response). */
export type PostForAnswer = (
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs: number; maxBytes: number },
) => Promise<OutboundAnswer>;

/** Refuses (OutboundUrlError) a URL that is not https or that resolves to a private address, unless allowPrivate. */
export type CheckOutboundUrl = (url: string, options: { allowPrivate: boolean }) => Promise<void>;

/** GETs a URL as CheckOutboundUrl allows, within timeoutMs; a body over maxBytes is cut off and refused (`tooLarge`). */
export type GetBytes = (
  url: string,
  options: { allowPrivate: boolean; timeoutMs: number; maxBytes: number },
) => Promise<{ status: number; data: Buffer; tooLarge: boolean }>;
