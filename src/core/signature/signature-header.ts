/**
 * The `x-service-signature` header (spec 6.1, 6.3): its name, its limits, what its fields say, and
 * the ways it can be unusable. Portable: the parse and the verdict (verify-verdict.ts) and the words
 * of a failure (explain-text.ts) read it.
 */

/** The header that carries the signature (spec 6.1). */
export const SIGNATURE_HEADER_NAME = 'x-service-signature';

/** Longer header values are refused before any work is done on them. */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;

/** At most this many `v1` entries: bounds the HMAC comparisons one request can cost. */
export const MAX_V1_SIGNATURES = 8;

export interface SignatureHeaderFields {
  /** `t`, in unix seconds. */
  timestamp: number;
  /**
   * `t` exactly as it appears in the header. The HMAC covers these characters (spec 6.3: `<t>.`),
   * which differ from `String(timestamp)` only when the sender zero-pads.
   */
  timestampText: string;
  /** Each well-formed `v1`, as its 64 hex characters. */
  v1Hex: string[];
  /**
   * For each of `signatures`: true when its hex was written with uppercase letters (all or some).
   * The same bytes, so it verifies, but the service writes lowercase and receivers that compare
   * hex strings (stripe-node's scheme) refuse it.
   */
  uppercaseHex: boolean[];
  /** `v1` entries skipped because they were not 64 hex characters. */
  malformedV1: number;
  /** Other schemes present (e.g. `v0`), in order of first appearance; never used to verify. */
  ignoredSchemes: string[];
}

export type SignatureHeaderFailure = 'missing' | 'malformed' | 'no_signatures';

export type FieldsResult =
  | { ok: true; header: SignatureHeaderFields }
  | { ok: false; reason: SignatureHeaderFailure; message: string; timestamp?: number };
