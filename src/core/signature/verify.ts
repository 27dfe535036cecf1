import { bodyBytes, findMatch } from './digest.js';
import { explainMismatch } from './explain-failure.js';
import { parseSignatureHeader } from './parse-signature-header.js';
import {
  checkOptions,
  headerRefusalExplained,
  inWords,
  judgeMatchedExplained,
  mismatchMessage,
  notBytesRefusalExplained,
  type ExplainedResult,
  type TimedVerifyOptions,
  type VerifyResult,
} from './verify-verdict.js';

export { DEFAULT_TOLERANCE_SECONDS, UPPERCASE_HEX_NOTE } from './verify-verdict.js';
export type { ExplainedResult, TimedVerifyOptions, VerifyFailure, VerifyOptions, VerifyResult } from './verify-verdict.js';

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
  options: TimedVerifyOptions,
): VerifyResult {
  return inWords(verifyExplained(rawBody, header, options));
}

/** As `verify`, each hint with its id (signature-hint.ts): for a reader that treats one hint apart, such as the receiver. */
export function verifyExplained(
  rawBody: Buffer | Uint8Array | string,
  header: string | readonly string[] | undefined | null,
  options: TimedVerifyOptions,
): ExplainedResult {
  const checked = checkOptions(options);
  const { secrets, nowSeconds, explain } = checked;

  const parsed = parseSignatureHeader(header);
  if (!parsed.ok) return headerRefusalExplained(parsed, checked);
  const { timestamp, timestampText, signatures } = parsed.header;
  const skewSeconds = timestamp - nowSeconds;

  const body = bodyBytes(rawBody);
  if (body === undefined) return notBytesRefusalExplained(rawBody, timestamp, skewSeconds, explain);

  const match = findMatch(secrets, timestampText, body, signatures);
  if (match === null) {
    return {
      ok: false,
      reason: 'mismatch',
      message: mismatchMessage(secrets.length, signatures.length),
      timestamp,
      skewSeconds,
      hints: explain
        ? explainMismatch({ secrets, header: parsed.header, body, bodyWasString: typeof rawBody === 'string' })
        : [],
    };
  }
  return judgeMatchedExplained({ timestamp, skewSeconds, secretIndex: match.secretIndex, matched: match.matched, uppercaseHex: parsed.header.uppercaseHex }, checked);
}
