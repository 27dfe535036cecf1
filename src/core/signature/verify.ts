/**
 * Verifying a signature on Node (spec 6.3), node:crypto and synchronous: the header's v1 signatures
 * decoded from hex, the HMAC-SHA256 of `<t>.<body>` and its constant-time match, the verdict, and,
 * when the caller asks (`explain: true`), the hints on why a signature did not verify, in the words
 * of the likely cause. The header's text and the verdict around the HMAC are portable
 * (signature-header.ts, verify-verdict.ts): the Web Crypto verify (src/kit/verify-async.ts) runs
 * them too, so both answer alike.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { bodyVariants, isCompactJson } from './body-variants.js';
import { headerNotes, noMatchQuestion } from './explain-text.js';
import type { SignatureHeaderFailure, SignatureHeaderFields } from './signature-header.js';
import { parseSignatureFields } from './verify-verdict.js';
import type { SignatureHint } from './signature-hint.js';
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

export { MAX_SIGNATURE_HEADER_LENGTH, MAX_V1_SIGNATURES, SIGNATURE_HEADER_NAME } from './signature-header.js';
export type { SignatureHeaderFailure } from './signature-header.js';
export { DEFAULT_TOLERANCE_SECONDS, UPPERCASE_HEX_NOTE } from './verify-verdict.js';
export type { ExplainedResult, TimedVerifyOptions, VerifyFailure, VerifyOptions, VerifyResult } from './verify-verdict.js';
// The hints that need no HMAC live in explain-text.ts, which the Web Crypto verify uses too.
export { explainHeaderFailure, explainNotBytes, explainTimestamp, formatSeconds, roundSeconds } from './explain-text.js';

export interface ParsedSignatureHeader extends Omit<SignatureHeaderFields, 'v1Hex'> {
  /** Each well-formed `v1`, decoded from hex: 32 bytes. */
  signatures: Buffer[];
}

export type ParseResult =
  | { ok: true; header: ParsedSignatureHeader }
  | { ok: false; reason: SignatureHeaderFailure; message: string; timestamp?: number };

/**
 * Parses a signature header as node hands it over (a string, or an array when it was sent more than once).
 * Returns the timestamp and the well-formed v1 signatures, or refuses with
 * `missing` (absent or empty), `malformed` (with a message naming what is wrong) or
 * `no_signatures` (a `t` but no `v1`: other schemes are never enough). Never throws.
 */
export function parseSignatureHeader(header: string | readonly string[] | undefined | null): ParseResult {
  const parsed = parseSignatureFields(header);
  if (!parsed.ok) return parsed;
  // Field by field: a rest-and-spread copy of the fields cost ~0.6 KB of garbage on every request.
  const { timestamp, timestampText, v1Hex, uppercaseHex, malformedV1, ignoredSchemes } = parsed.header;
  const signatures: Buffer[] = [];
  for (const hex of v1Hex) signatures.push(Buffer.from(hex, 'hex'));
  return { ok: true, header: { timestamp, timestampText, signatures, uppercaseHex, malformedV1, ignoredSchemes } };
}

/**
 * The raw HMAC-SHA256, keyed by `secret` as given, of `<t>.` followed by the body bytes (spec 6.3).
 * `timestampText` is `t` exactly as the header carries it.
 */
export function signatureDigest(secret: string, timestampText: string, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestampText}.`).update(body).digest();
}

/**
 * Whether `digest` equals any of `signatures`, compared in constant time (spec 6.3).
 * Every candidate is compared, so the time taken does not depend on which one matches.
 */
export function matchesAny(digest: Buffer, signatures: readonly Buffer[]): boolean {
  let matched = false;
  for (const candidate of signatures) {
    if (candidate.length === digest.length && timingSafeEqual(candidate, digest)) matched = true;
  }
  return matched;
}

/** Index of the first secret whose digest matches one of `signatures`, or -1. */
export function findMatchingSecret(
  secrets: readonly string[],
  timestampText: string,
  body: Uint8Array,
  signatures: readonly Buffer[],
): number {
  return findMatch(secrets, timestampText, body, signatures)?.secretIndex ?? -1;
}

/**
 * The first secret whose digest matches one of `signatures`, and which of `signatures` that digest
 * equals (each compared in constant time, every one compared); null when no secret matches.
 */
export function findMatch(
  secrets: readonly string[],
  timestampText: string,
  body: Uint8Array,
  signatures: readonly Buffer[],
): { secretIndex: number; matched: boolean[] } | null {
  for (let i = 0; i < secrets.length; i++) {
    const digest = signatureDigest(secrets[i] as string, timestampText, body);
    const matched = signatures.map((candidate) => candidate.length === digest.length && timingSafeEqual(candidate, digest));
    if (matched.includes(true)) return { secretIndex: i, matched };
  }
  return null;
}

/** The bytes of a body: a string is UTF-8 encoded; anything that is not bytes or a string gives undefined. */
export function bodyBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  return undefined;
}

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

// Why a signature did not verify. Only computed when the caller asks: guessing costs extra HMACs.
// Secrets are named by position ("secret #2"), never shown.

/** Bodies larger than this get no re-serialisation guesses: each guess re-hashes the whole body. */
export const MAX_EXPLAIN_BODY_BYTES = 256 * 1024;

export interface MismatchContext {
  secrets: readonly string[];
  header: ParsedSignatureHeader;
  body: Uint8Array;
  /** The body arrived as a string and was UTF-8 encoded here. */
  bodyWasString: boolean;
}

/**
 * Hints for a signature that matched no secret: a secret with stray whitespace, a body changed after
 * signing (re-serialised JSON, newline, BOM), or else the general questions ('no-match-question').
 */
export function explainMismatch(context: MismatchContext): SignatureHint[] {
  const hints = [...secretWhitespaceHints(context), ...bodyChangeHints(context)];
  if (hints.length === 0) hints.push(generalHint(context));
  hints.push(...headerNotes(context.header));
  return hints;
}

function secretWhitespaceHints({ secrets, header, body }: MismatchContext): SignatureHint[] {
  const hints: SignatureHint[] = [];
  const matches = (secret: string): boolean => matchesAny(signatureDigest(secret, header.timestampText, body), header.signatures);
  secrets.forEach((secret, i) => {
    const trimmed = secret.trim();
    if (trimmed !== secret && trimmed !== '' && matches(trimmed)) {
      hints.push({
        id: 'secret-whitespace',
        text: `secret #${i + 1} has ${describeSurroundingWhitespace(secret)}; the signature matches it with the whitespace trimmed: strip whitespace when loading the secret (from a file or the environment)`,
      });
      return;
    }
    if (trimmed === secret && (matches(`${secret}\n`) || matches(`${secret}\r\n`))) {
      hints.push({
        id: 'secret-trailing-newline',
        text: `the signature matches secret #${i + 1} with a trailing newline added: the sender's copy of the secret has a trailing newline; strip it where the sender loads it`,
      });
    }
  });
  return hints;
}

function bodyChangeHints({ secrets, header, body }: MismatchContext): SignatureHint[] {
  if (body.length > MAX_EXPLAIN_BODY_BYTES) {
    return [{ id: 'body-too-large-to-guess', text: `the body is larger than ${MAX_EXPLAIN_BODY_BYTES / 1024} KiB, so no guesses were tried about how it may have changed` }];
  }
  const hints: SignatureHint[] = [];
  for (const variant of bodyVariants(Buffer.from(body.buffer, body.byteOffset, body.byteLength))) {
    const index = findMatchingSecret(secrets, header.timestampText, variant.bytes, header.signatures);
    if (index === -1) continue;
    const which = secrets.length > 1 ? ` (with secret #${index + 1})` : '';
    hints.push({ id: variant.hintId, text: `the body was changed after signing: it matches the body ${variant.description}${which}: ${variant.advice}` });
  }
  return hints;
}

function generalHint({ secrets, body, bodyWasString }: MismatchContext): SignatureHint {
  const parts = [noMatchQuestion(secrets.length)];
  if (bodyWasString) {
    parts.push('the body was given as a string and UTF-8 encoded here; if it was decoded from bytes that had a BOM or invalid UTF-8, the bytes changed: pass the Buffer');
  }
  if (body.length <= MAX_EXPLAIN_BODY_BYTES && isCompactJson(body)) {
    parts.push('the body is exactly what JSON.stringify writes; if a JSON body parser re-encoded it, key order, spacing or escapes may differ from what was signed');
  }
  return { id: 'no-match-question', text: parts.join('; ') };
}

/** "a trailing newline", "leading whitespace and a trailing newline", …: what surrounds `secret`; '' when nothing does. */
export function describeSurroundingWhitespace(secret: string): string {
  const trailing = secret.slice(secret.trimEnd().length);
  const leading = secret.slice(0, secret.length - secret.trimStart().length);
  const name = (ws: string, side: string): string =>
    ws.includes('\n') || ws.includes('\r') ? `a ${side} newline` : `${side} whitespace`;
  const pieces: string[] = [];
  if (leading) pieces.push(name(leading, 'leading'));
  if (trailing) pieces.push(name(trailing, 'trailing'));
  return pieces.join(' and ');
}
