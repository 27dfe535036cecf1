import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The raw HMAC-SHA256, keyed by `secret` as given, of `<t>.` followed by the body bytes (spec 6.3).
 * `timestampText` is `t` exactly as the header carries it.
 */
export function signatureDigest(secret: string, timestampText: string, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestampText}.`).update(body).digest();
}

/**
 * Whether `digest` equals any of `signatures`, compared in constant time (spec 6.3).
 * Every candidate is compared, so the time taken does not depend on which one matches.
 */
export function matchesAny(digest: Buffer, signatures: readonly Buffer[]): boolean {
  let matched = false;
  for (const candidate of signatures) {
    if (candidate.length === digest.length && timingSafeEqual(candidate, digest)) matched = true;
  }
  return matched;
}

/** Index of the first secret whose digest matches one of `signatures`, or -1. */
export function findMatchingSecret(
  secrets: readonly string[],
  timestampText: string,
  body: Uint8Array,
  signatures: readonly Buffer[],
): number {
  return findMatch(secrets, timestampText, body, signatures)?.secretIndex ?? -1;
}

/**
 * The first secret whose digest matches one of `signatures`, and which of `signatures` that digest
 * equals (each compared in constant time, every one compared); null when no secret matches.
 */
export function findMatch(
  secrets: readonly string[],
  timestampText: string,
  body: Uint8Array,
  signatures: readonly Buffer[],
): { secretIndex: number; matched: boolean[] } | null {
  for (let i = 0; i < secrets.length; i++) {
    const digest = signatureDigest(secrets[i] as string, timestampText, body);
    const matched = signatures.map((candidate) => candidate.length === digest.length && timingSafeEqual(candidate, digest));
    if (matched.includes(true)) return { secretIndex: i, matched };
  }
  return null;
}

/** The bytes of a body: a string is UTF-8 encoded; anything that is not bytes or a string gives undefined. */
export function bodyBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  return undefined;
}
