/** The signature scheme of spec 6.3: sign, parse the header, verify, explain failures. */
export { computeSignature, sign } from './sign.js';
export {
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_V1_SIGNATURES,
  SIGNATURE_HEADER_NAME,
  parseSignatureHeader,
} from './verify.js';
export type { ParseResult, ParsedSignatureHeader, SignatureHeaderFailure } from './verify.js';
export { DEFAULT_TOLERANCE_SECONDS, UPPERCASE_HEX_NOTE } from './verify.js';
export type { VerifyFailure, VerifyOptions, VerifyResult } from './verify.js';
export { MAX_EXPLAIN_BODY_BYTES } from './verify.js';
