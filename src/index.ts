/** hookrelay as a library: the signature scheme (spec 6.3) and the delivery envelope types (spec 6.1, 6.2). */
export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER_NAME, parseSignatureHeader, sign, verify } from './core/signature/index.js';
export type {
  ParseResult,
  ParsedSignatureHeader,
  SignatureHeaderFailure,
  VerifyFailure,
  VerifyOptions,
  VerifyResult,
} from './core/signature/index.js';
export { CURRENT_API_VERSION } from './core/envelope.js';
export type { AccessChannel, DecidedBy, DeliveryEnvelope, TriggerName, TriggerPayloads } from './core/envelope.js';
