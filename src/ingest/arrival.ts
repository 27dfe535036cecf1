/**
 * One delivery as a source hands it to the pipeline (pipeline.ts), and what the pipeline reads off
 * it before deciding anything. No socket or framework type: an HTTP POST (http-route.ts) and a
 * bridged WebSocket frame build the same Arrival.
 */
import { hash } from 'node:crypto';
import { cappedId } from '../core/envelope.js';
import type { HopRef } from '../core/faults/index.js';
import type { AttemptInput, AttemptOutcome } from '../core/records.js';

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

const single = (value: string | readonly string[] | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);

export function readFacts(arrival: Arrival): ArrivalFacts {
  const { headers, unread } = arrival;
  return {
    receivedAt: arrival.receivedAt,
    deliveryId: single(headers['x-service-delivery']),
    event: single(headers['x-service-event']),
    attemptHeader: parseAttemptHeader(headers['x-service-delivery-attempt']),
    signatureHeader: single(headers['x-service-signature']),
    bodySha256: unread ? '' : hash('sha256', arrival.rawBody, 'hex'),
    bodyBytes: unread ? unread.declaredBytes : arrival.rawBody.length,
  };
}

/** How many `x-service-signature` header lines the request carried (Node joins repeats). */
export function countSignatureHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'x-service-signature') count++;
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
