// The v1 interaction signature: a vector computed here independently of the module, and every way a delivery can be
// forged, altered, replayed or malformed.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signInteraction, verifyInteraction } from '../../infra/interactionSignature.js';

const token = 'webhook-token-Zx81';
const timestamp = '1700000000';
const rawBody = '{"id":"1","type":3,"token":"abc","version":1,"data":{"custom_id":"ok","component_type":2}}';
const now = { nowSeconds: 1700000000 };

describe('signInteraction', () => {
  it('matches HMAC-SHA256 keyed with the token over "v1:" + timestamp + ":" + body', () => {
    const hex = createHmac('sha256', token).update(`v1:${timestamp}:${rawBody}`).digest('hex');
    expect(signInteraction(token, timestamp, rawBody)).toBe(`v1=${hex}`);
    expect(signInteraction(token, timestamp, rawBody)).toMatch(/^v1=[0-9a-f]{64}$/);
  });

  it('matches a fixed vector', () => {
    const hex = createHmac('sha256', 'key').update('v1:1:{}').digest('hex');
    expect(signInteraction('key', '1', '{}')).toBe(`v1=${hex}`);
  });
});

describe('verifyInteraction', () => {
  const signature = signInteraction(token, timestamp, rawBody);

  it('accepts a genuine delivery', () => {
    expect(verifyInteraction(token, { timestamp, signature, rawBody }, now)).toBe(true);
  });

  it('rejects a tampered body, timestamp, signature or a different token', () => {
    expect(verifyInteraction(token, { timestamp, signature, rawBody: rawBody.replace('"ok"', '"no"') }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp: '1700000001', signature, rawBody }, now)).toBe(false);
    const flipped = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
    expect(verifyInteraction(token, { timestamp, signature: flipped, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: signature.toUpperCase(), rawBody }, now)).toBe(false);
    expect(verifyInteraction('another-token', { timestamp, signature, rawBody }, now)).toBe(false);
  });

  it('rejects timestamps outside the tolerance, in both directions', () => {
    const old = String(1700000000 - 301);
    expect(verifyInteraction(token, { timestamp: old, signature: signInteraction(token, old, rawBody), rawBody }, now)).toBe(false);
    const future = String(1700000000 + 301);
    expect(verifyInteraction(token, { timestamp: future, signature: signInteraction(token, future, rawBody), rawBody }, now)).toBe(false);
    const edge = String(1700000000 - 300);
    expect(verifyInteraction(token, { timestamp: edge, signature: signInteraction(token, edge, rawBody), rawBody }, now)).toBe(true);
    expect(verifyInteraction(token, { timestamp: old, signature: signInteraction(token, old, rawBody), rawBody }, { ...now, toleranceSeconds: 600 })).toBe(
      true,
    );
  });

  it('uses the current clock by default', () => {
    const fresh = String(Math.floor(Date.now() / 1000));
    expect(verifyInteraction(token, { timestamp: fresh, signature: signInteraction(token, fresh, rawBody), rawBody })).toBe(true);
    expect(verifyInteraction(token, { timestamp, signature, rawBody })).toBe(false);
  });

  it('returns false, without throwing, for missing or malformed headers', () => {
    expect(verifyInteraction(token, { timestamp: undefined, signature, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: undefined, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp: '', signature, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp: '17e8', signature, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp: ' 1700000000', signature, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: '', rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: 'v1=abc', rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: `${signature}00`, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: signature.slice(3), rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: `v2=${signature.slice(3)}`, rawBody }, now)).toBe(false);
    expect(verifyInteraction(token, { timestamp, signature: 'é'.repeat(33) + 'x', rawBody }, now)).toBe(false);
  });

  it('rejects everything when the tolerance is not a number', () => {
    expect(verifyInteraction(token, { timestamp, signature, rawBody }, { ...now, toleranceSeconds: Number.NaN })).toBe(false);
  });
});
