/**
 * Hints on why a signature did not verify, in the words of the likely cause. Only computed when the
 * caller asks (`explain: true`): guessing costs extra HMACs. Secrets are named by position
 * ("secret #2"), never shown.
 */
import { bodyVariants, isCompactJson } from './body-variants.js';
import { findMatchingSecret, matchesAny, signatureDigest } from './digest.js';
import type { ParsedSignatureHeader, SignatureHeaderFailure } from './parse-signature-header.js';
import { SIGNATURE_HEADER_NAME } from './parse-signature-header.js';

/** Bodies larger than this get no re-serialisation guesses: each guess re-hashes the whole body. */
export const MAX_EXPLAIN_BODY_BYTES = 256 * 1024;

const RAW_BODY_ADVICE = 'pass the raw request body bytes, not a parsed and re-encoded object';

/** Hints for a header that could not be used at all. */
export function explainHeaderFailure(reason: SignatureHeaderFailure): string[] {
  switch (reason) {
    case 'missing':
      return [
        `the request has no ${SIGNATURE_HEADER_NAME} header: is signing turned on for this webhook, and does every proxy in front pass the header through?`,
      ];
    case 'malformed':
      return [
        `the header must look like t=<unix seconds>,v1=<64 hex characters> with no whitespace; several v1 entries may follow, comma-separated, and exactly one ${SIGNATURE_HEADER_NAME} header is allowed`,
      ];
    case 'no_signatures':
      return ['only v1 (hex HMAC-SHA256 of `<t>.<raw body>`, spec 6.3) is verified; other schemes are never accepted on their own'];
  }
}

/** Hints for a body that was not given as bytes or a string (e.g. an already parsed object). */
export function explainNotBytes(rawBody: unknown): string[] {
  const kind = rawBody === null ? 'null' : Array.isArray(rawBody) ? 'an array' : typeof rawBody;
  return [`the body was given as ${kind}: ${RAW_BODY_ADVICE} (a Buffer, Uint8Array or string of the exact bytes received)`];
}

/** Hints for a signature that matched but whose `t` is outside the tolerance, with the skew and its direction. */
export function explainTimestamp(skewSeconds: number, toleranceSeconds: number): string[] {
  const skew = formatSeconds(Math.abs(skewSeconds));
  const tolerance = formatSeconds(toleranceSeconds);
  if (skewSeconds < 0) {
    return [
      `clock skew: t is ${skew} s behind this receiver's clock (tolerance ${tolerance} s both ways). Either this is a replay of an old request, the sender reused an old signature (every attempt must be signed afresh, spec 6.3), or one of the two clocks is wrong`,
    ];
  }
  return [
    `clock skew: t is ${skew} s ahead of this receiver's clock (tolerance ${tolerance} s both ways): the sender's clock or this machine's clock is wrong; check that both keep time (NTP)`,
  ];
}

export interface MismatchContext {
  secrets: readonly string[];
  header: ParsedSignatureHeader;
  body: Uint8Array;
  /** The body arrived as a string and was UTF-8 encoded here. */
  bodyWasString: boolean;
}

/**
 * Hints for a signature that matched no secret: a secret with stray whitespace, a body changed after
 * signing (re-serialised JSON, newline, BOM), or else the general questions.
 */
export function explainMismatch(context: MismatchContext): string[] {
  const hints = [...secretWhitespaceHints(context), ...bodyChangeHints(context)];
  if (hints.length === 0) hints.push(generalHint(context));
  const { malformedV1, ignoredSchemes } = context.header;
  if (malformedV1 > 0) {
    hints.push(`${malformedV1} malformed v1 ${malformedV1 === 1 ? 'entry was' : 'entries were'} skipped (not 64 hex characters)`);
  }
  if (ignoredSchemes.length > 0) {
    hints.push(`other schemes were ignored: ${ignoredSchemes.join(', ')}`);
  }
  return hints;
}

function secretWhitespaceHints({ secrets, header, body }: MismatchContext): string[] {
  const hints: string[] = [];
  const matches = (secret: string): boolean => matchesAny(signatureDigest(secret, header.timestampText, body), header.signatures);
  secrets.forEach((secret, i) => {
    const trimmed = secret.trim();
    if (trimmed !== secret && trimmed !== '' && matches(trimmed)) {
      hints.push(
        `secret #${i + 1} has ${describeSurroundingWhitespace(secret)}; the signature matches it with the whitespace trimmed: strip whitespace when loading the secret (from a file or the environment)`,
      );
      return;
    }
    if (trimmed === secret && (matches(`${secret}\n`) || matches(`${secret}\r\n`))) {
      hints.push(
        `the signature matches secret #${i + 1} with a trailing newline added: the sender's copy of the secret has a trailing newline; strip it where the sender loads it`,
      );
    }
  });
  return hints;
}

function bodyChangeHints({ secrets, header, body }: MismatchContext): string[] {
  if (body.length > MAX_EXPLAIN_BODY_BYTES) {
    return [`the body is larger than ${MAX_EXPLAIN_BODY_BYTES / 1024} KiB, so no guesses were tried about how it may have changed`];
  }
  const hints: string[] = [];
  for (const variant of bodyVariants(Buffer.from(body.buffer, body.byteOffset, body.byteLength))) {
    const index = findMatchingSecret(secrets, header.timestampText, variant.bytes, header.signatures);
    if (index === -1) continue;
    const which = secrets.length > 1 ? ` (with secret #${index + 1})` : '';
    hints.push(`the body was changed after signing: it matches the body ${variant.description}${which}: ${variant.advice}`);
  }
  return hints;
}

function generalHint({ secrets, body, bodyWasString }: MismatchContext): string {
  const tried = secrets.length === 1 ? 'the one secret configured' : `all ${secrets.length} secrets`;
  const parts = [
    `no v1 signature matches with ${tried}: are you passing the raw request body (the exact bytes received, before any JSON parsing)? is this the right secret?`,
  ];
  if (bodyWasString) {
    parts.push('the body was given as a string and UTF-8 encoded here; if it was decoded from bytes that had a BOM or invalid UTF-8, the bytes changed: pass the Buffer');
  }
  if (body.length <= MAX_EXPLAIN_BODY_BYTES && isCompactJson(body)) {
    parts.push('the body is exactly what JSON.stringify writes; if a JSON body parser re-encoded it, key order, spacing or escapes may differ from what was signed');
  }
  return parts.join('; ');
}

function describeSurroundingWhitespace(secret: string): string {
  const trailing = secret.slice(secret.trimEnd().length);
  const leading = secret.slice(0, secret.length - secret.trimStart().length);
  const name = (ws: string, side: string): string =>
    ws.includes('\n') || ws.includes('\r') ? `a ${side} newline` : `${side} whitespace`;
  const pieces: string[] = [];
  if (leading) pieces.push(name(leading, 'leading'));
  if (trailing) pieces.push(name(trailing, 'trailing'));
  return pieces.join(' and ');
}

/** Seconds to the millisecond: `t - now` against a fractional clock reads -3.425, not -3.424999952316284. */
export function roundSeconds(seconds: number): number {
  // `|| 0` turns -0 (a skew that rounds away) into 0.
  return Number.isInteger(seconds) ? seconds : Math.round(seconds * 1000) / 1000 || 0;
}

/** Seconds for a message: whole numbers as they are, fractions to the millisecond. */
export function formatSeconds(seconds: number): string {
  return String(roundSeconds(seconds));
}
