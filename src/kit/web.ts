/**
 * `hookrelay` for Deno, Bun, browsers and Workers (the `default` condition of the package's
 * exports; Node gets src/index.ts): the signature scheme on Web Crypto, the typed events and the
 * errors. Portable: nothing here imports a Node module or uses a Node global.
 */
export { signAsync, verifyAsync, type RawBody, type VerifyAsyncOptions } from './verify-async.js';
export { MAX_SIGNATURE_HEADER_LENGTH, MAX_V1_SIGNATURES, SIGNATURE_HEADER_NAME } from '../core/signature/signature-header.js';
export { parseSignatureFields } from '../core/signature/verify-verdict.js';
export type { FieldsResult, SignatureHeaderFailure, SignatureHeaderFields } from '../core/signature/signature-header.js';
export { DEFAULT_TOLERANCE_SECONDS, UPPERCASE_HEX_NOTE } from '../core/signature/verify-verdict.js';
export type { VerifyFailure, VerifyOptions, VerifyResult } from '../core/signature/verify-verdict.js';
export { isEvent, isKnownEvent } from './events.js';
export type { AccessChannel, DecidedBy, DeliveryEnvelope, EventOf, KnownEvent, TriggerName, TriggerPayloads, UnknownEvent, WebhookEvent } from './events.js';
export { CURRENT_API_VERSION } from './read-envelope.js';
export { ENVELOPE_CODES, SIGNATURE_CODES, WebhookError, type EnvelopeProblem } from './errors.js';
export { memoryDedupe, type DedupeStore, type Delivery, type ReceiveOptions } from './receive.js';
