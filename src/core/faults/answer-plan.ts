/**
 * Turns a rule that fired into a concrete plan for the HTTP layer, with the texts to record:
 * the attempt's `reason` (`fault:503 retry-after=120 attempt=1`), its status and Retry-After,
 * and a one-line summary for the terminal.
 */
import { errorEnvelope } from '../error-envelope.js';
import { asciiOnly } from '../printable-text.js';
import type { RandomSource } from '../seeded-random.js';
import { statusAllowsBody } from './field-checks.js';
import { formatFaultRule } from './format-rule.js';
import { buildHopPath, makeHopNonce, type HopRef } from './hop-path.js';
import { resolveRetryAfter } from './retry-after.js';
import type { FaultRule, RedirectStatus } from './rule.js';

export type AnswerPlan =
  /** Send this status, these headers in order, this body (UTF-8); hookrelay sets content-length. */
  | { kind: 'respond'; status: number; headers: Array<[name: string, value: string]>; body: string }
  /** Wait `ms`, then handle the arrival normally (no further rule). */
  | { kind: 'delay'; ms: number }
  /**
   * Never answer; keep the socket until the client gives up. With `slowHeaders`, write
   * `statusLine` raw to the socket first and nothing after it.
   */
  | { kind: 'hang'; slowHeaders: boolean; statusLine: string | null }
  /** Destroy the socket with a TCP RST (`socket.resetAndDestroy()`): the client sees ECONNRESET. */
  | { kind: 'reset' }
  /** End the socket cleanly (FIN) without writing a response. */
  | { kind: 'close' }
  /**
   * Answer `status` with an empty body and, when `location` is not null, that Location.
   * `hopsLeft` counts the redirects still to come after this one (0 at the last).
   */
  | { kind: 'redirect'; status: RedirectStatus; location: string | null; hopsLeft: number }
  /** Handle the arrival normally. */
  | { kind: 'pass' };

export interface FaultPlan {
  plan: AnswerPlan;
  /** For AttemptRecord.reason: `fault:` and the rule's canonical one-line form (clipped). */
  reason: string;
  /** For AttemptRecord.status: the status sent, null when none is (hang, reset, close, delay, pass). */
  status: number | null;
  /** For AttemptRecord.retryAfter: the Retry-After value sent, if any. */
  retryAfter: string | null;
  /** One line for the terminal, e.g. `answered 503 with Retry-After 120 (rule: 503 retry-after=120 attempt=1)`. */
  summary: string;
}

export interface PlanContext {
  /** The moment of answering, in ms since the epoch: relative Retry-After dates count from it. */
  nowMs: number;
  /** The receiver's path (`/webhooks`): redirect chains are served under it. */
  basePath: string;
  /** Draws the nonce of a redirect chain; called only for `redirect hops=N`. */
  random: RandomSource;
}

/** Written raw by `hang slow-headers`: a status line, then nothing. */
export const SLOW_HEADERS_STATUS_LINE = 'HTTP/1.1 200 OK\r\n';
/** Response header naming the fault, for people reading responses with curl; a rule's own header of that name wins. */
export const FAULT_HEADER = 'x-hookrelay-fault';
/** `code` of the error envelope sent when a 4xx/5xx rule gives no body (spec 7 shape). */
export const FAULT_ERROR_CODE = 'FAULT_INJECTED';

const MAX_REASON_LENGTH = 300;

/**
 * The plan for `rule`'s answer at `ctx.nowMs`: Retry-After resolved (a relative date becomes
 * an HTTP date from the injected clock), a 4xx/5xx without a chosen body given the spec's
 * error envelope, a redirect chain's first Location built. Never throws for a valid rule.
 */
export function planFaultAnswer(rule: FaultRule, ctx: PlanContext): FaultPlan {
  const formatted = formatFaultRule(rule);
  const reason = clip(`fault:${formatted}`, MAX_REASON_LENGTH);
  const about = `(rule: ${clip(formatted, 120)})`;
  const a = rule.answer;
  switch (a.kind) {
    case 'status': {
      const headers: Array<[string, string]> = [...(a.headers ?? [])];
      const has = (name: string) => headers.some(([n]) => n.toLowerCase() === name);
      const retryAfter = a.retryAfter !== undefined ? resolveRetryAfter(a.retryAfter, ctx.nowMs) : headerValue(headers, 'retry-after');
      if (a.retryAfter !== undefined) headers.push(['retry-after', retryAfter!]);
      let body = '';
      if (!statusAllowsBody(a.status)) {
        body = '';
      } else if (a.body !== undefined) {
        body = a.body;
        if (!has('content-type')) headers.push(['content-type', 'text/plain; charset=utf-8']);
      } else if (a.status >= 400) {
        body = faultEnvelope(a.status, formatted, ctx.nowMs);
        if (!has('content-type')) headers.push(['content-type', 'application/json; charset=utf-8']);
      }
      if (!has(FAULT_HEADER)) headers.push([FAULT_HEADER, headerSafe(reason)]);
      const summary = `answered ${a.status}${retryAfter !== null ? ` with Retry-After ${retryAfter}` : ''} ${about}`;
      return { plan: { kind: 'respond', status: a.status, headers, body }, reason, status: a.status, retryAfter, summary };
    }
    case 'delay':
      return { plan: { kind: 'delay', ms: a.ms }, reason, status: null, retryAfter: null, summary: `delaying ${a.ms} ms, then handling normally ${about}` };
    case 'hang':
      return {
        plan: { kind: 'hang', slowHeaders: a.slowHeaders, statusLine: a.slowHeaders ? SLOW_HEADERS_STATUS_LINE : null },
        reason,
        status: null,
        retryAfter: null,
        summary: `${a.slowHeaders ? 'hanging after the status line (slow headers)' : 'hanging without an answer'} ${about}`,
      };
    case 'reset':
      return { plan: { kind: 'reset' }, reason, status: null, retryAfter: null, summary: `resetting the connection ${about}` };
    case 'close':
      return { plan: { kind: 'close' }, reason, status: null, retryAfter: null, summary: `closing the connection without an answer ${about}` };
    case 'accept':
      return { plan: { kind: 'pass' }, reason, status: null, retryAfter: null, summary: `handling normally ${about}` };
    case 'redirect': {
      if (a.hops === null) {
        return {
          plan: { kind: 'redirect', status: a.status, location: null, hopsLeft: 0 },
          reason,
          status: a.status,
          retryAfter: null,
          summary: `answered ${a.status} without Location ${about}`,
        };
      }
      // Only 307/308 pass validation with hops (they keep the POST).
      const ref: HopRef = { hop: 1, total: a.hops, status: a.status as 307 | 308, nonce: makeHopNonce(ctx.random) };
      return {
        plan: { kind: 'redirect', status: a.status, location: buildHopPath(ctx.basePath, ref), hopsLeft: a.hops - 1 },
        reason,
        status: a.status,
        retryAfter: null,
        summary: `redirecting (${a.status}), hop 1 of ${a.hops} ${about}`,
      };
    }
  }
}

/**
 * The plan for an arrival on a hop path: a redirect to the next hop while `ref.hop < ref.total`,
 * else normal handling (no fault rule is consulted again for a chain's last hop).
 */
export function planHopArrival(ref: HopRef, basePath: string): FaultPlan {
  const reason = `fault-hop:${ref.hop}/${ref.total}`;
  if (ref.hop >= ref.total) {
    return { plan: { kind: 'pass' }, reason, status: null, retryAfter: null, summary: `hop ${ref.hop} of ${ref.total} reached: handling normally` };
  }
  const next: HopRef = { ...ref, hop: ref.hop + 1 };
  return {
    plan: { kind: 'redirect', status: ref.status, location: buildHopPath(basePath, next), hopsLeft: ref.total - next.hop },
    reason,
    status: ref.status,
    retryAfter: null,
    summary: `redirecting (${ref.status}), hop ${next.hop} of ${ref.total}`,
  };
}

function faultEnvelope(status: number, formatted: string, nowMs: number): string {
  const at = Number.isFinite(nowMs) && Math.abs(nowMs) <= 8.64e15 ? nowMs : null;
  return JSON.stringify(errorEnvelope(FAULT_ERROR_CODE, `injected fault: ${clip(formatted, 200)}`, at, { details: { status } }));
}

function headerValue(headers: Array<[string, string]>, name: string): string | null {
  const found = headers.find(([n]) => n.toLowerCase() === name);
  return found ? found[1] : null;
}

/** Keeps a header value within printable ASCII so node never refuses it. */
const headerSafe = (text: string): string => asciiOnly(text);

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
