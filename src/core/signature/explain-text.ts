/**
 * The hints on a failed signature that need no HMAC: a header that could not be used, a body that
 * is not bytes, a timestamp outside the tolerance, and the general questions. Portable (no Node
 * globals or modules), so the Web Crypto verify words its failures as `hookrelay verify` does;
 * verify.ts adds the guesses that cost HMACs. Each hint carries its id (signature-hint.ts).
 */
import { hintTexts, type SignatureHint } from './signature-hint.js';
import { SIGNATURE_HEADER_NAME, type SignatureHeaderFailure } from './signature-header.js';

const RAW_BODY_ADVICE = 'pass the raw request body bytes, not a parsed and re-encoded object';

/** Hints for a header that could not be used at all. */
export function explainHeaderFailure(reason: SignatureHeaderFailure): SignatureHint[] {
  switch (reason) {
    case 'missing':
      return [{
        id: 'header-missing',
        text: `the request has no ${SIGNATURE_HEADER_NAME} header: is signing turned on for this webhook, and does every proxy in front pass the header through?`,
      }];
    case 'malformed':
      return [{
        id: 'header-malformed',
        text: `the header must look like t=<unix seconds>,v1=<64 hex characters> with no whitespace; several v1 entries may follow, comma-separated, and exactly one ${SIGNATURE_HEADER_NAME} header is allowed`,
      }];
    case 'no_signatures':
      return [{ id: 'header-no-v1', text: 'only v1 (hex HMAC-SHA256 of `<t>.<raw body>`, spec 6.3) is verified; other schemes are never accepted on their own' }];
  }
}

/** Hints for a body that was not given as bytes or a string (e.g. an already parsed object). */
export function explainNotBytes(rawBody: unknown): SignatureHint[] {
  const kind = rawBody === null ? 'null' : Array.isArray(rawBody) ? 'an array' : typeof rawBody;
  return [{ id: 'body-not-bytes', text: `the body was given as ${kind}: ${RAW_BODY_ADVICE} (a Buffer, Uint8Array or string of the exact bytes received)` }];
}

/** Hints for a signature that matched but whose `t` is outside the tolerance, with the skew and its direction. */
export function explainTimestamp(skewSeconds: number, toleranceSeconds: number): SignatureHint[] {
  const skew = formatSeconds(Math.abs(skewSeconds));
  const tolerance = formatSeconds(toleranceSeconds);
  if (skewSeconds < 0) {
    return [{
      id: 'clock-skew',
      text: `clock skew: t is ${skew} s behind this receiver's clock (tolerance ${tolerance} s both ways). Either this is a replay of an old request, the sender reused an old signature (every attempt must be signed afresh, spec 6.3), or one of the two clocks is wrong`,
    }];
  }
  return [{
    id: 'clock-skew',
    text: `clock skew: t is ${skew} s ahead of this receiver's clock (tolerance ${tolerance} s both ways): the sender's clock or this machine's clock is wrong; check that both keep time (NTP)`,
  }];
}

/** The words of the general question when no signature matched and no guess explains why (its hint: 'no-match-question'). */
export function noMatchQuestion(secretCount: number): string {
  const tried = secretCount === 1 ? 'the one secret configured' : `all ${secretCount} secrets`;
  return `no v1 signature matches with ${tried}: are you passing the raw request body (the exact bytes received, before any JSON parsing)? is this the right secret?`;
}

interface HeaderNotes {
  malformedV1: number;
  ignoredSchemes: readonly string[];
}

/** What else the header held: malformed v1 entries that were skipped, and other schemes that were ignored. */
export function headerNotes({ malformedV1, ignoredSchemes }: HeaderNotes): SignatureHint[] {
  const hints: SignatureHint[] = [];
  if (malformedV1 > 0) {
    hints.push({ id: 'malformed-v1-skipped', text: `${malformedV1} malformed v1 ${malformedV1 === 1 ? 'entry was' : 'entries were'} skipped (not 64 hex characters)` });
  }
  if (ignoredSchemes.length > 0) {
    hints.push({ id: 'other-schemes-ignored', text: `other schemes were ignored: ${ignoredSchemes.join(', ')}` });
  }
  return hints;
}

/** headerNotes in words, for the Web Crypto verify (src/kit/verify-async.ts), which reads no ids. */
export function headerNoteHints(header: HeaderNotes): string[] {
  return hintTexts(headerNotes(header));
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
