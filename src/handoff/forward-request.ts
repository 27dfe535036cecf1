/**
 * What the target receives: the original raw body byte for byte, the delivery's `x-service-*`
 * headers, and a fresh signature in the same scheme (spec 6.3) — so the app verifies relayed and
 * replayed events exactly as it verifies the service, even days later.
 */
import { sign } from '../core/signature/sign.js';
import { SIGNATURE_HEADER_NAME } from '../core/signature/signature-header.js';
import { isoTime } from '../core/iso-time.js';
import type { StoredDelivery } from '../store/store.js';

/** What a hand-off sends of a delivery. */
export type HandOffDelivery = Pick<StoredDelivery, 'id' | 'rawBody' | 'headers' | 'receivedAt'>;

export interface ForwardRequestInput {
  delivery: HandOffDelivery;
  secret: string;
  nowSeconds: number;
  /** 1 for the first hand-off of the job. */
  relayTry: number;
  replay: boolean;
  /** Extra headers from --forward-header, already checked. */
  extraHeaders: ReadonlyArray<[string, string]>;
  /** Tracing on only: the relay try's W3C trace context, so the app's trace hangs under it. Absent or null: no such header. */
  trace?: { traceparent: string; tracestate?: string } | null;
}

/** Hop-by-hop and framing headers are never copied (RFC 9110 §7.6.1); nor is the old signature. */
const NOT_COPIED = new Set([SIGNATURE_HEADER_NAME]);

export function buildForwardRequest(input: ForwardRequestInput): { headers: Record<string, string>; body: Buffer } {
  const headers: Record<string, string> = {};
  let contentType = 'application/json';
  for (const [name, value] of input.delivery.headers) {
    const lower = name.toLowerCase();
    if (lower === 'content-type') contentType = value;
    else if (lower.startsWith('x-service-') && !NOT_COPIED.has(lower)) headers[lower] = value;
  }
  headers['content-type'] = contentType;
  headers['user-agent'] = 'hookrelay-relay/1';
  headers[SIGNATURE_HEADER_NAME] = sign(input.secret, input.delivery.rawBody, Math.floor(input.nowSeconds));
  headers['x-hookrelay-relayed'] = 'true';
  headers['x-hookrelay-relay-try'] = String(input.relayTry);
  headers['x-hookrelay-replay'] = input.replay ? 'true' : 'false';
  headers['x-hookrelay-received-at'] = isoTime(input.delivery.receivedAt);
  if (input.trace) {
    headers.traceparent = input.trace.traceparent;
    if (input.trace.tracestate !== undefined) headers.tracestate = input.trace.tracestate;
  }
  for (const [name, value] of input.extraHeaders) headers[name.toLowerCase()] = value;
  // The body as held (the arrival's buffer, or a row read back): nothing writes to a delivery's bytes once received, so no copy per hand-off.
  return { headers, body: input.delivery.rawBody };
}

const FORBIDDEN_EXTRA = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection', SIGNATURE_HEADER_NAME]);

/** Parses `--forward-header 'Name: value'`; refuses framing headers and the signature. */
export function parseForwardHeader(text: string): { ok: true; header: [string, string] } | { ok: false; message: string } {
  const colon = text.indexOf(':');
  if (colon <= 0) return { ok: false, message: `expected "Name: value", got ${JSON.stringify(text)}` };
  const name = text.slice(0, colon).trim();
  const value = text.slice(colon + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return { ok: false, message: `"${name}" is not a valid header name` };
  if (/[\r\n\0]/.test(value)) return { ok: false, message: `the value of ${name} holds a line break or NUL` };
  if (FORBIDDEN_EXTRA.has(name.toLowerCase())) return { ok: false, message: `${name} is set by hookrelay itself and cannot be given` };
  return { ok: true, header: [name, value] };
}
