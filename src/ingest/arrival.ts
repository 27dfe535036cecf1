/**
 * One delivery as a source hands it to the pipeline (pipeline.ts), what the pipeline reads off it
 * before deciding anything, and the Outcome it decides: what goes back on the wire, and the attempt
 * record. No socket or framework type: an HTTP POST (build-receiver.ts) and a bridged WebSocket frame
 * build the same Arrival. A source's adapter only writes the Outcome's action (HTTP:
 * build-receiver.ts); the record is made by the attempt log (store-step.ts), in the pipeline, in its
 * place relative to the answer.
 */
import { hash } from 'node:crypto';
import { cappedId } from '../core/envelope-check.js';
import type { HopRef } from '../core/faults/index.js';
import type { AttemptInput, AttemptOutcome, AttemptRecord } from '../core/records.js';
import { SIGNATURE_HEADER_NAME } from '../core/signature/signature-header.js';

/** Where an arrival came from: an HTTP POST; a bridged delivery (a WebSocket frame) later. */
export type ArrivalSource = 'http' | 'bridge';

/** A body the source could not read. Size is the first check (PRODUCT.md), so it is refused before any other. */
export type ReadProblem = 'too_large' | 'bad_length' | 'empty';

/** Header names lower-cased; a repeated header joined as Node joins it (`a, b`). */
export type ArrivalHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The sender's side of one arrival, as far as fault rules need it. */
export interface ArrivalConnection {
  /** Waits `ms` (a `delay` rule). False when the sender left first; true also on shutdown, so handling goes on at once. */
  wait(ms: number): Promise<boolean>;
  /** The moment the sender's connection ended (asked only for a `hang`, which holds it until then). */
  ended(): Promise<number>;
}

/**
 * An arrival with no sender holding a connection open (a bridged delivery: the public side answered
 * the sender; a captured request judged by `verify`): nothing to wait on, nothing that ends.
 */
export const NO_SENDER: ArrivalConnection = Object.freeze({ wait: async () => true, ended: async () => 0 });

export interface Arrival {
  source: ArrivalSource;
  /** Milliseconds since the epoch. */
  receivedAt: number;
  /** The body exactly as received (empty when the source could not read it: see `unread`). */
  rawBody: Buffer;
  headers: ArrivalHeaders;
  /** Names and values in arrival order, flat as Node's `rawHeaders`: stored as received, and counted. */
  rawHeaders: readonly string[];
  connection: ArrivalConnection;
  /** The source's id for this arrival (HTTP: also sent back as `x-request-id`). */
  requestId?: string;
  /** Set when the arrival came to a hop of a redirect chain hookrelay serves (hop-route.ts). */
  hop?: HopRef;
  /** Set when the body could not be read; `declaredBytes` is what the sender announced. */
  unread?: { problem: ReadProblem; declaredBytes: number };
  /**
   * A bridged delivery's verdict from the public hookrelay that accepted it (source `bridge`): the
   * signature was checked there, over these bytes, against secrets this side does not hold.
   */
  upstream?: UpstreamVerdict;
  /**
   * Set by an intake that received something it cannot take as a delivery, though it knows where it
   * is in its sequence (a bridged delivery that breaks a limit or a rule of the protocol): why. The
   * pipeline records it as refused (BRIDGE_DELIVERY_REFUSED) before any other check, so the intake
   * can acknowledge that record and move on instead of being sent it forever.
   */
  untaken?: string;
}

export interface UpstreamVerdict {
  signature: 'valid' | 'skipped';
  secretIndex: number | null;
  signatureTimestamp: number | null;
  /** When the public side accepted it, ms since the epoch. */
  acceptedAt: number;
}

/** What the pipeline reads off an arrival before deciding anything. */
export interface ArrivalFacts {
  receivedAt: number;
  deliveryId: string | undefined;
  event: string | undefined;
  attemptHeader: number | null;
  signatureHeader: string | undefined;
  /** Hex SHA-256 of the raw body; empty when the body was not read. */
  bodySha256: string;
  bodyBytes: number;
}

const MAX_HEADER_ATTEMPT = 1_000_000;

/** `x-service-delivery-attempt` as a positive integer, or null when absent or not one. */
export function parseAttemptHeader(value: string | readonly string[] | undefined): number | null {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,6}$/.test(value)) return null;
  const n = Number(value);
  return n <= MAX_HEADER_ATTEMPT ? n : null;
}

// Bound once at load: a module's export read per request would name signature-header.ts among the
// files a delivery runs through (test/architecture/delivery-walk.test.ts counts its getter under vitest).
const SIGNATURE = SIGNATURE_HEADER_NAME;

const single = (value: string | readonly string[] | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);

export function readFacts(arrival: Arrival): ArrivalFacts {
  const { headers, unread } = arrival;
  return {
    receivedAt: arrival.receivedAt,
    deliveryId: single(headers['x-service-delivery']),
    event: single(headers['x-service-event']),
    attemptHeader: parseAttemptHeader(headers['x-service-delivery-attempt']),
    signatureHeader: single(headers[SIGNATURE]),
    bodySha256: unread ? '' : hash('sha256', arrival.rawBody, 'hex'),
    bodyBytes: unread ? unread.declaredBytes : arrival.rawBody.length,
  };
}

/** How many `x-service-signature` header lines the request carried (Node joins repeats). */
export function countSignatureHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === SIGNATURE) count++;
  return count;
}

/** The delivery id an attempt record keeps: capped, so a hostile header cannot bloat the store. */
export const recordedId = (facts: ArrivalFacts): string | null => (facts.deliveryId === undefined ? null : cappedId(facts.deliveryId));

/**
 * An attempt's record: the fields that identify its arrival (ids and triggers capped, as
 * `recordedId`), and how it ended. Built field by field in one shape: spreading the identifying
 * fields into each record cost ~3 KB of garbage a request (measured with V8's sampling heap profiler).
 */
export function attemptOf(
  facts: ArrivalFacts,
  ending: { finishedAt: number; signatureTimestamp: number | null; outcome: AttemptOutcome; status: number | null; reason: string | null; retryAfter: string | null },
): AttemptInput {
  return {
    deliveryId: recordedId(facts),
    trigger: facts.event === undefined ? null : cappedId(facts.event),
    receivedAt: facts.receivedAt,
    finishedAt: ending.finishedAt,
    attemptHeader: facts.attemptHeader,
    signatureTimestamp: ending.signatureTimestamp,
    bodySha256: facts.bodySha256,
    bodyBytes: facts.bodyBytes,
    outcome: ending.outcome,
    status: ending.status,
    reason: ending.reason,
    retryAfter: ending.retryAfter,
  };
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export type Action =
  /**
   * The receiver's own answer: a status, and a JSON body (null: no body at all, e.g. a 204 in sync mode).
   * A refusal's `code` also goes out as ERROR_CODE_HEADER, which `hookrelay send` reads (it never reads bodies).
   */
  | { kind: 'answer'; status: number; body: string | null; code?: string }
  /** A fault rule's answer, exactly: these headers in this order, this body, and nothing else. */
  | { kind: 'fault-answer'; status: number; headers: ReadonlyArray<readonly [string, string]>; body: string }
  /** Destroy the connection with a TCP RST. */
  | { kind: 'reset' }
  /** End the connection cleanly (FIN) without a response. */
  | { kind: 'close' }
  /** Never answer (after writing `statusLine` raw, when given); hold the connection until the sender gives up. */
  | { kind: 'hang'; statusLine: string | null }
  /** The sender left already (during a delay): nothing to write. */
  | { kind: 'none' };

export interface Outcome {
  action: Action;
  /**
   * The attempt as stored and announced: one object (`seq` is 0: the store assigns the real one).
   * Settled before the Outcome is returned, so the record precedes the answer, except for a hang
   * (recorded when the connection ends) and a 503 STORE_UNAVAILABLE (the store just failed: the
   * answer does not wait for the record).
   */
  recorded: Promise<AttemptRecord>;
}

export { ERROR_CODE_HEADER } from '../core/error-code-header.js';

export const jsonAnswer = (status: number, body: string, code?: string): Action => (code === undefined ? { kind: 'answer', status, body } : { kind: 'answer', status, body, code });

// What the receiver's checks (pipeline.ts) say of an arrival, as the steps after them read it.

/** The settings of the signature check. */
export interface SignatureSettings {
  secrets: readonly string[];
  toleranceSeconds: number;
  /** --skip-verify: nothing is checked; `t` is still read for the record when the header parses. */
  skipVerify: boolean;
}

export type SignatureCheck =
  /** `secretIndex` is null when verification was skipped; `notes` go in the attempt's reason. */
  | { ok: true; timestamp: number | null; secretIndex: number | null; notes: readonly string[]; state?: 'valid' | 'skipped' }
  | { ok: false; rejection: Rejection; timestamp: number | null };

/** Why the receiver refused an arrival: the code in the error envelope and the HTTP status. */
export interface Rejection {
  status: number;
  code: string;
  message: string;
}

/** The check that refused an arrival: the first one that failed, as the receiver stops there. */
export type CheckName = 'size' | 'signature' | 'envelope';
