/**
 * The fetch adapter's body, for Next.js route handlers, Hono, Deno, Bun and Workers:
 * `verifyRequest(request)` gives the event or the Response to send; `verifyRequest.handle(request,
 * handler)` also runs the app's handler, so a failed one releases its id from the dedupe store.
 * Portable: the verifier is injected (fetch.ts gives Web Crypto, fetch-node.ts Node's with every hint).
 */
import { ERROR_CODE_HEADER } from '../core/error-code-header.js';
import { errorEnvelope, successEnvelope, WebhookError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { receive, receiveSettings, releaseClaim, tooLarge, type Delivery, type ReceiveOptions, type ReceiveSettings, type Verifier } from './receive.js';

export interface FetchOptions extends ReceiveOptions {
  /** Called with every refusal before its Response is returned (log it: its hints say what to do). */
  onError?: (error: WebhookError, request: Request) => void;
  /** Called with each verified delivery (its id, attempt, matching secret) before the event is returned. */
  onDelivery?: (delivery: Delivery) => void;
}

/** The app's handler for one verified delivery: its Response is the answer; a non-2xx one, or a throw, has the service retry. */
export type FetchHandler = (event: WebhookEvent, delivery: Delivery) => Response | Promise<Response>;

export interface FetchVerify {
  /**
   * The verified event, or the Response to send back as it is. With `dedupe`, the id is claimed
   * before the event is returned, and a failure after that cannot release it: use `handle`.
   */
  (request: Request): Promise<WebhookEvent | Response>;
  /**
   * Verifies, then answers with `handler`'s Response. With `dedupe`, a repeat is answered 200
   * without the handler, and a handler that throws (rethrown) or answers non-2xx releases the id,
   * so the service's retry runs it again (spec 6.4).
   */
  handle(request: Request, handler: FetchHandler): Promise<Response>;
}

/**
 * Returns the verified event, or the Response to send back as it is: the receiver's error envelope
 * for a refusal, 200 for a repeat the dedupe store has seen.
 */
export function createFetchVerify(options: FetchOptions, verifier: Verifier): FetchVerify {
  const settings = receiveSettings(options);
  const verifyRequest = async (request: Request): Promise<Delivery | Response> => {
    const refuse = (error: WebhookError): Response => {
      options.onError?.(error, request);
      return json(error.status, errorEnvelope(error, settings.now()), { [ERROR_CODE_HEADER]: error.code });
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
    return received.delivery;
  };
  const verify = async (request: Request): Promise<WebhookEvent | Response> => {
    const verified = await verifyRequest(request);
    return verified instanceof Response ? verified : verified.event;
  };
  return Object.assign(verify, { handle: (request: Request, handler: FetchHandler) => handle(settings, verifyRequest, request, handler) });
}

async function handle(settings: ReceiveSettings, verifyRequest: (request: Request) => Promise<Delivery | Response>, request: Request, handler: FetchHandler): Promise<Response> {
  const verified = await verifyRequest(request);
  if (verified instanceof Response) return verified;
  let response: Response;
  try {
    response = await handler(verified.event, verified);
  } catch (err) {
    await releaseClaim(settings, verified);
    throw err;
  }
  if (!response.ok) await releaseClaim(settings, verified);
  return response;
}

function json(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
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
