import { createHmac } from 'node:crypto';

/**
 * Hex HMAC-SHA256, keyed by `secret` as given, of `<t>.` followed by the raw body bytes (spec 6.3).
 * The body is hashed as bytes: a BOM or invalid UTF-8 is signed exactly as it travels.
 */
export function computeSignature(secret: string, rawBody: Buffer | Uint8Array | string, timestampSeconds: number): string {
  return createHmac('sha256', secret)
    .update(`${timestampSeconds}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/** The `x-service-signature` value for one attempt: `t=<unix seconds>,v1=<hex>`. */
export function sign(secret: string, rawBody: Buffer | Uint8Array | string, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestamp must be a non-negative integer number of seconds, got ${timestampSeconds}`);
  }
  return `t=${timestampSeconds},v1=${computeSignature(secret, rawBody, timestampSeconds)}`;
}
