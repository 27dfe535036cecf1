/**
 * The bridge protocol (docs/bridge.md) over one WebSocket. Version 1: JSON text frames, the body as
 * base64 of its exact bytes. Version 2: the same, except that a delivery is one binary frame
 * (encodeDeliveryFrame below), so neither side builds or parses JSON or base64 per delivery. Pure: every
 * frame that crosses is checked here, field by field, and a frame that is not exactly right is
 * refused with a message that names what is wrong.
 */
import { isUtf8 } from 'node:buffer';
import {
  headerCountProblem,
  headerNameProblem,
  joinHeaderPairs,
  MAX_HEADER_LINES,
  MAX_HEADER_NAME_LENGTH,
  MAX_ID_LENGTH,
} from './limits.js';
import { asciiOnly } from './printable-text.js';

export const BRIDGE_PROTOCOL = 'hookrelay-bridge.1';
export const BRIDGE_PROTOCOL_2 = 'hookrelay-bridge.2';
/** The subprotocols this side speaks, newest first: the client offers them in this order, and the server picks the first of them it is offered. */
export const BRIDGE_PROTOCOLS = [BRIDGE_PROTOCOL_2, BRIDGE_PROTOCOL] as const;
export type BridgeVersion = 1 | 2;

/** The version a negotiated subprotocol names, or null for one this side does not speak. */
export function bridgeVersion(subprotocol: string): BridgeVersion | null {
  return subprotocol === BRIDGE_PROTOCOL_2 ? 2 : subprotocol === BRIDGE_PROTOCOL ? 1 : null;
}
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
  /**
   * Set by the parsers when the frame carried this delivery intact (its seq and its end are known)
   * but the delivery breaks a limit of core/limits.ts or a rule of the protocol: why. The client
   * records it as a delivery it could not take, acknowledges that record, and moves on; the fields
   * above then hold what could be read (headers that pass, ids as decoded).
   */
  untaken?: string;
}

export type ServerFrame =
  | {
      type: 'hello';
      protocol: BridgeVersion;
      subscriber: string;
      cursor: number;
      latest: number;
      credit: number;
      /**
       * Optional: how many deliveries after `cursor`, up to `latest`, this subscriber will be sent
       * (its token's triggers only). A server that does not count leaves it out.
       */
      missed?: number;
    }
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
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_TEXT = MAX_ID_LENGTH;

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
      if (f.protocol !== 1 && f.protocol !== 2) return { ok: false, message: `hello: protocol ${JSON.stringify(f.protocol)?.slice(0, 40)} is not 1 or 2` };
      if (typeof f.subscriber !== 'string' || f.subscriber.length === 0 || f.subscriber.length > MAX_TEXT) return { ok: false, message: 'hello: subscriber must be a name' };
      if (!isSeq(f.cursor) || !isSeq(f.latest)) return { ok: false, message: 'hello: cursor and latest must be sequence numbers' };
      if (!Number.isSafeInteger(f.credit) || (f.credit as number) < 1) return { ok: false, message: 'hello: credit must be a positive integer' };
      // Seqs are unique integers: no more deliveries lie after the cursor than seqs up to latest.
      if (f.missed !== undefined && (!isSeq(f.missed) || f.missed > Math.max(0, f.latest - f.cursor))) return { ok: false, message: 'hello: missed must be a whole number of at most latest - cursor' };
      return { ok: true, frame: { type: 'hello', protocol: f.protocol, subscriber: f.subscriber, cursor: f.cursor, latest: f.latest, credit: f.credit as number, ...(f.missed !== undefined ? { missed: f.missed } : {}) } };
    case 'live':
      return { ok: true, frame: { type: 'live' } };
    case 'delivery':
      return parseDelivery(f);
    default:
      return { ok: false, message: `unknown frame type ${JSON.stringify(f.type)?.slice(0, 40)}` };
  }
}

/** One header pair as HTTP allows it (the length limits are core/limits.ts's, checked on the whole list). */
function headerProblem(name: string, value: string): string | null {
  if (!HEADER_TOKEN.test(name)) return 'delivery: a header name is not a valid token';
  if (/[\r\n\0]/.test(value)) return 'delivery: a header value holds CR, LF or NUL';
  return null;
}

/** The pairs that pass headerProblem, no more than the limit allows: what is kept of a delivery the client cannot take. */
function keptPairs(pairs: ReadonlyArray<readonly [string, string]>): Array<[string, string]> {
  const kept: Array<[string, string]> = [];
  for (const [name, value] of pairs) {
    if (kept.length === MAX_HEADER_LINES) break;
    if (name.length <= MAX_HEADER_NAME_LENGTH && headerProblem(name, value) === null) kept.push([name, value]);
  }
  return kept;
}

/** The first problem of a delivery's header list of `lines` lines, of which `pairs` are the first (at most the limit's): the count, then each pair. */
function headersProblem(pairs: ReadonlyArray<readonly [string, string]>, lines: number): string | null {
  const count = headerCountProblem(lines);
  if (count) return `delivery: ${count}`;
  for (const [name, value] of pairs) {
    const problem = headerNameProblem(name) ?? headerProblem(name, value);
    if (problem) return problem.startsWith('delivery: ') ? problem : `delivery: ${problem}`;
  }
  return null;
}

function parseDelivery(f: Record<string, unknown>): Parsed<ServerFrame> {
  if (!isSeq(f.seq) || f.seq === 0) return { ok: false, message: 'delivery: seq must be a positive integer' };
  // The seq is known: from here a problem makes the delivery one the client records as not taken, not a broken frame.
  let untaken: string | undefined;
  const problem = (message: string) => (untaken ??= message);
  const text = (name: string) => typeof f[name] === 'string' && (f[name] as string).length > 0 && (f[name] as string).length <= MAX_TEXT;
  if (!text('id')) problem(`delivery: id must be a string of 1 to ${MAX_TEXT} characters`);
  if (!text('trigger')) problem(`delivery: trigger must be a string of 1 to ${MAX_TEXT} characters`);
  if (!isTime(f.receivedAt)) problem('delivery: receivedAt must be a time in ms');
  if (f.signature !== 'valid' && f.signature !== 'skipped') problem('delivery: signature must be "valid" or "skipped"');
  if (!nullableInt(f.secretIndex) || !nullableInt(f.signatureTimestamp)) problem('delivery: secretIndex and signatureTimestamp must be integers or null');
  const pairs: Array<[string, string]> = [];
  if (!Array.isArray(f.headers)) problem('delivery: headers must be a list of [name, value] pairs');
  else {
    // Past the limit nothing more of a hostile list is copied.
    for (const pair of (f.headers as unknown[]).slice(0, MAX_HEADER_LINES)) {
      if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string') pairs.push([pair[0], pair[1]]);
      else problem('delivery: each header must be a [name, value] pair of strings');
    }
    const headers = headersProblem(pairs, f.headers.length);
    if (headers) problem(headers);
  }
  const bodyOk = typeof f.body === 'string' && f.body.length % 4 === 0 && BASE64.test(f.body);
  if (!bodyOk) problem('delivery: body must be base64');
  const delivery: BridgeDelivery = {
    seq: f.seq,
    id: typeof f.id === 'string' ? f.id.slice(0, MAX_TEXT) : '',
    trigger: typeof f.trigger === 'string' ? f.trigger.slice(0, MAX_TEXT) : '',
    receivedAt: isTime(f.receivedAt) ? f.receivedAt : 0,
    headers: untaken === undefined ? pairs : keptPairs(pairs),
    body: bodyOk ? Buffer.from(f.body as string, 'base64') : Buffer.alloc(0),
    signature: f.signature === 'valid' ? 'valid' : 'skipped',
    secretIndex: nullableInt(f.secretIndex) ? f.secretIndex : null,
    signatureTimestamp: nullableInt(f.signatureTimestamp) ? f.signatureTimestamp : null,
  };
  if (untaken !== undefined) delivery.untaken = untaken;
  return { ok: true, frame: { type: 'delivery', delivery } };
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
  return asciiOnly(text, 120);
}

/** A subscriber name as the client sends it: what a host name or a person's handle holds. */
export function isSubscriberName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name);
}

/*
 * Version 2's delivery record, integers big-endian. A binary WebSocket frame holds one or more
 * records back to back (the server sends the deliveries of one read in one frame).
 *
 *   u8  1 (a delivery)
 *   u8  flags: 1 the signature was valid (else skipped), 2 secretIndex is present, 4 signatureTimestamp is present
 *   u64 seq · u64 receivedAt · u32 secretIndex · u64 signatureTimestamp   (0 where absent)
 *   u16 n, then n bytes: the id (UTF-8)
 *   u16 n, then n bytes: the trigger (UTF-8)
 *   u32 n, then n bytes: the header lines, `name: value\n` each, in arrival order (UTF-8)
 *   u32 n, then n bytes: the body; the record ends there (and the next one, if any, starts)
 */
const DELIVERY = 1;
const FLAG_VALID = 1;
const FLAG_SECRET_INDEX = 2;
const FLAG_TIMESTAMP = 4;
const FIXED = 30;
/** A u64 field must hold a safe integer: its high word stays under 2^21. */
const SAFE_HIGH = 0x200000;

/** `isWellFormed` (ES2024), which Node 20 has and the ES2023 lib does not declare. */
const wellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Whether the delivery fits the binary frame exactly: every string survives UTF-8 (a lone surrogate,
 * which HTTP cannot carry but a JSON body can, does not) and secretIndex fits 32 bits. One that does
 * not travels as version 1's JSON frame, which version 2 also allows.
 */
export function fitsDeliveryFrame(d: BridgeDelivery): boolean {
  // Version 1 allows any safe integer; the binary field holds 32 bits.
  if (d.secretIndex !== null && d.secretIndex > 0xffff_ffff) return false;
  if (!wellFormed(d.id) || !wellFormed(d.trigger)) return false;
  for (const [name, value] of d.headers) if (!wellFormed(name) || !wellFormed(value)) return false;
  return true;
}

export function encodeDeliveryFrame(d: BridgeDelivery): Buffer {
  const lines = joinHeaderPairs(d.headers);
  const idBytes = Buffer.byteLength(d.id);
  const triggerBytes = Buffer.byteLength(d.trigger);
  const linesBytes = Buffer.byteLength(lines);
  const out = Buffer.allocUnsafe(FIXED + 2 + idBytes + 2 + triggerBytes + 4 + linesBytes + 4 + d.body.length);
  out[0] = DELIVERY;
  out[1] = (d.signature === 'valid' ? FLAG_VALID : 0) | (d.secretIndex !== null ? FLAG_SECRET_INDEX : 0) | (d.signatureTimestamp !== null ? FLAG_TIMESTAMP : 0);
  writeU64(out, 2, d.seq);
  writeU64(out, 10, d.receivedAt);
  out.writeUInt32BE(d.secretIndex ?? 0, 18);
  writeU64(out, 22, d.signatureTimestamp ?? 0);
  let at = FIXED;
  out.writeUInt16BE(idBytes, at);
  at += 2 + out.write(d.id, at + 2, 'utf8');
  out.writeUInt16BE(triggerBytes, at);
  at += 2 + out.write(d.trigger, at + 2, 'utf8');
  out.writeUInt32BE(linesBytes, at);
  at += 4 + out.write(lines, at + 4, 'utf8');
  out.writeUInt32BE(d.body.length, at);
  d.body.copy(out, at + 4);
  return out;
}

function writeU64(out: Buffer, at: number, value: number): void {
  out.writeUInt32BE(Math.floor(value / 0x1_0000_0000), at);
  out.writeUInt32BE(value >>> 0, at + 4);
}

type DeliveryRecord = { ok: true; delivery: BridgeDelivery; end: number } | { ok: false; message: string };

/**
 * A version 2 binary frame: one or more delivery records back to back, all of them checked before
 * any is given back (a frame with one bad record gives nothing). A record after the first says which it is.
 * `most`: more records than this refuse the frame (`overMost`) before the rest is read.
 */
export function parseDeliveryFrames(frame: Buffer, most = Infinity): { ok: true; deliveries: BridgeDelivery[] } | { ok: false; message: string; overMost?: true } {
  const deliveries: BridgeDelivery[] = [];
  let at = 0;
  do {
    // Past `most` (the client's credit left), nothing more of a hostile frame is decoded or copied.
    if (deliveries.length === most) return { ok: false, message: `the frame holds more than ${most} deliveries`, overMost: true };
    const record = parseRecord(frame, at);
    if (!record.ok) return deliveries.length === 0 ? record : { ok: false, message: `record ${deliveries.length + 1} of the frame: ${record.message}` };
    deliveries.push(record.delivery);
    at = record.end;
  } while (at < frame.length);
  return { ok: true, deliveries };
}

/**
 * One delivery record starting at `start`; `end` is where the next one would start. A record whose
 * framing fails (type, flags, seq, a length past the end) breaks the frame; one whose framing holds
 * but whose content does not is given back with `untaken`, so the client can record it and move on.
 */
function parseRecord(frame: Buffer, start: number): DeliveryRecord {
  const bad = (message: string): DeliveryRecord => ({ ok: false, message: `delivery: ${message}` });
  const size = frame.length - start;
  if (size > 0 && frame[start] !== DELIVERY) return { ok: false, message: `unknown binary frame type ${frame[start]}` };
  if (size < FIXED + 12) return bad(`a ${start === 0 ? 'frame' : 'record'} of ${size} bytes is too short`);
  const flags = frame[start + 1]!;
  if (flags > 7) return bad(`unknown flags ${flags}`);
  const seq = readU64(frame, start + 2);
  if (seq === null || seq === 0) return bad('seq must be a positive integer');
  let at = start + FIXED;
  const field = (lengthBytes: 2 | 4, what: string): Buffer | string => {
    if (at + lengthBytes > frame.length) return `delivery: the frame ends inside ${what}`;
    const n = lengthBytes === 2 ? frame.readUInt16BE(at) : frame.readUInt32BE(at);
    const from = at + lengthBytes;
    if (from + n > frame.length) return `delivery: ${what} runs past the end of the frame`;
    at = from + n;
    return frame.subarray(from, at);
  };
  const idBytes = field(2, 'the id');
  if (typeof idBytes === 'string') return { ok: false, message: idBytes };
  const triggerBytes = field(2, 'the trigger');
  if (typeof triggerBytes === 'string') return { ok: false, message: triggerBytes };
  const lines = field(4, 'the headers');
  if (typeof lines === 'string') return { ok: false, message: lines };
  const body = field(4, 'the body');
  if (typeof body === 'string') return { ok: false, message: body };

  // The record's bounds are known: a problem from here makes it a delivery the client cannot take.
  let untaken: string | undefined;
  const problem = (message: string) => (untaken ??= `delivery: ${message}`);
  const receivedAt = readU64(frame, start + 10);
  if (receivedAt === null) problem('receivedAt must be a time in ms');
  const secretIndex = frame.readUInt32BE(start + 18);
  const signatureTimestamp = readU64(frame, start + 22);
  if (signatureTimestamp === null) problem('secretIndex and signatureTimestamp must be integers or null');
  if (!(flags & FLAG_SECRET_INDEX) && secretIndex !== 0) problem('secretIndex is absent but not 0');
  if (!(flags & FLAG_TIMESTAMP) && signatureTimestamp !== 0) problem('signatureTimestamp is absent but not 0');
  const id = text(idBytes, 'id');
  if (!id.ok) problem(id.message);
  const trigger = text(triggerBytes, 'trigger');
  if (!trigger.ok) problem(trigger.message);
  let headers: Array<[string, string]> = [];
  if (!isUtf8(lines)) problem('the headers are not UTF-8');
  else {
    const read = headerLines(lines.toString('utf8'));
    headers = read.pairs;
    if (read.problem) problem(read.problem);
    const limits = headersProblem(read.pairs, read.lines);
    if (limits) untaken ??= limits;
    if (untaken !== undefined) headers = keptPairs(read.pairs);
  }
  const delivery: BridgeDelivery = {
    seq,
    id: id.value,
    trigger: trigger.value,
    receivedAt: receivedAt ?? 0,
    headers,
    // A copy: the frame may be a view of a larger socket buffer, which the delivery must not keep alive.
    body: Buffer.from(body),
    signature: flags & FLAG_VALID ? 'valid' : 'skipped',
    secretIndex: flags & FLAG_SECRET_INDEX ? secretIndex : null,
    signatureTimestamp: flags & FLAG_TIMESTAMP ? signatureTimestamp ?? 0 : null,
  };
  if (untaken !== undefined) delivery.untaken = untaken;
  return { ok: true, end: at, delivery };
}

function readU64(frame: Buffer, at: number): number | null {
  const high = frame.readUInt32BE(at);
  return high >= SAFE_HIGH ? null : high * 0x1_0000_0000 + frame.readUInt32BE(at + 4);
}

/** An id or trigger: UTF-8 of 1 to MAX_TEXT characters, as version 1 allows; `value` is what could be read either way. */
function text(bytes: Buffer, name: string): { ok: true; value: string } | { ok: false; value: string; message: string } {
  const value = bytes.subarray(0, MAX_TEXT * 4).toString('utf8').slice(0, MAX_TEXT);
  const message = `${name} must be a string of 1 to ${MAX_TEXT} characters`;
  if (bytes.length === 0 || bytes.length > MAX_TEXT * 4 || !isUtf8(bytes)) return { ok: false, value, message };
  return bytes.toString('utf8').length > MAX_TEXT ? { ok: false, value, message } : { ok: true, value };
}

/**
 * The header lines of a version 2 frame, each line split as version 1 holds a pair, and the first
 * problem of their form (a line without ": " or without its line feed); the pairs read before it.
 */
function headerLines(block: string): { pairs: Array<[string, string]>; lines: number; problem: string | null } {
  const pairs: Array<[string, string]> = [];
  let start = 0;
  while (start < block.length) {
    const end = block.indexOf('\n', start);
    if (end < 0) return { pairs, lines: pairs.length + 1, problem: 'the header lines must each end with a line feed' };
    // Past the limit the rest is only counted: nothing more of a hostile block is copied.
    if (pairs.length === MAX_HEADER_LINES) return { pairs, lines: pairs.length + countLines(block, start), problem: null };
    const colon = block.indexOf(': ', start);
    if (colon < 0 || colon > end) return { pairs, lines: pairs.length + 1, problem: 'a header line has no ": " after its name' };
    pairs.push([block.slice(start, colon), block.slice(colon + 2, end)]);
    start = end + 1;
  }
  return { pairs, lines: pairs.length, problem: null };
}

function countLines(block: string, from: number): number {
  let lines = 0;
  for (let at = block.indexOf('\n', from); at >= 0; at = block.indexOf('\n', at + 1)) lines++;
  return lines;
}
