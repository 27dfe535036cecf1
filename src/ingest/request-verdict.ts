/**
 * The receiver's one sequence of checks before any fault rule or the store: size (body, header lines)
 * → signature (spec 6.3) → envelope (spec 6.1), in the pipeline's order (pipeline.ts), each refusal
 * with the status and code the receiver answers with. `hookrelay verify` judges a captured request
 * with the same code, offline.
 */
import { checkEnvelope, type EnvelopeCheck, type EnvelopeProblem } from '../core/envelope.js';
import { headerLimitProblem } from '../core/limits.js';
import { ENVELOPE_CODES, SIGNATURE_CODES } from '../core/refusal-codes.js';
import { parseSignatureHeader } from '../core/signature/parse-signature-header.js';
import { verify, type VerifyFailure } from '../core/signature/verify.js';
import { countSignatureHeaders, readFacts, type Arrival, type ArrivalFacts, type ReadProblem } from './arrival.js';

export interface VerdictSettings extends SignatureSettings {
  bodyLimitBytes: number;
}

/** The check that refused an arrival: the first one that failed, as the receiver stops there. */
export type CheckName = 'size' | 'signature' | 'envelope';

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

// Why the receiver refused an arrival: the code in the error envelope and the HTTP status.

export interface Rejection {
  status: number;
  code: string;
  message: string;
}

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
