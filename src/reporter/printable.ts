/**
 * Makes hostile text safe for a terminal: control characters (ANSI escapes included) and
 * bidirectional overrides are shown as \u escapes instead of being interpreted.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string, max = 120): string {
  const safe = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}

/**
 * How much of a relay try's error a line shows: long enough for the longest hookrelay writes (a TLS
 * failure and how to fix it, post-to-target.ts), short enough to bound one a target could stretch.
 */
export const RELAY_ERROR_CHARS = 260;
