/**
 * hookrelay as a library, on Node: the signature scheme (spec 6.3) synchronous on node:crypto and on
 * Web Crypto, the delivery envelope types (spec 6.1, 6.2) with typed events, and the errors the
 * adapters answer with. Runtimes without node:crypto get src/kit/web.ts (package.json exports).
 * The adapters are subpaths: hookrelay/express, hookrelay/fastify, hookrelay/fetch, hookrelay/testing.
 */
export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER_NAME, parseSignatureHeader, sign } from './core/signature/index.js';
export { verify } from './kit/verify-now.js';
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
export { signAsync, type RawBody, type VerifyAsyncOptions } from './kit/verify-async.js';
export { verifyAsync } from './kit/verify-async-node.js';
export { isEvent, isKnownEvent, type EventOf, type KnownEvent, type UnknownEvent, type WebhookEvent } from './kit/events.js';
export { ENVELOPE_CODES, SIGNATURE_CODES, WebhookError, type EnvelopeProblem } from './kit/errors.js';
export { memoryDedupe, type DedupeStore, type Delivery, type ReceiveOptions } from './kit/receive.js';
