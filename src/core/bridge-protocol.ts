/**
 * The bridge protocol, version 1 (docs/bridge.md): JSON text frames over one WebSocket, the body
 * as base64 of its exact bytes. Pure: every frame that crosses is checked here, field by field,
 * and a frame that is not exactly right is refused with a message that names what is wrong.
 */

export const BRIDGE_PROTOCOL = 'hookrelay-bridge.1';
export const BRIDGE_PATH = '/bridge';

/** Close codes (4000–4999 are the application's). */
export const CLOSE = {
  /** A frame that is malformed, oversized, out of order or of an unknown type. */
  badFrame: 4400,
  /** The server is shutting down: reconnect later. */
  goingAway: 1001,
  /** No pong within the liveness deadline. */
  silent: 4408,
} as const;

export interface BridgeDelivery {
  seq: number;
  id: string;
  trigger: string;
  receivedAt: number;
  /** Header names and values in arrival order. */
  headers: Array<[string, string]>;
  /** The exact body bytes. */
  body: Buffer;
  signature: 'valid' | 'skipped';
  secretIndex: number | null;
  signatureTimestamp: number | null;
}

export type ServerFrame =
  | { type: 'hello'; protocol: 1; subscriber: string; cursor: number; latest: number; credit: number }
  | { type: 'delivery'; delivery: BridgeDelivery }
  | { type: 'live' };

export type ClientFrame = { type: 'ack'; seq: number };

type Parsed<T> = { ok: true; frame: T } | { ok: false; message: string };

export function encodeServerFrame(frame: ServerFrame): string {
  if (frame.type !== 'delivery') return JSON.stringify(frame);
  const d = frame.delivery;
  return JSON.stringify({
    type: 'delivery',
    seq: d.seq,
    id: d.id,
    trigger: d.trigger,
    receivedAt: d.receivedAt,
    headers: d.headers,
    body: d.body.toString('base64'),
    signature: d.signature,
    secretIndex: d.secretIndex,
    signatureTimestamp: d.signatureTimestamp,
  });
}

export const encodeClientFrame = (frame: ClientFrame): string => JSON.stringify(frame);

const isSeq = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isTime = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const nullableInt = (v: unknown): v is number | null => v === null || (Number.isSafeInteger(v) && (v as number) >= 0);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_TEXT = 256;
const MAX_HEADERS = 200;

function object(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the frame is not JSON';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'the frame is not a JSON object';
  return value as Record<string, unknown>;
}

/** A frame the client received from the server, checked. */
export function parseServerFrame(text: string): Parsed<ServerFrame> {
  const f = object(text);
  if (typeof f === 'string') return { ok: false, message: f };
  switch (f.type) {
    case 'hello':
      if (f.protocol !== 1) return { ok: false, message: `hello: protocol ${JSON.stringify(f.protocol)} is not 1` };
      if (typeof f.subscriber !== 'string' || f.subscriber.length === 0 || f.subscriber.length > MAX_TEXT) return { ok: false, message: 'hello: subscriber must be a name' };
      if (!isSeq(f.cursor) || !isSeq(f.latest)) return { ok: false, message: 'hello: cursor and latest must be sequence numbers' };
      if (!Number.isSafeInteger(f.credit) || (f.credit as number) < 1) return { ok: false, message: 'hello: credit must be a positive integer' };
      return { ok: true, frame: { type: 'hello', protocol: 1, subscriber: f.subscriber, cursor: f.cursor, latest: f.latest, credit: f.credit as number } };
    case 'live':
      return { ok: true, frame: { type: 'live' } };
    case 'delivery':
      return parseDelivery(f);
    default:
      return { ok: false, message: `unknown frame type ${JSON.stringify(f.type)?.slice(0, 40)}` };
  }
}

function parseDelivery(f: Record<string, unknown>): Parsed<ServerFrame> {
  if (!isSeq(f.seq) || f.seq === 0) return { ok: false, message: 'delivery: seq must be a positive integer' };
  const text = (name: string) => typeof f[name] === 'string' && (f[name] as string).length > 0 && (f[name] as string).length <= MAX_TEXT;
  if (!text('id')) return { ok: false, message: 'delivery: id must be a string of 1 to 256 characters' };
  if (!text('trigger')) return { ok: false, message: 'delivery: trigger must be a string of 1 to 256 characters' };
  if (!isTime(f.receivedAt)) return { ok: false, message: 'delivery: receivedAt must be a time in ms' };
  if (f.signature !== 'valid' && f.signature !== 'skipped') return { ok: false, message: 'delivery: signature must be "valid" or "skipped"' };
  if (!nullableInt(f.secretIndex) || !nullableInt(f.signatureTimestamp)) return { ok: false, message: 'delivery: secretIndex and signatureTimestamp must be integers or null' };
  if (!Array.isArray(f.headers) || f.headers.length > MAX_HEADERS) return { ok: false, message: `delivery: headers must be a list of at most ${MAX_HEADERS} [name, value] pairs` };
  const headers: Array<[string, string]> = [];
  for (const pair of f.headers as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return { ok: false, message: 'delivery: each header must be a [name, value] pair of strings' };
    if (!HEADER_NAME.test(pair[0])) return { ok: false, message: 'delivery: a header name is not a valid token' };
    if (/[\r\n\0]/.test(pair[1])) return { ok: false, message: 'delivery: a header value holds CR, LF or NUL' };
    headers.push([pair[0], pair[1]]);
  }
  if (typeof f.body !== 'string' || f.body.length % 4 !== 0 || !BASE64.test(f.body)) return { ok: false, message: 'delivery: body must be base64' };
  return {
    ok: true,
    frame: {
      type: 'delivery',
      delivery: {
        seq: f.seq,
        id: f.id as string,
        trigger: f.trigger as string,
        receivedAt: f.receivedAt,
        headers,
        body: Buffer.from(f.body, 'base64'),
        signature: f.signature,
        secretIndex: f.secretIndex,
        signatureTimestamp: f.signatureTimestamp,
      },
    },
  };
}

/** A frame the server received from a client, checked. */
export function parseClientFrame(text: string): Parsed<ClientFrame> {
  const f = object(text);
  if (typeof f === 'string') return { ok: false, message: f };
  if (f.type !== 'ack') return { ok: false, message: `unknown frame type ${JSON.stringify(f.type)?.slice(0, 40)}` };
  if (!isSeq(f.seq)) return { ok: false, message: 'ack: seq must be a sequence number' };
  return { ok: true, frame: { type: 'ack', seq: f.seq } };
}

/**
 * A close reason as a WebSocket allows it: at most 123 bytes. Printable ASCII only, so a hostile
 * frame's text can neither overflow it (ws throws) nor put control characters on a terminal.
 */
export function closeReason(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 120);
}

/** A subscriber name as the client sends it: what a host name or a person's handle holds. */
export function isSubscriberName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name);
}
