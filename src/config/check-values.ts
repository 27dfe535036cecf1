/**
 * The value syntaxes of `hookrelay check` flags: a moment (`--since`), a duration in ms
 * (`--timeout`), a pair of ms (`--slack`), a positive factor (`--time-scale`). Each returns the
 * value or a message saying what was expected; none throws.
 */

import { parseDuration } from '../core/duration.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

// A calendar date, optionally with a time and a zone: what Date.parse reads the same everywhere.
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A moment as ms since the epoch: an ISO 8601 date-time (`2026-06-01T10:00:00Z`; without a zone,
 * local time; a bare date is midnight UTC) or a time ago (`90s`, `10m`, `2h`, `1d`, `10m ago`)
 * counted back from `nowMs`.
 */
export function parseMoment(text: string, nowMs: number): Parsed<number> {
  const trimmed = text.trim();
  const ago = parseDuration(trimmed.replace(/\s+ago$/i, ''));
  if (ago.ok) return { ok: true, value: nowMs - ago.ms };
  if (ISO.test(trimmed)) {
    const ms = Date.parse(trimmed.replace(' ', 'T'));
    if (Number.isFinite(ms)) return { ok: true, value: ms };
  }
  return { ok: false, message: `must be an ISO date-time such as 2026-06-01T10:00:00Z, or a time ago such as 90s, 10m, 2h, 1d (got ${JSON.stringify(text)})` };
}

/** Milliseconds: a bare number is ms; any unit of the duration grammar is read (`500`, `500ms`, `10s`, `0.5s`). */
export function parseDurationMs(text: string, min: number, max: number): Parsed<number> {
  const duration = parseDuration(text, { bare: 'ms', min, max });
  if (!duration.ok) return { ok: false, message: `must be milliseconds from ${min} to ${max} (e.g. 10000, or 10s), got ${JSON.stringify(text)}` };
  return { ok: true, value: duration.ms };
}

/** Two non-negative millisecond numbers, `EARLY,LATE` (`250,1000`). */
export function parseMsPair(text: string): Parsed<{ earlyMs: number; lateMs: number }> {
  const m = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) return { ok: false, message: `must be two millisecond numbers EARLY,LATE such as 250,1000, got ${JSON.stringify(text)}` };
  return { ok: true, value: { earlyMs: Number(m[1]), lateMs: Number(m[2]) } };
}

/** A finite number > 0 (`1`, `0.01`, `1e-3`). */
export function parsePositive(text: string): Parsed<number> {
  const trimmed = text.trim();
  const n = trimmed === '' ? NaN : Number(trimmed);
  if (!Number.isFinite(n) || n <= 0) return { ok: false, message: `must be a number > 0, got ${JSON.stringify(text)}` };
  return { ok: true, value: n };
}
