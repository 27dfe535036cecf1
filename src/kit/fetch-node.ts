/** `hookrelay/fetch` on Node: the same API as fetch.ts, verifying with node:crypto and every hint `hookrelay verify` gives. */
import { createFetchVerify, type FetchOptions, type FetchVerify } from './fetch-handler.js';
import { nodeVerifier } from './node-verifier.js';

export type { FetchOptions, FetchVerify } from './fetch-handler.js';
export { memoryDedupe, type DedupeStore, type Delivery, type ReceiveOptions } from './receive.js';
export { WebhookError } from './errors.js';
export { isEvent, isKnownEvent, type EventOf, type KnownEvent, type UnknownEvent, type WebhookEvent } from './events.js';

/**
 * `const verifyRequest = hookrelay({ secrets })`, then in a handler:
 * `const event = await verifyRequest(request); if (event instanceof Response) return event;`.
 */
export function hookrelay(options: FetchOptions): FetchVerify {
  return createFetchVerify(options, nodeVerifier);
}
