/**
 * The two ways hostile text is made safe, each for its place, in one file:
 * - for a person (a terminal line, a report): control characters (ANSI escapes included), DEL and C1,
 *   line and paragraph separators, and bidirectional marks and overrides are shown as `\uXXXX`, so
 *   they cannot move the cursor or reorder the line; the rest, Unicode included, is kept.
 * - for a protocol field that takes only printable ASCII (an HTTP header value or reason, a
 *   WebSocket close reason): anything else becomes `?`.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` escaped for a person to read, cut to `max` characters with `…` when longer. */
export function escapeForReading(text: string, max = Infinity): string {
  const safe = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > max ? `${safe.slice(0, Math.max(0, max - 1))}…` : safe;
}

/** `text` within printable ASCII (anything else `?`), cut to `max` characters. */
export function asciiOnly(text: string, max = Infinity): string {
  const ascii = text.replace(/[^\x20-\x7e]/g, '?');
  return ascii.length > max ? ascii.slice(0, max) : ascii;
}
