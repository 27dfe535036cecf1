/**
 * The receiver's verdict on an arrival before any fault rule or the store: size (body, header lines) → signature
 * (spec 6.3) → envelope (spec 6.1), in the pipeline's order (pipeline.ts) and through its own steps
 * (rejection.ts, signature-step.ts, core/envelope.ts), so a refusal has the code the receiver
 * answers with. `hookrelay verify` judges a captured request with it, offline.
 */
import { checkEnvelope, type EnvelopeCheck } from '../core/envelope.js';
import { readFacts, type Arrival, type ArrivalFacts } from './arrival.js';
import { envelopeRejection, sizeRejection, type Rejection } from './rejection.js';
import { checkSignature, type SignatureCheck, type SignatureSettings } from './signature-step.js';

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
