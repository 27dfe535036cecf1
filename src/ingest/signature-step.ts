/**
 * The signature check of the pipeline (spec 6.3) over the raw bytes: the verdict, in the words the
 * receiver answers with, and the notes a sender should hear about a signature that verified.
 */
import { parseSignatureHeader } from '../core/signature/parse-signature-header.js';
import { verify } from '../core/signature/verify.js';
import { countSignatureHeaders, type Arrival, type ArrivalFacts } from './arrival.js';
import { signatureRejection, type Rejection } from './rejection.js';

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
