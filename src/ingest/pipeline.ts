/**
 * The ingest pipeline: one Arrival in, one Outcome out, whatever the source (an HTTP POST, or a
 * bridged delivery). Checks in the order the README gives (docs/spec-references.md says what
 * "PRODUCT.md" and "spec N.N" refer to):
 *
 *   size (413 body, 431 header lines) → [pre-verify fault rules] → signature (400) → envelope (400) → [fault rules]
 *   → [sync passthrough, copies of one id taking turns] → store + dedupe → 2xx after the commit
 *
 * The last hop of a redirect chain hookrelay serves skips the rules; the other hops are redirects.
 * Every attempt is recorded and announced by the attempt log (store-step.ts), before its answer
 * goes out. The checks before any fault rule or the store (size, signature, envelope), each refusal
 * with the status and code the receiver answers with, are the second half of this file: the
 * receiver's one sequence of them, which `hookrelay verify` runs on a captured request, offline
 * (explain-request.ts).
 */
import { checkEnvelope } from '../core/envelope-check.js';
import type { EnvelopeCheck, EnvelopeProblem } from '../core/envelope-types.js';
import { errorEnvelopeText } from '../core/error-envelope.js';
import { planHopArrival } from '../core/faults/index.js';
import { headerLimitProblem } from '../core/limits.js';
import type { RandomSource } from '../core/seeded-random.js';
import { ENVELOPE_CODES, SIGNATURE_CODES } from '../core/refusal-codes.js';
import { parseSignatureHeader, verify, type VerifyFailure } from '../core/signature/verify.js';
import type { FaultDecider } from '../faults/rules-controller.js';
import type { Passthrough } from '../handoff/passthrough.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { OutboxPort } from '../runtime/outbox-port.js';
import type { DeliveryStore } from '../store/store.js';
import { endStep, startArrival, tracingOn, type ArrivalTrace } from '../telemetry/tracing.js';
import {
  attemptOf,
  countSignatureHeaders,
  jsonAnswer,
  readFacts,
  type Arrival,
  type ArrivalFacts,
  type CheckName,
  type Outcome,
  type ReadProblem,
  type Rejection,
  type SignatureCheck,
  type SignatureSettings,
} from './arrival.js';
import { carryOutFault, type FaultStep } from './fault-outcome.js';
import { createFaultStage, NO_FAULTS } from './fault-stage.js';
import { createPassthroughStep } from './passthrough-step.js';
import { receiverHints } from './rejection-hints.js';
import { createAttemptLog, createStoreStep } from './store-step.js';

export interface IngestOptions {
  /** The receiver's path: redirect chains are served under it. */
  path: string;
  secrets: readonly string[];
  toleranceSeconds: number;
  skipVerify: boolean;
  bodyLimitBytes: number;
  store: DeliveryStore;
  hub: EventHub;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** The fault rules (issue 4); absent: every arrival is handled normally. */
  faults?: FaultDecider;
  /** Draws redirect-chain nonces (default Math.random). */
  random?: RandomSource;
  /** `--forward-mode sync`: only a 2xx from the app makes the delivery accepted. */
  passthrough?: Passthrough;
  /** Durable work's port (the relay): told of each delivery once its commit returns, never through the observer hub. */
  outbox?: OutboxPort;
}

export interface IngestPipeline {
  /** Decides one arrival: every check in order, the durable write, and the attempt's record. Rejects only on a bug (the receiver answers 500). */
  handle(arrival: Arrival): Promise<Outcome>;
}

/** Joined into the attempt's reason, e.g. `fault-hop:3/3; non-canonical signature encoding: uppercase hex`. */
const NOTE_SEPARATOR = '; ';

export function createIngestPipeline(options: IngestOptions): IngestPipeline {
  const { store, hub, clock } = options;
  const log = createAttemptLog({ store, hub, skipVerify: options.skipVerify });
  // Read on every arrival as plain fields: with no rule to decide, nothing of the fault code runs.
  const ruleStages = (options.faults ?? NO_FAULTS).stages;
  const faults = createFaultStage({ faults: options.faults ?? NO_FAULTS, store, clock, path: options.path, random: options.random ?? Math.random });
  const passthrough = options.passthrough ? createPassthroughStep(options.passthrough, store, hub) : null;
  const storeStep = createStoreStep({ log, hub, clock, skipVerify: options.skipVerify, passthrough, outbox: options.outbox ?? null });

  /**
   * A refusal's record joins the next group commit before the answer goes out, so whatever the
   * sender was told can be read back. A refusal by one of the receiver's checks (`check`) keeps
   * `hookrelay verify`'s hints on it; the record keeps the request's headers and body (store-step.ts).
   */
  async function refuse(arrival: Arrival, facts: ArrivalFacts, rejection: Rejection, signatureTimestamp: number | null, check: CheckName | null, why: string[] = []): Promise<Outcome> {
    const hints = check === null ? why : receiverHints(arrival, check, rejection.code, options);
    const now = clock();
    const attempt = attemptOf(facts, { finishedAt: now, signatureTimestamp, outcome: 'rejected', status: rejection.status, reason: rejection.code, retryAfter: null });
    if (hints.length > 0) attempt.hints = hints;
    const recorded = await log.record(attempt, arrival.requestId, arrival);
    return { action: jsonAnswer(rejection.status, errorEnvelopeText(rejection.code, rejection.message, now), rejection.code), recorded: Promise.resolve(recorded) };
  }

  /** The arrival's span (tracing on only: telemetry/tracing.ts), ended with the attempt's record. */
  async function traced(arrival: Arrival, trace: ArrivalTrace): Promise<Outcome> {
    let outcome: Outcome;
    try {
      outcome = await decide(arrival, trace);
    } catch (err) {
      trace.fail(err);
      throw err;
    }
    const { action } = outcome;
    trace.answered(action.kind, 'status' in action ? action.status : undefined);
    outcome.recorded.then((record) => trace.end(record), (err: unknown) => trace.fail(err));
    return outcome;
  }

  // Asked once, as the node is built after tracing started (build-node.ts): with tracing off an arrival calls nothing of it.
  const tracing = tracingOn();
  function handle(arrival: Arrival): Promise<Outcome> {
    const trace = tracing ? startArrival(arrival) : null;
    return trace === null ? decide(arrival, null) : traced(arrival, trace);
  }

  async function decide(arrival: Arrival, trace: ArrivalTrace | null): Promise<Outcome> {
    const facts = readFacts(arrival);
    if (arrival.untaken !== undefined) return refuse(arrival, facts, untakenRejection(arrival.untaken), null, null, [arrival.untaken]);
    const size = sizeRejection(arrival, options.bodyLimitBytes);
    if (size) return refuse(arrival, facts, size, null, 'size');

    // Notes for the record of an arrival handled normally: the fault rule or hop that let it through first.
    const notes: string[] = [];
    // At most one rule answers an arrival: a pre-verify rule that fired, or a hop, settles it.
    let faultsSettled = false;
    const settle = (step: FaultStep): Outcome | null => {
      if (step.answered) return step.outcome;
      notes.push(step.note);
      faultsSettled = true;
      return null;
    };

    // A bridged delivery was answered upstream already: the fault rules are for the service's retries.
    const bridged = arrival.source === 'bridge';
    if (bridged) faultsSettled = true;
    else if (arrival.hop) {
      const answered = settle(await carryOutFault(planHopArrival(arrival.hop, options.path), { arrival, facts, signatureTimestamp: null, log, clock }));
      if (answered) return answered;
    } else if (ruleStages.pre.any) {
      const step = trace?.step('fault_rules');
      const fault = await faults.decide(facts, false);
      if (step) endStep(step, fault ? 'fired' : 'none');
      const answered = fault && settle(await carryOutFault(fault, { arrival, facts, signatureTimestamp: null, log, clock }));
      if (answered) return answered;
    }

    // The receiver's one sequence of checks between the fault rules, as `hookrelay verify` runs it (below).
    const verifying = trace?.step('verify');
    const verdict = checkSignedEnvelope(arrival, facts, options);
    if (verifying) endStep(verifying, verdict.ok ? 'ok' : verdict.rejection.code);
    if (!verdict.ok) return refuse(arrival, facts, verdict.rejection, verdict.signatureTimestamp, verdict.check);
    const { signature, envelope: checked } = verdict;

    if (!faultsSettled && ruleStages.post.any) {
      const step = trace?.step('fault_rules');
      const fault = await faults.decide(facts, true);
      if (step) endStep(step, fault ? 'fired' : 'none');
      const answered = fault && settle(await carryOutFault(fault, { arrival, facts, signatureTimestamp: signature.timestamp, log, clock }));
      if (answered) return answered;
    }
    notes.push(...signature.notes);

    const accept = async (): Promise<Outcome> => {
      const handOn = passthrough ? await passthrough.handOn(arrival, checked.envelope.id, trace?.context) : null;
      if (handOn?.kind === 'refused') return refuse(arrival, facts, handOn.rejection, signature.timestamp, null, handOn.hints);
      const handedOn = handOn?.kind === 'handed-on' ? handOn.handedOn : null;
      // finishedAt: the outcome is decided (after any delay and the app's answer); the commit that holds this record follows.
      const attempt = attemptOf(facts, {
        finishedAt: clock(),
        signatureTimestamp: signature.timestamp,
        outcome: 'accepted',
        status: handedOn?.answer.status ?? 200,
        reason: notes.length > 0 ? notes.join(NOTE_SEPARATOR) : null,
        retryAfter: null,
      });
      return storeStep({ arrival, checked, signature, attempt, handedOn, trace });
    };
    // Sync passthrough: the app answers first; copies of one id take turns, so only one reaches it.
    return passthrough ? passthrough.inTurn(checked.envelope.id, accept) : accept();
  }

  return { handle };
}

// The receiver's one sequence of checks before any fault rule or the store: size (body, header
// lines) → signature (spec 6.3) → envelope (spec 6.1), each refusal with its status and code.

export interface VerdictSettings extends SignatureSettings {
  bodyLimitBytes: number;
}

export type RequestVerdict =
  | { ok: true; signature: Extract<SignatureCheck, { ok: true }>; envelope: Extract<EnvelopeCheck, { ok: true }> }
  | {
      ok: false;
      check: CheckName;
      rejection: Rejection;
      /** Present once the signature check ran (the envelope failed after it passed). */
      signature?: Extract<SignatureCheck, { ok: true }>;
      /** The signature's `t` when it could be read, as the attempt record keeps it. */
      signatureTimestamp: number | null;
    };

/**
 * Returns the first refusal the receiver would answer, with its status and code, or `ok` with the
 * signature's and the envelope's results when every check before the fault rules passes.
 */
export function judgeArrival(arrival: Arrival, settings: VerdictSettings): RequestVerdict {
  const size = sizeRejection(arrival, settings.bodyLimitBytes);
  if (size) return { ok: false, check: 'size', rejection: size, signatureTimestamp: null };
  return checkSignedEnvelope(arrival, readFacts(arrival), settings);
}

/** The signature, then the envelope and its agreement with the headers: the two checks between the pre-verify and the other fault rules. */
export function checkSignedEnvelope(arrival: Arrival, facts: ArrivalFacts, settings: SignatureSettings): RequestVerdict {
  const signature = checkSignature(arrival, facts, settings);
  if (!signature.ok) return { ok: false, check: 'signature', rejection: signature.rejection, signatureTimestamp: signature.timestamp };
  const envelope = checkEnvelope(arrival.rawBody, { deliveryId: facts.deliveryId, event: facts.event });
  if (!envelope.ok) {
    return { ok: false, check: 'envelope', rejection: envelopeRejection(envelope.problem, envelope.message), signature, signatureTimestamp: signature.timestamp };
  }
  return { ok: true, signature, envelope };
}

// The signature check (spec 6.3) over the raw bytes: the verdict in the words the receiver answers
// with, and the notes a sender should hear about a signature that verified.

const NO_NOTES: readonly string[] = [];
const UPSTREAM_SKIPPED_NOTE = 'bridged from a hookrelay that skipped verification';

export function checkSignature(arrival: Arrival, facts: ArrivalFacts, settings: SignatureSettings): SignatureCheck {
  // A bridged delivery was verified where it arrived; this side holds none of those secrets, and
  // a backlog's `t` is as old as the delivery. The channel that carried it is authenticated.
  if (arrival.upstream) {
    const { signatureTimestamp, secretIndex, signature } = arrival.upstream;
    return { ok: true, timestamp: signatureTimestamp, secretIndex, notes: signature === 'skipped' ? [UPSTREAM_SKIPPED_NOTE] : NO_NOTES, state: signature };
  }
  if (settings.skipVerify) {
    const parsed = parseSignatureHeader(facts.signatureHeader);
    return { ok: true, timestamp: parsed.ok ? parsed.header.timestamp : null, secretIndex: null, notes: NO_NOTES };
  }
  const verdict = verify(arrival.rawBody, facts.signatureHeader, {
    secrets: settings.secrets,
    toleranceSeconds: settings.toleranceSeconds,
    nowSeconds: arrival.receivedAt / 1000,
  });
  if (verdict.ok) return { ok: true, timestamp: verdict.timestamp, secretIndex: verdict.secretIndex, notes: verdict.notes ?? NO_NOTES };
  let message = verdict.message;
  // Node joins repeated headers with ", " — a valid signature header holds no space.
  if (verdict.reason === 'malformed' && (countSignatureHeaders(arrival.rawHeaders) > 1 || /, t=/.test(facts.signatureHeader ?? ''))) {
    message = 'several x-service-signature headers: send exactly one';
  }
  return { ok: false, rejection: signatureRejection(verdict.reason, message), timestamp: verdict.timestamp ?? null };
}

// Why the receiver refused an arrival (Rejection in arrival.ts): the code in the error envelope and the HTTP status.

export const signatureRejection = (reason: VerifyFailure, message: string): Rejection => ({ status: 400, code: SIGNATURE_CODES[reason], message });

export const envelopeRejection = (problem: EnvelopeProblem, message: string): Rejection => ({ status: 400, code: ENVELOPE_CODES[problem], message });

/** A body the source could not read (fastify raises these before any handler runs). */
export function readRejection(problem: ReadProblem, bodyLimitBytes: number): Rejection {
  switch (problem) {
    case 'too_large':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: `the body is over the limit of ${bodyLimitBytes} bytes` };
    case 'bad_length':
      return { status: 400, code: 'INVALID_CONTENT_LENGTH', message: 'Content-Length does not match the body received' };
    case 'empty':
      return { status: 400, code: 'EMPTY_BODY', message: 'the body is empty' };
  }
}

/**
 * The first check of every arrival, size: a body the source could not read, or header lines over
 * the limits of core/limits.ts (431), which the bridge could not carry either. Null: the size is fine.
 */
export function sizeRejection(arrival: Arrival, bodyLimitBytes: number): Rejection | null {
  if (arrival.unread) return readRejection(arrival.unread.problem, bodyLimitBytes);
  const headers = headerLimitProblem(arrival.rawHeaders);
  return headers === null ? null : { status: 431, code: 'HEADERS_TOO_LARGE', message: `the request has ${headers}` };
}

/** Something an intake received and cannot take as a delivery (Arrival.untaken): recorded, so the intake can move past it. */
export const untakenRejection = (why: string): Rejection => ({ status: 422, code: 'BRIDGE_DELIVERY_REFUSED', message: why });
