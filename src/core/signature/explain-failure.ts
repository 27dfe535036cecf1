/**
 * Hints on why a signature did not verify, in the words of the likely cause. Only computed when the
 * caller asks (`explain: true`): guessing costs extra HMACs. Secrets are named by position
 * ("secret #2"), never shown.
 */
import { bodyVariants, isCompactJson } from './body-variants.js';
import { findMatchingSecret, matchesAny, signatureDigest } from './digest.js';
import { headerNotes, noMatchQuestion } from './explain-text.js';
import type { ParsedSignatureHeader } from './parse-signature-header.js';
import type { SignatureHint } from './signature-hint.js';

// The hints that need no HMAC live in explain-text.ts, which the Web Crypto verify uses too.
export { explainHeaderFailure, explainNotBytes, explainTimestamp, formatSeconds, roundSeconds } from './explain-text.js';

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
