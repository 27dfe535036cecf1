/** Number formatting shared by rule messages and the report. */

/** Milliseconds as seconds with millisecond precision: 47750 → "47.750 s". */
export function seconds(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '?';
  return `${(ms / 1000).toFixed(3)} s`;
}

/** A policy number in seconds, shortest exact form: 60 → "60 s", 0.6 → "0.6 s". */
export function policySeconds(s: number): string {
  return `${Number(s.toFixed(6))} s`;
}

/** Rounds a computed bound to the microsecond, so 48 × 0.01 × 1000 is 480, not 480.00000000000006. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** ms since the epoch as ISO 8601, or the raw number when it is no date. */
export function isoTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}
