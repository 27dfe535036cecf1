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
  // Field by field: a rest-and-spread copy of the fields cost ~0.6 KB of garbage on every request.
  const { timestamp, timestampText, v1Hex, uppercaseHex, malformedV1, ignoredSchemes } = parsed.header;
  const signatures: Buffer[] = [];
  for (const hex of v1Hex) signatures.push(Buffer.from(hex, 'hex'));
  return { ok: true, header: { timestamp, timestampText, signatures, uppercaseHex, malformedV1, ignoredSchemes } };
}
