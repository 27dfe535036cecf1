/**
 * Packs write requests into one Buffer whose memory is transferred to the writer thread, not
 * cloned. Cloning was the largest cost of the hand-off: a body Buffer is often a view into a
 * larger socket buffer, and structured clone copies the whole of it. The writer thread unpacks
 * them here too: an attempt as the text of its columns (PackedAttempt), and the code it answers
 * each request with (OUTCOME).
 */
import { cappedId } from '../../core/envelope-check.js';
import { joinHeaderPairs, joinHeaders } from '../../core/limits.js';
import { hintsColumn } from '../rows.js';
import type { AttemptInput, AttemptOutcome, NewDelivery, RelayOutcome, SignatureState } from '../store.js';
import type { OpRequest, PackedAnswer } from './writer-ops.js';

/** What the writer answers each request with, by index: a code per request in WriteResults (writer-ops.ts). */
export const OUTCOME_CODES = ['failed', 'accepted', 'duplicate', 'recorded'] as const;

/** The code of each outcome, as the writer sends it (an index into OUTCOME_CODES). */
export const OUTCOME = { failed: 0, accepted: 1, duplicate: 2, recorded: 3 } as const satisfies Record<(typeof OUTCOME_CODES)[number], number>;

/** Rare writes (relay outcomes, requeue, delete) travel as a named operation with JSON arguments, typed by writer-ops.ts. */
export type { StoreOpName } from './writer-ops.js';

export type WriteRequest =
  | { kind: 'accept'; ticket: number; delivery: NewDelivery; attempt: AttemptInput }
  | { kind: 'attempt'; ticket: number; attempt: AttemptInput }
  | OpRequest;

/** A delivery as the writer reads it back: headers already joined into lines. */
export interface PackedDelivery extends Omit<NewDelivery, 'rawHeaders'> {
  headerLines: string;
}

export type { PackedAnswer } from './writer-ops.js';

export type DecodedRequest =
  | { kind: 'accept'; ticket: number; delivery: PackedDelivery; attempt: PackedAttempt }
  | { kind: 'attempt'; ticket: number; attempt: PackedAttempt }
  | Exclude<OpRequest, { name: 'recordRelay' }>
  /** A `recordRelay` operation: its answer's body travels as bytes, not as JSON numbers. */
  | { kind: 'relay'; ticket: number; outcome: Omit<RelayOutcome, 'answer'>; answer: PackedAnswer | null };

/**
 * An attempt as the writer stores it: its hints and its kept request's header lines already as
 * their columns' text, made once on the main thread and never parsed back.
 */
export type PackedAttempt = Omit<AttemptInput, 'hints' | 'request'> & {
  hintsJson: string | null;
  requestLines: string | null;
  requestBody: Buffer | null;
};

const ACCEPT = 1;
const ATTEMPT = 2;
const OP = 3;
/** An accept whose attempt repeats the delivery's own fields (every one the receiver makes): only the rest travels, its finishing time included. */
const ACCEPT_SLIM = 4;
/** A `recordRelay` operation with the target's answer beside it (a Buffer in JSON would be an array of numbers). */
const RELAY = 5;

/** What an accepted attempt says that its delivery does not already say. */
function slimAttempt(d: NewDelivery, a: AttemptInput): boolean {
  return (
    a.deliveryId === cappedId(d.id) && a.trigger === cappedId(d.trigger) && a.receivedAt === d.receivedAt &&
    a.signatureTimestamp === d.signatureTimestamp && a.bodyBytes === d.rawBody.length && a.outcome === 'accepted' && a.retryAfter === null &&
    (a.hints === undefined || a.hints.length === 0)
  );
}

/** Strings up to this long are written by a loop while they are ASCII: cheaper than a call into Buffer's encoder. */
const ASCII_LOOP_MAX = 96;

class Writer {
  buf = Buffer.allocUnsafe(16 * 1024);
  view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  at = 0;
  private reserve(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }
  u8(v: number): void {
    this.reserve(1);
    this.buf[this.at++] = v;
  }
  f64(v: number | null): void {
    this.reserve(8);
    this.view.setFloat64(this.at, v === null ? NaN : v, true);
    this.at += 8;
  }
  /** As UTF-8, which has no lone surrogate: none reaches here (header strings are Latin-1, the rest come from them or from UTF-8). */
  str(v: string | null): void {
    if (v === null) return this.f64(null);
    const n = v.length;
    this.reserve(8 + n * 3);
    const start = this.at + 8;
    let written = -1;
    if (n <= ASCII_LOOP_MAX) {
      const buf = this.buf;
      let i = 0;
      for (; i < n; i++) {
        const c = v.charCodeAt(i);
        if (c > 0x7f) break;
        buf[start + i] = c;
      }
      if (i === n) written = n;
    }
    if (written < 0) written = this.buf.write(v, start, 'utf8');
    this.view.setFloat64(this.at, written, true);
    this.at = start + written;
  }
  bytes(v: Uint8Array): void {
    this.reserve(8 + v.length);
    this.view.setFloat64(this.at, v.length, true);
    this.buf.set(v, this.at + 8);
    this.at += 8 + v.length;
  }
}

class Reader {
  at = 0;
  constructor(private readonly buf: Buffer) {}
  get done(): boolean {
    return this.at >= this.buf.length;
  }
  u8(): number {
    return this.buf[this.at++]!;
  }
  f64(): number | null {
    const v = this.buf.readDoubleLE(this.at);
    this.at += 8;
    return Number.isNaN(v) ? null : v;
  }
  num(): number {
    return this.f64()!;
  }
  str(): string | null {
    const n = this.f64();
    if (n === null) return null;
    const v = this.buf.toString('utf8', this.at, this.at + n);
    this.at += n;
    return v;
  }
  bytes(): Buffer {
    const n = this.num();
    // A copy, so the row keeps no reference to the whole batch.
    const v = Buffer.from(this.buf.subarray(this.at, this.at + n));
    this.at += n;
    return v;
  }
}

function writeAttempt(w: Writer, a: AttemptInput): void {
  w.str(a.deliveryId);
  w.str(a.trigger);
  w.f64(a.receivedAt);
  w.f64(a.finishedAt);
  w.f64(a.attemptHeader);
  w.f64(a.signatureTimestamp);
  w.str(a.bodySha256);
  w.f64(a.bodyBytes);
  w.str(a.outcome);
  w.f64(a.status);
  w.str(a.reason);
  w.str(a.retryAfter);
  w.str(hintsColumn(a.hints));
  // An accepted attempt keeps nothing of its own (its delivery holds the request); a duplicate's headers are its delivery's.
  const request = a.outcome === 'accepted' ? null : (a.request ?? null);
  w.str(request === null ? null : joinHeaderPairs(request.headers));
  if (request?.body) {
    w.u8(1);
    w.bytes(request.body);
  } else w.u8(0);
}

function readAttempt(r: Reader): PackedAttempt {
  return {
    deliveryId: r.str(),
    trigger: r.str(),
    receivedAt: r.num(),
    finishedAt: r.num(),
    attemptHeader: r.f64(),
    signatureTimestamp: r.f64(),
    bodySha256: r.str()!,
    bodyBytes: r.num(),
    outcome: r.str() as AttemptOutcome,
    status: r.f64(),
    reason: r.str(),
    retryAfter: r.str(),
    hintsJson: r.str(),
    requestLines: r.str(),
    requestBody: r.u8() === 1 ? r.bytes() : null,
  };
}

/** A relay job's next state, as one byte. */
const NEXT_STATES = [null, 'done', 'pending', 'dead'] as const;

/** Field by field, not as JSON: one is written for every hand-off. */
function writeRelay(w: Writer, ticket: number, o: RelayOutcome): void {
  w.u8(RELAY);
  w.f64(ticket);
  w.f64(o.deliverySeq);
  w.f64(o.startedAt);
  w.f64(o.finishedAt);
  w.f64(o.status);
  w.str(o.error);
  w.u8(o.replay ? 1 : 0);
  w.str(o.target);
  w.f64(o.try);
  w.str(o.jobTarget ?? null);
  w.u8(o.next === null ? 0 : NEXT_STATES.indexOf(o.next.state));
  w.f64(o.next?.state === 'pending' ? o.next.nextAt : null);
  const answer = o.answer;
  if (!answer) return w.u8(0);
  w.u8(1);
  w.f64(answer.headerLines);
  w.f64(answer.bodyBytes);
  w.u8(answer.complete ? 1 : 0);
  w.f64(answer.headers.length);
  for (const [name, value] of answer.headers) {
    w.str(name);
    w.str(value);
  }
  w.bytes(answer.body);
}

function readRelay(r: Reader, ticket: number): DecodedRequest {
  const outcome: Omit<RelayOutcome, 'answer'> = {
    deliverySeq: r.num(),
    startedAt: r.num(),
    finishedAt: r.num(),
    status: r.f64(),
    error: r.str(),
    replay: r.u8() === 1,
    target: r.str()!,
    try: r.num(),
    next: null,
  };
  const jobTarget = r.str();
  if (jobTarget !== null) outcome.jobTarget = jobTarget;
  const state = NEXT_STATES[r.u8()] ?? null;
  const nextAt = r.f64();
  outcome.next = state === null ? null : state === 'pending' ? { state, nextAt: nextAt! } : { state };
  if (r.u8() === 0) return { kind: 'relay', ticket, outcome, answer: null };
  const headerLines = r.num();
  const bodyBytes = r.num();
  const complete = r.u8() === 1;
  const headers: Array<[string, string]> = [];
  for (let i = r.num(); i > 0; i--) headers.push([r.str()!, r.str()!]);
  const answer: PackedAnswer = { headerLines, bodyBytes, complete, headersJson: JSON.stringify(headers), body: r.bytes() };
  return { kind: 'relay', ticket, outcome, answer };
}

export function encodeBatch(requests: readonly WriteRequest[]): Buffer {
  const w = new Writer();
  for (const request of requests) {
    if (request.kind === 'op' && request.name === 'recordRelay') {
      writeRelay(w, request.ticket, request.args[0]);
      continue;
    }
    if (request.kind === 'op') {
      w.u8(OP);
      w.f64(request.ticket);
      w.str(request.name);
      w.str(JSON.stringify(request.args));
      continue;
    }
    const slim = request.kind === 'accept' && slimAttempt(request.delivery, request.attempt);
    w.u8(slim ? ACCEPT_SLIM : request.kind === 'accept' ? ACCEPT : ATTEMPT);
    w.f64(request.ticket);
    if (slim) {
      const a = request.attempt;
      w.f64(a.attemptHeader);
      w.f64(a.finishedAt);
      w.str(a.bodySha256);
      w.f64(a.status);
      w.str(a.reason);
    } else writeAttempt(w, request.attempt);
    if (request.kind === 'accept') {
      const d = request.delivery;
      w.str(d.id);
      w.str(d.trigger);
      w.str(d.apiVersion);
      w.u8(d.apiVersionKnown ? 1 : 0);
      w.f64(d.receivedAt);
      w.bytes(d.rawBody);
      w.str(joinHeaders(d.rawHeaders));
      w.str(d.signature);
      w.f64(d.secretIndex);
      w.f64(d.signatureTimestamp);
    }
  }
  return w.buf.subarray(0, w.at);
}

export function decodeBatch(buf: Buffer): DecodedRequest[] {
  const r = new Reader(buf);
  const out: DecodedRequest[] = [];
  while (!r.done) {
    const kind = r.u8();
    const ticket = r.num();
    if (kind === RELAY) {
      out.push(readRelay(r, ticket));
      continue;
    }
    if (kind === OP) {
      // Written by encodeBatch from a typed OpRequest; recordRelay never travels this way.
      out.push({ kind: 'op', ticket, name: r.str(), args: JSON.parse(r.str()!) } as Exclude<OpRequest, { name: 'recordRelay' }>);
      continue;
    }
    const slim = kind === ACCEPT_SLIM ? { attemptHeader: r.f64(), finishedAt: r.num(), bodySha256: r.str()!, status: r.f64(), reason: r.str() } : null;
    const full = slim ? null : readAttempt(r);
    if (kind === ATTEMPT) {
      out.push({ kind: 'attempt', ticket, attempt: full! });
      continue;
    }
    const delivery: PackedDelivery = {
      id: r.str()!,
      trigger: r.str()!,
      apiVersion: r.str()!,
      apiVersionKnown: r.u8() === 1,
      receivedAt: r.num(),
      rawBody: r.bytes(),
      headerLines: r.str()!,
      signature: r.str() as SignatureState,
      secretIndex: r.f64(),
      signatureTimestamp: r.f64(),
    };
    const attempt: PackedAttempt = full ?? {
      deliveryId: cappedId(delivery.id),
      trigger: cappedId(delivery.trigger),
      receivedAt: delivery.receivedAt,
      finishedAt: slim!.finishedAt,
      attemptHeader: slim!.attemptHeader,
      signatureTimestamp: delivery.signatureTimestamp,
      bodySha256: slim!.bodySha256,
      bodyBytes: delivery.rawBody.length,
      outcome: 'accepted',
      status: slim!.status,
      reason: slim!.reason,
      retryAfter: null,
      hintsJson: null,
      requestLines: null,
      requestBody: null,
    };
    out.push({ kind: 'accept', ticket, delivery, attempt });
  }
  return out;
}
