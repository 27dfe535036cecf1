/**
 * One POST to the app: no redirects followed, a hard timeout, and the answer kept within bounds
 * (issue 13, item 13): its header lines (the first 100, each value cut at 2 KiB) and the first
 * 4 KiB of its body. The rest of the body is read and thrown away, up to 64 KiB; past that the
 * connection is dropped.
 *
 * Through undici's `dispatch` with a handler, not `request()`: `request()` builds a response
 * stream per call, and its per-call `AbortSignal.timeout` a timer, which together cost ~20 µs of
 * a ~45 µs hand-off (measured on loopback). Deadlines share one sweeping timer instead.
 */
import type { Dispatcher } from 'undici';
import type { KeptAnswer } from '../core/records.js';
import { basicAuthorization, displayUrl } from '../core/url-secrets.js';
import { untrustedCertificate } from '../core/untrusted-certificate.js';
import { createDeadlineSweeper, type Deadline } from '../runtime/deadline-sweeper.js';

export interface TargetAnswer {
  status: number | null;
  /** Coarse reason when there was no 2xx: timeout, could not connect, … */
  error: string | null;
  latencyMs: number;
  /** What the target answered, within bounds; null when no answer came (no status line). */
  reply?: KeptAnswer | null;
}

/** Bytes of an answer's body read (and thrown away) before the connection is dropped instead. */
const DISCARD_LIMIT = 64 * 1024;
/** At most this many header lines of an answer are kept. */
export const KEPT_HEADER_LINES = 100;
/** A kept header value is cut to this many bytes. */
export const KEPT_HEADER_VALUE_BYTES = 2048;
/** The first this many bytes of an answer's body are kept. */
export const KEPT_BODY_BYTES = 4096;

const NO_BYTES = Buffer.alloc(0);

/**
 * The header lines as received (undici's raw list: name, value, name, value…), within bounds:
 * strings only for what is kept. Latin-1 is how Node reads header bytes: lossless.
 */
function keptHeaders(raw: unknown, parsed: Record<string, string | string[] | undefined>): { headers: Array<[string, string]>; lines: number } {
  // Without the raw list (a dispatcher that does not give it): undici's parsed object, lower-cased.
  const list: unknown[] = Array.isArray(raw)
    ? raw
    : Object.entries(parsed).flatMap(([name, value]) => (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((v) => [name, v]));
  const headers: Array<[string, string]> = [];
  for (let i = 0; i + 1 < list.length && headers.length < KEPT_HEADER_LINES; i += 2) {
    headers.push([text(list[i], 256), text(list[i + 1], KEPT_HEADER_VALUE_BYTES)]);
  }
  return { headers, lines: list.length >> 1 };
}

function text(value: unknown, max: number): string {
  if (Buffer.isBuffer(value)) return value.toString('latin1', 0, Math.min(value.length, max));
  const s = String(value);
  return s.length > max ? s.slice(0, max) : s;
}

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

// Every POST in flight, on one timer: a deadline is kept to within 25 ms.
const deadlines = createDeadlineSweeper(25);

interface ParsedTarget {
  origin: string;
  path: string;
  /** `Basic …` when the URL names a user or password (`http://bob:pw@…`), which dispatch would otherwise drop. */
  authorization: string | null;
}

/** Targets are few and reused: parsed once each. */
const parsedTargets = new Map<string, ParsedTarget>();
function parseTarget(url: string): ParsedTarget {
  let target = parsedTargets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, authorization: basicAuthorization(parsed) };
    if (parsedTargets.size < 64) parsedTargets.set(url, target);
  }
  return target;
}

function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT';
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  if (e.code === 'ECONNREFUSED') return 'could not connect (ECONNREFUSED)';
  const tls = describeTlsFailure(e);
  if (tls) return tls;
  return `network error (${e.code ?? e.message ?? 'unknown'})`;
}

/**
 * A TLS failure said as such: which check failed and what to do. Only hand-offs are concerned
 * (the messages name the forward flags).
 */
function describeTlsFailure(e: { code?: string; message?: string }): string | null {
  const code = e.code ?? '';
  const why = untrustedCertificate(code);
  if (why) return `TLS error: the target's certificate is not trusted: ${why} (${code}); trust it with --forward-ca FILE, or pass --forward-insecure for a local app`;
  if (code.startsWith('ERR_SSL_') || code === 'EPROTO' || code.startsWith('ERR_TLS_')) {
    const hint = code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ? ' (an https:// URL to a target that speaks plain http?)' : '';
    return `TLS error: the handshake with the target failed (${code})${hint}`;
  }
  return null;
}

/** Posts `body` to `url`; `done` is called once, with the answer (a callback: this is the relay's hot path). */
export function sendToTarget(
  dispatcher: Dispatcher,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
  done: (answer: TargetAnswer) => void,
): void {
  let target: ParsedTarget;
  try {
    target = parseTarget(url);
  } catch {
    done({ status: null, error: `network error (not a URL: ${displayUrl(url)})`, latencyMs: 0, reply: null });
    return;
  }
  // A --forward-header authorization, when given, is the one the user chose.
  if (target.authorization !== null && headers.authorization === undefined && headers.Authorization === undefined) headers = { ...headers, authorization: target.authorization };
  const post = new TargetPost(timeoutMs, done);
  deadlines.watch(post);
  try {
    dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }, post);
  } catch (err) {
    post.finish(null, describeFailure(err, timeoutMs), false);
  }
}

/**
 * One POST in flight: undici's handler and its deadline in one object, its methods on the
 * prototype (a handler of closures made six functions a hand-off).
 */
class TargetPost implements Deadline, Dispatcher.DispatchHandler {
  readonly started = performance.now();
  readonly at: number;
  watched = false;
  status: number | null = null;
  answerHeaders: ReturnType<typeof keptHeaders> | null = null;
  // The first KEPT_BODY_BYTES of the body: one exact copy for a body that comes in one chunk
  // (most answers), grown only while it is under the bound.
  kept: Buffer = NO_BYTES;
  seen = 0;
  controller: Dispatcher.DispatchController | null = null;
  expired = false;
  settled = false;

  constructor(
    readonly timeoutMs: number,
    readonly done: (answer: TargetAnswer) => void,
  ) {
    this.at = this.started + timeoutMs;
  }

  expire(): void {
    this.expired = true;
    // Not yet on a socket: aborted as soon as it is (the Agent bounds the connect itself).
    this.controller?.abort(new TimeoutError(`timeout after ${this.timeoutMs} ms`));
  }

  finish(status: number | null, error: string | null, complete: boolean): void {
    if (this.settled) return;
    this.settled = true;
    deadlines.unwatch(this);
    const reply: KeptAnswer | null =
      status === null ? null : { headers: this.answerHeaders?.headers ?? [], headerLines: this.answerHeaders?.lines ?? 0, body: this.kept, bodyBytes: this.seen, complete };
    this.done({ status, error, latencyMs: performance.now() - this.started, reply });
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.expired) c.abort(new TimeoutError(`timeout after ${this.timeoutMs} ms`));
  }

  onResponseStart(c: Dispatcher.DispatchController, statusCode: number, parsed: Record<string, string | string[] | undefined>): void {
    this.status = statusCode;
    // Every try is recorded, so these strings are all stored; undici's raw list holds the
    // names' case and the order as received, which its parsed object does not.
    this.answerHeaders = keptHeaders(c.rawHeaders, parsed);
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.kept.length < KEPT_BODY_BYTES) this.kept = keepMore(this.kept, chunk);
    this.seen += chunk.length;
    // The status is known; a body this large is not worth reading to keep the connection.
    if (this.seen > DISCARD_LIMIT) c.abort(new Error('answer body over the discard limit'));
  }

  onResponseEnd(): void {
    this.finish(this.status, errorFor(this.status!), true);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    // The status line arrived before the body failed, was cut or ran out of time: that answer stands.
    if (this.status !== null) this.finish(this.status, errorFor(this.status), false);
    else this.finish(null, describeFailure(err, this.timeoutMs), false);
  }
}

/** `kept` with the start of `chunk` after it, up to KEPT_BODY_BYTES: a copy, never a view of undici's buffer. */
function keepMore(kept: Buffer, chunk: Buffer): Buffer {
  const take = Math.min(chunk.length, KEPT_BODY_BYTES - kept.length);
  if (kept.length === 0) return Buffer.from(chunk.subarray(0, take));
  const grown = Buffer.allocUnsafe(kept.length + take);
  kept.copy(grown, 0);
  chunk.copy(grown, kept.length, 0, take);
  return grown;
}

/** Why an answer is not a success; null for a 2xx. */
function errorFor(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  return status >= 300 && status < 400 ? 'redirect not followed' : `responded ${status}`;
}
