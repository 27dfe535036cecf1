import { bodyBytes, findMatch } from './digest.js';
import { explainHeaderFailure, explainMismatch, explainNotBytes, explainTimestamp, formatSeconds } from './explain-failure.js';
import { parseSignatureHeader } from './parse-signature-header.js';

/** Recommended window of spec 6.3, applied to the past and to the future. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Noted when a signature matched only through a `v1` written in uppercase (or mixed-case) hex: the
 * same MAC, so it is accepted, but the service sends lowercase, and receivers that compare hex
 * strings (stripe-node's scheme) reject it. Attempt records carry it as their reason.
 */
export const UPPERCASE_HEX_NOTE = 'non-canonical signature encoding: uppercase hex';

export type VerifyFailure = 'missing' | 'malformed' | 'no_signatures' | 'mismatch' | 'timestamp_too_old' | 'timestamp_in_future';

export interface VerifyOptions {
  /** Tried in order; any match accepts (rotation). Each is used as given, whitespace included. */
  secrets: string | readonly string[];
  /** Largest accepted |t - now|, past and future alike. Default 300; must be finite and > 0. */
  toleranceSeconds?: number;
  /** The current time in unix seconds (may be fractional). Defaults to the system clock. */
  nowSeconds?: number;
  /** Compute hints on failure. Costs extra HMACs: leave it off on the hot path. */
  explain?: boolean;
}

export type VerifyResult =
  | {
      ok: true;
      timestamp: number;
      secretIndex: number;
      skewSeconds: number;
      /** What a sender should hear about a signature that verified (UPPERCASE_HEX_NOTE); absent when there is nothing. */
      notes?: string[];
    }
  | { ok: false; reason: VerifyFailure; message: string; timestamp?: number; skewSeconds?: number; hints: string[] };

/**
 * Verifies a delivery's `x-service-signature` against its raw body (spec 6.3): parse the header, find a
 * v1 signature matching one of the secrets (constant-time), then check `t` against the tolerance, both ways.
 * `skewSeconds` is `t - now`: positive means `t` is in the future.
 *
 * Returns `{ok: true}` with the index of the matching secret (and `notes` when the match was only
 * through uppercase hex), or a tagged failure; any header or body,
 * however hostile, gives a result. Throws (RangeError / TypeError) only for invalid `options`, which are
 * programmer configuration: a bad tolerance or an empty secret must never silently weaken the check.
 */
export function verify(
  rawBody: Buffer | Uint8Array | string,
  header: string | readonly string[] | undefined | null,
  options: VerifyOptions,
): VerifyResult {
  const { secrets, toleranceSeconds, nowSeconds, explain } = checkOptions(options);

  const parsed = parseSignatureHeader(header);
  if (!parsed.ok) {
    const hints = explain ? explainHeaderFailure(parsed.reason) : [];
    if (parsed.timestamp === undefined) return { ok: false, reason: parsed.reason, message: parsed.message, hints };
    const timestamp = parsed.timestamp;
    return { ok: false, reason: parsed.reason, message: parsed.message, timestamp, skewSeconds: timestamp - nowSeconds, hints };
  }
  const { timestamp, timestampText, signatures } = parsed.header;
  const skewSeconds = timestamp - nowSeconds;

  const body = bodyBytes(rawBody);
  if (body === undefined) {
    return {
      ok: false,
      reason: 'mismatch',
      message: 'the body is neither bytes nor a string, so no signature can match it',
      timestamp,
      skewSeconds,
      hints: explain ? explainNotBytes(rawBody) : [],
    };
  }

  const match = findMatch(secrets, timestampText, body, signatures);
  if (match === null) {
    const tried = secrets.length === 1 ? 'the secret' : `any of the ${secrets.length} secrets`;
    const against = signatures.length === 1 ? 'the v1 signature' : `any of the ${signatures.length} v1 signatures`;
    return {
      ok: false,
      reason: 'mismatch',
      message: `signature mismatch: the HMAC of t and the body with ${tried} does not match ${against}`,
      timestamp,
      skewSeconds,
      hints: explain
        ? explainMismatch({ secrets, header: parsed.header, body, bodyWasString: typeof rawBody === 'string' })
        : [],
    };
  }

  // Checked only once the signature matched: an unsigned t says nothing about the request (spec 6.3).
  if (Math.abs(skewSeconds) > toleranceSeconds) {
    const old = skewSeconds < 0;
    const distance = `${formatSeconds(Math.abs(skewSeconds))} s ${old ? 'old' : 'in the future'}`;
    return {
      ok: false,
      reason: old ? 'timestamp_too_old' : 'timestamp_in_future',
      message: `signature valid but t is ${distance}, beyond the tolerance of ${formatSeconds(toleranceSeconds)} s`,
      timestamp,
      skewSeconds,
      hints: explain ? explainTimestamp(skewSeconds, toleranceSeconds) : [],
    };
  }
  const { secretIndex } = match;
  // A lowercase v1 that matched is what the service sends: nothing to say, whatever else the header holds.
  const lowercaseMatched = match.matched.some((matched, i) => matched && !parsed.header.uppercaseHex[i]);
  if (lowercaseMatched) return { ok: true, timestamp, secretIndex, skewSeconds };
  return { ok: true, timestamp, secretIndex, skewSeconds, notes: [UPPERCASE_HEX_NOTE] };
}

interface CheckedOptions {
  secrets: readonly string[];
  toleranceSeconds: number;
  nowSeconds: number;
  explain: boolean;
}

function checkOptions(options: VerifyOptions): CheckedOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('verify options must be an object with at least `secrets`');
  }
  const secrets: readonly unknown[] = typeof options.secrets === 'string' ? [options.secrets] : options.secrets;
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new RangeError('verify needs at least one secret');
  }
  secrets.forEach((secret, i) => {
    if (typeof secret !== 'string' || secret === '') {
      throw new RangeError(`secret #${i + 1} must be a non-empty string`);
    }
  });

  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // Tolerance 0 or a non-number must not quietly disable or break the timestamp check.
  if (typeof toleranceSeconds !== 'number' || !Number.isFinite(toleranceSeconds) || toleranceSeconds <= 0) {
    throw new RangeError(`toleranceSeconds must be a finite number of seconds greater than 0, got ${String(toleranceSeconds)}`);
  }

  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (typeof nowSeconds !== 'number' || !Number.isFinite(nowSeconds)) {
    throw new RangeError(`nowSeconds must be a finite number of unix seconds, got ${String(nowSeconds)}`);
  }
  return { secrets: secrets as readonly string[], toleranceSeconds, nowSeconds, explain: options.explain === true };
}
