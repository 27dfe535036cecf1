/**
 * What may be shown of a secret: a short hint, never the secret. The `whsec_` scheme prefix is
 * public; of the rest, at most the last 4 characters, and nothing at all for a secret whose own
 * part is under 16 characters (4 of 11 would give too much away).
 */
const SCHEME_PREFIX = 'whsec_';
const MIN_LENGTH_FOR_TAIL = 16;

export function secretHint(secret: string): string {
  const prefix = secret.startsWith(SCHEME_PREFIX) ? SCHEME_PREFIX : '';
  const own = secret.slice(prefix.length);
  return own.length >= MIN_LENGTH_FOR_TAIL ? `${prefix}…${own.slice(-4)}` : `${prefix}…`;
}

/** Replaces every configured secret in a text by its hint (empty secrets are ignored). The one redactor. */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const present = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  return (text) => present.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join(secretHint(secret)) : out), text);
}
