/**
 * JSON.stringify's text for one value, written without calling it for the values hot paths write
 * line after line (ids, hex, numbers, null): the attempt log line's fourteen fields cost ~1.5 µs a
 * request through JSON.stringify. Anything else goes through JSON.stringify.
 */

/** Printable ASCII but `"` and `\`: a string of only these is its own JSON text between quotes. */
const NEEDS_NO_ESCAPE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Exactly JSON.stringify(value) (tests hold it to that for any value). */
export function jsonText(value: unknown): string {
  if (typeof value === 'string') return NEEDS_NO_ESCAPE.test(value) ? `"${value}"` : JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (value === null) return 'null';
  return JSON.stringify(value);
}
