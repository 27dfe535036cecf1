/**
 * What may be shown of a secret: a short hint, never the secret. The `whsec_` scheme prefix is
 * public; of the rest, at most the last 4 characters, and nothing at all for a secret whose own
 * part is under 16 characters (4 of 11 would give too much away).
 */
import { escapeForReading } from './printable-text.js';

const SCHEME_PREFIX = 'whsec_';
const MIN_LENGTH_FOR_TAIL = 16;

/**
 * The hint of `secret`. A control character in its tail (the newline of a secret read from a file)
 * is escaped as `\u000a`: every hint is printed inside a line, which a raw one would break.
 */
export function secretHint(secret: string): string {
  const prefix = secret.startsWith(SCHEME_PREFIX) ? SCHEME_PREFIX : '';
  const own = secret.slice(prefix.length);
  return own.length >= MIN_LENGTH_FOR_TAIL ? `${prefix}…${escapeForReading(own.slice(-4))}` : `${prefix}…`;
}

/** Replaces every configured secret in a text by its hint (empty secrets are ignored). The one redactor. */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const present = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  return (text) => hideCutTail(present.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join(secretHint(secret)) : out), text), present);
}

/** The shortest start of a secret worth hiding when a text ends in it. */
const MIN_CUT_SECRET = 8;

/**
 * A text cut to a length (a body shown in part, a header clipped with "…") may end inside a secret:
 * its first part is hidden too, as the secret's hint.
 */
function hideCutTail(text: string, secrets: readonly string[]): string {
  const mark = text.endsWith('…') ? '…' : '';
  const body = mark ? text.slice(0, -1) : text;
  for (const secret of secrets) {
    // Most texts end nowhere near a secret: one search of its start in the tail rules them out.
    if (body.indexOf(secret.slice(0, MIN_CUT_SECRET), Math.max(0, body.length - secret.length)) < 0) continue;
    for (let k = Math.min(secret.length - 1, body.length); k >= MIN_CUT_SECRET; k--) {
      if (body.endsWith(secret.slice(0, k))) return `${body.slice(0, body.length - k)}${secretHint(secret)}${mark}`;
    }
  }
  return text;
}
