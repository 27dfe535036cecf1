/**
 * The receiver's verdict on one request, explained: what `hookrelay verify` prints and what the MCP
 * server's `explain_rejection` answers, from one place. The verdict is the receiver's own checks
 * (pipeline.ts), in its order and with its codes; the hints are the receiver's (rejection-hints.ts)
 * with what the reader can do about them, worded for where the request came from.
 */
import { decodeBodyLeniently } from '../core/envelope.js';
import { inWords, type ExplainedResult } from '../core/signature/verify-verdict.js';
import { roundSeconds } from '../core/signature/verify.js';
import type { Arrival } from './arrival.js';
import { explainSignature, missingHeaderHint, receiverRefusal } from './rejection-hints.js';
import { judgeArrival, type RequestVerdict } from './pipeline.js';

/** Where the request came from: a capture file, `verify`'s flags, or an attempt the store kept. */
export type RequestSource = 'capture' | 'flags' | 'stored';

export interface ExplainSettings {
  secrets: readonly string[];
  toleranceSeconds: number;
  bodyLimitBytes: number;
}

export interface ExplainedRequest {
  verdict: RequestVerdict;
  /** The signature check with its explanation; null when the receiver would not get that far. */
  signature: ExplainedResult | null;
  hints: string[];
}

/** The receiver's verdict on `arrival`, and its signature check again with explanations (extra HMACs the receiver spends only on a refusal). */
export function explainRequest(arrival: Arrival, settings: ExplainSettings, source: RequestSource): ExplainedRequest {
  const verdict = judgeArrival(arrival, { secrets: [...settings.secrets], toleranceSeconds: settings.toleranceSeconds, skipVerify: false, bodyLimitBytes: settings.bodyLimitBytes });
  const signature = explainSignature(arrival, { secrets: [...settings.secrets], toleranceSeconds: settings.toleranceSeconds, skipVerify: false });
  return { verdict, signature, hints: hintsFor(verdict, signature, arrival, source, settings.bodyLimitBytes, settings.secrets.length) };
}

/**
 * A request whose signature an export redacted: every other check, in the receiver's order, with
 * the signature's taken as passed. A refusal by one of them is the receiver's answer whatever the signature.
 */
export function explainRedacted(arrival: Arrival, settings: Omit<ExplainSettings, 'secrets'>, source: RequestSource): { verdict: RequestVerdict; hints: string[] } {
  const verdict = judgeArrival(arrival, { secrets: [], toleranceSeconds: settings.toleranceSeconds, skipVerify: true, bodyLimitBytes: settings.bodyLimitBytes });
  return { verdict, hints: hintsFor(verdict, null, arrival, source, settings.bodyLimitBytes, 0) };
}

/**
 * Hints on a refusal: the receiver's own, in its words (receiverRefusal, which every rejected
 * attempt's hints come from too), with what the reader can do: judge with another --body-limit,
 * and give the headers the envelope check needs. Not the library's general question on a mismatch
 * ("are you passing the raw request body?"): verify judges the bytes it is given, as the receiver does.
 */
function hintsFor(verdict: RequestVerdict, signature: ExplainedResult | null, arrival: Arrival, source: RequestSource, bodyLimitBytes: number, secretCount: number): string[] {
  if (verdict.ok) return [];
  const { hints, missing } = receiverRefusal(arrival, { check: verdict.check, code: verdict.rejection.code, signature, bodyLimitBytes }, secretCount);
  if (verdict.check === 'size') return source === 'stored' ? hints : hints.map((hint) => `${hint} (judged with listen's setting; pass --body-limit to judge with another)`);
  if (missing.length === 0) return hints;
  if (source === 'stored') return [...hints, missingHeaderHint(missing)!];
  if (source === 'capture') {
    return [...hints, `the capture has no ${missing.map((m) => m.header).join(' or ')} line: capture the request with all its headers (the service sends x-service-delivery, x-service-event, x-service-delivery-attempt and x-service-signature)`];
  }
  // checkEnvelope parsed this body before it compared the headers.
  const body = JSON.parse(decodeBodyLeniently(arrival.rawBody)) as Record<string, string>;
  const flags = missing.map(({ header, field }) => `--header '${header}: ${SHELL_SAFE.test(body[field] ?? '') ? body[field] : `<the body's "${field}">`}'`);
  return [...hints, `the headers are part of the receiver's check: add ${flags.join(' ')}`];
}

const SHELL_SAFE = /^[\w.:@/+=-]+$/;

/** An explained verdict as `verify --json` prints it. */
export function explainedJson({ verdict, signature: explained, hints }: ExplainedRequest) {
  const signature = explained && inWords(explained);
  const rounded = signature && signature.skewSeconds !== undefined ? { ...signature, skewSeconds: roundSeconds(signature.skewSeconds) } : signature;
  return {
    verdict: verdict.ok
      ? { accepted: true, status: 200 }
      : { accepted: false, status: verdict.rejection.status, code: verdict.rejection.code, message: verdict.rejection.message, check: verdict.check, hints },
    signature: rounded,
    envelope: verdict.ok
      ? { ok: true, id: verdict.envelope.envelope.id, type: verdict.envelope.envelope.type, apiVersionKnown: verdict.envelope.apiVersionKnown }
      : verdict.check === 'envelope' ? { ok: false, code: verdict.rejection.code, message: verdict.rejection.message } : null,
  };
}

/** A verdict with the signature redacted as `verify --json` prints it. */
export function redactedJson({ verdict, hints }: { verdict: RequestVerdict; hints: string[] }) {
  return {
    verdict: verdict.ok
      ? { accepted: null, status: null, signatureRedacted: true }
      : { accepted: false, status: verdict.rejection.status, code: verdict.rejection.code, message: verdict.rejection.message, check: verdict.check, hints, signatureRedacted: true },
    signature: { redacted: true },
    envelope: verdict.ok ? { ok: true, id: verdict.envelope.envelope.id, type: verdict.envelope.envelope.type } : verdict.check === 'envelope' ? { ok: false, code: verdict.rejection.code } : null,
  };
}
