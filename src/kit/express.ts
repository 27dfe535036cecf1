/**
 * `hookrelay/express`: middleware that verifies a delivery over its raw bytes and puts the typed
 * event on `req.webhook`. It reads the body itself; when a body parser ran first it uses the bytes
 * that parser kept (`express.json({ verify: keepRawBody })`), else, for a parsed JSON body, the one
 * re-serialisation the service's own bytes survive, and says so clearly when that fails.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_CODE_HEADER } from '../core/error-code-header.js';
import { errorEnvelope, successEnvelope, WebhookError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { nodeVerifier } from './node-verifier.js';
import { readNodeBody, type BodyRead } from './read-node-body.js';
import { receive, receiveSettings, releaseClaim, type Delivery, type ReceiveOptions, type ReceiveSettings } from './receive.js';

export { memoryDedupe, type DedupeStore, type Delivery, type ReceiveOptions } from './receive.js';
export { WebhookError } from './errors.js';
export { isEvent, isKnownEvent, type EventOf, type KnownEvent, type UnknownEvent, type WebhookEvent } from './events.js';

declare global {
  // Express's own request type (@types/express) picks these up: `req.webhook` is typed in handlers.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The verified event (hookrelay/express). */
      webhook?: WebhookEvent;
      /** The verified delivery: id, attempt, matching secret, notes (hookrelay/express). */
      webhookDelivery?: Delivery;
    }
  }
}

/** The request as the middleware sees it: node's, plus what body parsers and hookrelay add. */
export interface WebhookRequest extends IncomingMessage {
  body?: unknown;
  rawBody?: unknown;
  webhook?: WebhookEvent;
  webhookDelivery?: Delivery;
}

export interface ExpressOptions extends ReceiveOptions {
  /** Called with every refusal before it is answered (log it: its hints say what to do). */
  onError?: (error: WebhookError, req: WebhookRequest) => void;
}

type Next = (err?: unknown) => void;

/**
 * `app.post('/webhooks', hookrelay({ secrets }), (req, res) => …req.webhook…)`. A refused delivery
 * is answered with the receiver's status and code in the spec's error envelope; a repeat the
 * dedupe store has seen is answered 200 without calling the handler. When the handler answers
 * non-2xx (or throws, or the connection closes first) the id is released, so the retry reaches it
 * again. Throws at once for bad options.
 */
export function hookrelay(options: ExpressOptions): (req: WebhookRequest, res: ServerResponse, next: Next) => void {
  const settings = receiveSettings(options);
  return (req, res, next) => {
    handle(req, res, settings, options.onError).then(
      (delivery) => {
        if (!delivery) return;
        if (delivery.duplicate) return answer(res, 200, successEnvelope({ deliveryId: delivery.deliveryId, duplicate: true }, settings.now()));
        req.webhook = delivery.event;
        req.webhookDelivery = delivery;
        releaseUnlessTaken(res, settings, delivery);
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/**
 * The handler runs after `next()` and its outcome is only visible on the response: a non-2xx
 * answer, or a connection closed before any answer, did not take the delivery (spec 6.4 retries it).
 */
function releaseUnlessTaken(res: ServerResponse, settings: ReceiveSettings, delivery: Delivery): void {
  if (!settings.dedupe?.release) return;
  let finished = false;
  res.once('finish', () => {
    finished = true;
    if (res.statusCode < 200 || res.statusCode > 299) void releaseClaim(settings, delivery);
  });
  res.once('close', () => {
    if (!finished) void releaseClaim(settings, delivery);
  });
}

/**
 * For `express.json({ verify: keepRawBody })` (or express.raw, express.text): keeps the exact bytes
 * the parser read on `req.rawBody`, so hookrelay verifies them wherever it is mounted.
 */
export function keepRawBody(req: IncomingMessage, _res: ServerResponse, body: Buffer): void {
  (req as WebhookRequest).rawBody = body;
}

async function handle(req: WebhookRequest, res: ServerResponse, settings: ReceiveSettings, onError: ExpressOptions['onError']): Promise<Delivery | null> {
  const source = await rawBytes(req, settings.bodyLimitBytes);
  const refuse = (error: WebhookError): null => {
    onError?.(error, req);
    answer(res, error.status, errorEnvelope(error, settings.now()), { [ERROR_CODE_HEADER]: error.code, ...(error.status === 413 ? { connection: 'close' } : {}) });
    return null;
  };
  if (!source.ok) return refuse(source.error);
  const header = (name: string) => req.headers[name];
  const received = await receive({ body: source.body, header }, settings, nodeVerifier);
  if (received.ok) return received.delivery;
  if (source.reserialised && received.error.reason === 'mismatch') return refuse(reserialisedMismatch(received.error));
  return refuse(received.error);
}

type Source = { ok: true; body: Buffer; reserialised: boolean } | { ok: false; error: WebhookError };

/** The raw bytes: kept by a parser, read here, or (a parser consumed them) the parsed body re-serialised. */
async function rawBytes(req: WebhookRequest, limit: number): Promise<Source> {
  if (req.rawBody instanceof Uint8Array) return { ok: true, body: asBuffer(req.rawBody), reserialised: false };
  if (req.body instanceof Uint8Array) return { ok: true, body: asBuffer(req.body), reserialised: false };
  if (!req.readableDidRead && !req.readableEnded) {
    const read: BodyRead = await readNodeBody(req, limit);
    return read.ok ? { ...read, reserialised: false } : read;
  }
  // A parser read the stream and kept no bytes. The service writes compact JSON, which
  // JSON.stringify of the parse gives back byte for byte; the event is read from those bytes,
  // so what the app sees is exactly what was signed.
  if (typeof req.body === 'string') return { ok: true, body: Buffer.from(req.body, 'utf8'), reserialised: true };
  if (req.body !== null && typeof req.body === 'object') {
    let text: string;
    try {
      text = JSON.stringify(req.body);
    } catch {
      text = '';
    }
    if (text) return { ok: true, body: Buffer.from(text, 'utf8'), reserialised: true };
  }
  return {
    ok: false,
    error: new WebhookError('RAW_BODY_UNAVAILABLE', 500, 'another middleware read the request body before hookrelay and kept neither its bytes nor a parsed body', {
      hints: [MOUNT_FIRST],
    }),
  };
}

const MOUNT_FIRST =
  "mount hookrelay's middleware before any body parser (app.post('/webhooks', hookrelay({ secrets }), handler)), or let the parser keep the bytes: express.json({ verify: keepRawBody })";

function reserialisedMismatch(error: WebhookError): WebhookError {
  return new WebhookError(
    'RAW_BODY_UNAVAILABLE',
    500,
    'the body was already consumed by a body parser (express.json() or similar) that ran before hookrelay: only its re-serialisation was left, and that does not match the signature',
    { hints: [MOUNT_FIRST, ...error.hints], reason: 'mismatch' },
  );
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
