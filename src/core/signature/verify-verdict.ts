/**
 * The verdict of a signature check (spec 6.3) around its one HMAC step: the options, a header
 * that cannot be used, a body that is not bytes, the mismatch message, and the tolerance (both
 * ways) once a signature matched. Portable (no Node globals or modules): verify.ts (node:crypto,
 * synchronous) and the Web Crypto verify (src/kit/verify-async.ts) share it, so both answer alike.
 */
import { explainHeaderFailure, explainNotBytes, explainTimestamp, formatSeconds } from './explain-text.js';
import { hintTexts, type SignatureHint } from './signature-hint.js';
import type { SignatureHeaderFailure } from './signature-fields.js';

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

/** Options with the time given: the core reads no clock (the library's `verify` supplies the system's). */
export type TimedVerifyOptions = VerifyOptions & { nowSeconds: number };

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
 * A VerifyResult whose hints keep their ids (signature-hint.ts), for a reader that treats one hint
 * apart by its id; the public result carries the texts only (inWords).
 */
export type ExplainedResult =
  | Extract<VerifyResult, { ok: true }>
  | (Omit<Extract<VerifyResult, { ok: false }>, 'hints'> & { hints: SignatureHint[] });

/** The public VerifyResult: each hint as its text. */
export function inWords(result: ExplainedResult): VerifyResult {
  return result.ok ? result : { ...result, hints: hintTexts(result.hints) };
}

export interface CheckedOptions {
  secrets: readonly string[];
  toleranceSeconds: number;
  nowSeconds: number;
  explain: boolean;
}

/**
 * The options made whole: the secrets as a list, the default tolerance. Throws (RangeError / TypeError) for invalid options: a bad tolerance or an
 * empty secret must never silently weaken the check.
 */
export function checkOptions(options: TimedVerifyOptions): CheckedOptions {
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

  const nowSeconds = options.nowSeconds;
  if (typeof nowSeconds !== 'number' || !Number.isFinite(nowSeconds)) {
    throw new RangeError(`nowSeconds must be a finite number of unix seconds, got ${String(nowSeconds)}`);
  }
  return { secrets: secrets as readonly string[], toleranceSeconds, nowSeconds, explain: options.explain === true };
}

interface HeaderFailure {
  reason: SignatureHeaderFailure;
  message: string;
  timestamp?: number;
}

/** The refusal of a header that could not be used (with its `t` and skew when it had one). */
export function headerRefusalExplained(parsed: HeaderFailure, { nowSeconds, explain }: CheckedOptions): ExplainedResult {
  const hints = explain ? explainHeaderFailure(parsed.reason) : [];
  if (parsed.timestamp === undefined) return { ok: false, reason: parsed.reason, message: parsed.message, hints };
  const timestamp = parsed.timestamp;
  return { ok: false, reason: parsed.reason, message: parsed.message, timestamp, skewSeconds: timestamp - nowSeconds, hints };
}

/** The refusal of a body given as neither bytes nor a string. */
export function notBytesRefusalExplained(rawBody: unknown, timestamp: number, skewSeconds: number, explain: boolean): ExplainedResult {
  return {
    ok: false,
    reason: 'mismatch',
    message: 'the body is neither bytes nor a string, so no signature can match it',
    timestamp,
    skewSeconds,
    hints: explain ? explainNotBytes(rawBody) : [],
  };
}

/** The message of a signature that matched no secret. */
export function mismatchMessage(secretCount: number, signatureCount: number): string {
  const tried = secretCount === 1 ? 'the secret' : `any of the ${secretCount} secrets`;
  const against = signatureCount === 1 ? 'the v1 signature' : `any of the ${signatureCount} v1 signatures`;
  return `signature mismatch: the HMAC of t and the body with ${tried} does not match ${against}`;
}

export interface MatchedSignature {
  timestamp: number;
  skewSeconds: number;
  secretIndex: number;
  /** For each v1 of the header: whether it equals the digest of the matching secret. */
  matched: readonly boolean[];
  /** For each v1 of the header: whether it was written in uppercase hex. */
  uppercaseHex: readonly boolean[];
}

/**
 * The verdict once a signature matched: `t` within the tolerance both ways, or refused as too old or
 * in the future; accepted with UPPERCASE_HEX_NOTE when only an uppercase v1 matched.
 */
export function judgeMatchedExplained(match: MatchedSignature, { toleranceSeconds, explain }: CheckedOptions): ExplainedResult {
  const { timestamp, skewSeconds, secretIndex } = match;
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
  // A lowercase v1 that matched is what the service sends: nothing to say, whatever else the header holds.
  const lowercaseMatched = match.matched.some((matched, i) => matched && !match.uppercaseHex[i]);
  if (lowercaseMatched) return { ok: true, timestamp, secretIndex, skewSeconds };
  return { ok: true, timestamp, secretIndex, skewSeconds, notes: [UPPERCASE_HEX_NOTE] };
}

// In words, for the Web Crypto verify (src/kit/verify-async.ts), which reads no hint ids.

/** headerRefusalExplained in words. */
export function headerRefusal(parsed: HeaderFailure, checked: CheckedOptions): VerifyResult {
  return inWords(headerRefusalExplained(parsed, checked));
}

/** notBytesRefusalExplained in words. */
export function notBytesRefusal(rawBody: unknown, timestamp: number, skewSeconds: number, explain: boolean): VerifyResult {
  return inWords(notBytesRefusalExplained(rawBody, timestamp, skewSeconds, explain));
}

/** judgeMatchedExplained in words. */
export function judgeMatched(match: MatchedSignature, checked: CheckedOptions): VerifyResult {
  return inWords(judgeMatchedExplained(match, checked));
}
