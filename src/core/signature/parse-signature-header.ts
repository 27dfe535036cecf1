/** Parsing of the `x-service-signature` header value `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` (spec 6.3). */
import { parseSignatureFields, type SignatureHeaderFailure, type SignatureHeaderFields } from './signature-fields.js';

export { MAX_SIGNATURE_HEADER_LENGTH, MAX_V1_SIGNATURES, SIGNATURE_HEADER_NAME } from './signature-fields.js';
export type { SignatureHeaderFailure } from './signature-fields.js';

export interface ParsedSignatureHeader extends Omit<SignatureHeaderFields, 'v1Hex'> {
  /** Each well-formed `v1`, decoded from hex: 32 bytes. */
  signatures: Buffer[];
}

export type ParseResult =
  | { ok: true; header: ParsedSignatureHeader }
  | { ok: false; reason: SignatureHeaderFailure; message: string; timestamp?: number };

/**
 * Parses a signature header as node hands it over (a string, or an array when it was sent more than once).
 * Returns the timestamp and the well-formed v1 signatures, or refuses with
 * `missing` (absent or empty), `malformed` (with a message naming what is wrong) or
 * `no_signatures` (a `t` but no `v1`: other schemes are never enough). Never throws.
 */
export function parseSignatureHeader(header: string | readonly string[] | undefined | null): ParseResult {
  const parsed = parseSignatureFields(header);
  if (!parsed.ok) return parsed;
  const { v1Hex, ...rest } = parsed.header;
  return { ok: true, header: { ...rest, signatures: v1Hex.map((hex) => Buffer.from(hex, 'hex')) } };
}
