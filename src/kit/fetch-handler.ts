/**
 * The fetch adapter's body: `(request: Request) => Promise<WebhookEvent | Response>`, for Next.js
 * route handlers, Hono, Deno, Bun and Workers. Portable: the verifier is injected (fetch.ts gives
 * Web Crypto, fetch-node.ts Node's with every hint).
 */
import { errorEnvelope, successEnvelope, WebhookError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { receive, receiveSettings, tooLarge, type Delivery, type ReceiveOptions, type Verifier } from './receive.js';

export interface FetchOptions extends ReceiveOptions {
  /** Called with every refusal before its Response is returned (log it: its hints say what to do). */
  onError?: (error: WebhookError, request: Request) => void;
  /** Called with each verified delivery (its id, attempt, matching secret) before the event is returned. */
  onDelivery?: (delivery: Delivery) => void;
}

export type FetchVerify = (request: Request) => Promise<WebhookEvent | Response>;

/**
 * Returns the verified event, or the Response to send back as it is: the receiver's error envelope
 * for a refusal, 200 for a repeat the dedupe store has seen.
 */
export function createFetchVerify(options: FetchOptions, verifier: Verifier): FetchVerify {
  const settings = receiveSettings(options);
  return async (request) => {
    const refuse = (error: WebhookError): Response => {
      options.onError?.(error, request);
      return json(error.status, errorEnvelope(error, settings.now()));
    };
    if (request.method !== 'POST') {
      return refuse(new WebhookError('METHOD_NOT_ALLOWED', 405, `only POST is accepted, got ${request.method.slice(0, 20)}`));
    }
    if (request.bodyUsed) {
      return refuse(new WebhookError('RAW_BODY_UNAVAILABLE', 500, 'the request body was already read before hookrelay: pass the Request untouched (or request.clone())'));
    }
    const body = await readBody(request, settings.bodyLimitBytes);
    if (body instanceof WebhookError) return refuse(body);
    const received = await receive({ body, header: (name) => request.headers.get(name) }, settings, verifier);
    if (!received.ok) return refuse(received.error);
    if (received.delivery.duplicate) return json(200, successEnvelope({ deliveryId: received.delivery.deliveryId, duplicate: true }, settings.now()));
    options.onDelivery?.(received.delivery);
    return received.delivery.event;
  };
}

function json(status: number, body: string): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/** The body bytes, refused as soon as they pass the limit (declared or streamed). */
async function readBody(request: Request, limit: number): Promise<Uint8Array | WebhookError> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (err) {
    return new WebhookError('BODY_READ_FAILED', 400, `the request body could not be read: ${(err as Error).message}`, { cause: err });
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
