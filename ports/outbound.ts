// Outbound HTTP to URLs that bot authors choose (interaction delivery): the check a URL must pass before it is
// stored. infra/outbound.ts implements it, and checks again on every delivery.
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

/** Refuses (OutboundUrlError) a URL that is not https or that resolves to a private address, unless allowPrivate. */
export type CheckOutboundUrl = (url: string, options: { allowPrivate: boolean }) => Promise<void>;
