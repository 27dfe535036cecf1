/**
 * `connect --since`: a subscriber asks the public side to send a window again, from a sequence
 * number or from a time ago. It travels in the upgrade request's `x-hookrelay-since` header, as
 * `seq:N` or `age:MS` (an age, not a time: the public side counts it back on its own clock, so the
 * laptop's clock does not matter). Read on both sides with the same rules; pure.
 */
import { parseDuration } from './duration.js';

export const SINCE_HEADER = 'x-hookrelay-since';

export type BridgeSince = { seq: number } | { ageMs: number };

/** The oldest window that may be asked for again: retention removes older deliveries anyway. */
export const MAX_SINCE_AGE_MS = 366 * 24 * 3_600_000;

/** The header's value for a window. */
export const sinceHeader = (since: BridgeSince): string => ('seq' in since ? `seq:${since.seq}` : `age:${since.ageMs}`);

/** Reads the header's value (hostile: from any client with a token). */
export function parseSinceHeader(text: string): { ok: true; since: BridgeSince } | { ok: false; message: string } {
  const m = /^(seq|age):(\d{1,16})$/.exec(text);
  const n = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(n)) return { ok: false, message: `${SINCE_HEADER} must be seq:N or age:MS` };
  if (m[1] === 'age' && (n < 1 || n > MAX_SINCE_AGE_MS)) return { ok: false, message: `${SINCE_HEADER}: age:MS must be from 1 to ${MAX_SINCE_AGE_MS} ms` };
  return { ok: true, since: m[1] === 'seq' ? { seq: n } : { ageMs: n } };
}

/** Reads `connect --since`: a time ago (`30m`, `2h`, `7d`) or a sequence number (`seq:1200`, or `1200`). */
export function parseSinceFlag(text: string): { ok: true; since: BridgeSince } | { ok: false; message: string } {
  const trimmed = text.trim();
  const seq = /^(?:seq:)?(\d{1,15})$/.exec(trimmed);
  if (seq) return { ok: true, since: { seq: Number(seq[1]) } };
  const age = parseDuration(trimmed, { min: 1, max: MAX_SINCE_AGE_MS });
  if (age.ok) return { ok: true, since: { ageMs: age.ms } };
  return { ok: false, message: `must be a time ago such as 30m, 2h or 7d (at most 366d), or a sequence number such as seq:1200, got ${JSON.stringify(text.slice(0, 40))}` };
}
