// Outbound requests to URLs that users choose (interaction deliveries POSTed to bots, emoji images fetched by URL), so
// every request is a potential SSRF probe into the service's own network. Addresses are checked when the URL is set and again, inside the
// socket's own DNS lookup, on every delivery: the connection can only go to an address that was checked, so a DNS
// answer that changes between the two (rebinding) cannot reach a private address.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type GetBytes, type OutboundRefusal, OutboundUrlError, type PostForAnswer } from '../ports/outbound.js';

export { OutboundUrlError, type OutboundRefusal };

export interface OutboundResponse {
  status: number;
}

/** The bot's answer is not used; reading a little of it lets a well-behaved server finish, more is not worth holding. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** IANA's global unicast block: IPv6 outside it is special-purpose or unassigned, whatever ipaddr.js names its range. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Only global unicast is public; loopback, private, link-local, CGNAT, IPv4-mapped private etc. all fall outside it.
 * ipaddr.js calls every IPv6 address outside its special ranges 'unicast', the deprecated IPv4-compatible ::/96
 * (::7f00:1, which a URL makes of [::127.0.0.1]) among them, so IPv6 must also lie in 2000::/3.
 */
function isPublicAddress(address: string): boolean {
  try {
    const parsed = ipaddr.process(address);
    return parsed.range() === 'unicast' && (parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6));
  } catch {
    return false;
  }
}

interface Target {
  /** Without the brackets an IPv6 literal has in a URL. */
  host: string;
  port: number;
  path: string;
}

/** Parses and checks everything that does not need DNS. Messages name the host only: paths and queries may carry secrets. */
function parseTarget(url: string, allowPrivate: boolean): Target {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundUrlError('invalid_url', 'interaction_url is not a valid URL');
  }
  if (parsed.protocol !== 'https:') throw new OutboundUrlError('not_https', 'interaction_url must use https');
  if (parsed.username !== '' || parsed.password !== '') throw new OutboundUrlError('invalid_url', 'interaction_url must not carry credentials');
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (host === '') throw new OutboundUrlError('invalid_url', 'interaction_url has no host');
  // Sockets skip the lookup hook for IP literals, so these are checked here, for both the check and the delivery.
  if (isIP(host) !== 0 && !allowPrivate && !isPublicAddress(host)) {
    throw new OutboundUrlError('private_address', `interaction_url host ${host} is not a public address`);
  }
  return { host, port: parsed.port === '' ? 443 : Number(parsed.port), path: `${parsed.pathname}${parsed.search}` };
}

function refuseNonPublic(host: string, addresses: LookupAddress[]): OutboundUrlError | null {
  const refused = addresses.find((entry) => !isPublicAddress(entry.address));
  return refused ? new OutboundUrlError('private_address', `interaction_url host ${host} resolves to a non-public address`) : null;
}

/** Checks an interaction_url when it is set: https only; every address the host resolves to must be public unless allowPrivate. */
export async function checkOutboundUrl(url: string, options: { allowPrivate: boolean }): Promise<void> {
  const { host } = parseTarget(url, options.allowPrivate);
  if (isIP(host) !== 0) return;
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) => {
    dnsLookup(host, { all: true }, (err, found) => {
      if (err || found.length === 0) reject(new OutboundUrlError('unresolvable', `interaction_url host ${host} does not resolve`));
      else resolve(found);
    });
  });
  if (options.allowPrivate) return;
  const refusal = refuseNonPublic(host, addresses);
  if (refusal) throw refusal;
}

/**
 * The socket's DNS lookup. Net calls it with `all: true` when it races address families (the Node 20 default) and
 * then expects the whole list; otherwise it expects a single address and its family.
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      // A failed lookup at delivery time may be transient, so it stays a network error (retried), not a refusal.
      if (err) return callback(err, [], 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), [], 0);
      const refusal = allowPrivate ? null : refuseNonPublic(hostname, addresses);
      if (refusal) return callback(refusal, [], 0);
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

interface Exchange {
  status: number;
  contentType: string | null;
  data: Buffer;
  /** The body went past maxBytes and was cut off there. */
  tooLarge: boolean;
}

/**
 * One request to a checked target over a socket whose lookup checks again; resolves with the status and up to
 * maxBytes of the body (the status line decides the outcome: a body cut short, by us or the peer, does not change it);
 * rejects on network errors, timeouts (an Error whose message says timeout) and refused addresses (OutboundUrlError).
 */
function exchange(
  url: string,
  outgoing: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  options: { allowPrivate: boolean; timeoutMs: number; maxBytes: number },
): Promise<Exchange> {
  const target = parseTarget(url, options.allowPrivate);
  return new Promise<Exchange>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const length: Record<string, string> = outgoing.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(outgoing.body)) };
    const req = request({
      method: outgoing.method,
      host: target.host,
      port: target.port,
      path: target.path,
      headers: { ...outgoing.headers, ...length },
      lookup: guardedLookup(options.allowPrivate),
      // A pooled socket was connected under an earlier lookup; a fresh agent makes every request pass the check.
      agent: false,
      // Development servers commonly run with self-signed certificates; production requires a valid chain.
      rejectUnauthorized: !options.allowPrivate,
    });
    const timer = setTimeout(() => {
      const error = new Error(`outbound ${outgoing.method} timeout after ${options.timeoutMs} ms`);
      settle(() => reject(error));
      req.destroy(error);
    }, options.timeoutMs);
    req.on('error', (error) => settle(() => reject(error)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const contentType = res.headers['content-type'] ?? null;
      const chunks: Buffer[] = [];
      let received = 0;
      const done = (tooLarge: boolean) => settle(() => resolve({ status, contentType, data: Buffer.concat(chunks), tooLarge }));
      // A length declared past the limit is refused before any of it is read.
      if (Number(res.headers['content-length']) > options.maxBytes) {
        done(true);
        res.destroy();
        return;
      }
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) {
          done(true);
          res.destroy();
        } else chunks.push(chunk);
      });
      res.on('error', () => done(false));
      res.on('close', () => done(false));
    });
    req.end(outgoing.body);
  });
}

/**
 * POSTs `body` (already serialized; the exact bytes that were signed) and resolves with the status; rejects on network
 * errors, timeouts (an Error whose message says timeout) and refused addresses (OutboundUrlError).
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs: number },
): Promise<OutboundResponse> {
  const { status } = await exchange(url, { method: 'POST', headers, body }, { ...options, maxBytes: MAX_RESPONSE_BYTES });
  return { status };
}

/** POSTs `body` and reads the answer (an interactions endpoint's response), under the same checks and timeout. */
export const postForAnswer: PostForAnswer = (url, body, headers, options) => exchange(url, { method: 'POST', headers, body }, options);

/** GETs a URL chosen by a user (an emoji's image) under the same checks, keeping at most maxBytes of its body. */
export const getBytes: GetBytes = (url, options) => exchange(url, { method: 'GET', headers: { Accept: 'image/*' } }, options);
