/**
 * The one duration grammar of hookrelay's flags and rules (`--retain 30d`, `delay=2s`,
 * `check --timeout 10s`, `--since 10m`):
 *
 *   duration = number [ unit ]        number = digits [ "." digits ]
 *   unit     = ms | s | m | h | d | w (any case; spaces may stand between number and unit)
 *
 * Surrounding whitespace is ignored. What a bare number means (milliseconds, seconds, or refused),
 * whether the number may have a fraction, and the range are the caller's rules; the syntax is
 * the same everywhere. A value must come to a whole number of milliseconds.
 */

export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd' | 'w';

export const DURATION_UNIT_MS: Readonly<Record<DurationUnit, number>> = Object.freeze({
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
});

export interface DurationRules {
  /** The unit of a number written without one; absent: a unit is required. */
  bare?: 'ms' | 's';
  /** Refuse a fraction (`1.5d`). */
  whole?: boolean;
  /** Inclusive bounds in milliseconds. */
  min?: number;
  max?: number;
}

export type Duration =
  | { ok: true; ms: number }
  /**
   * `malformed`: not the grammar (or a bare number where a unit is required); `fraction`: a
   * fraction where `whole` is asked, or less than a whole millisecond; `too_short` / `too_long`:
   * outside [min, max].
   */
  | { ok: false; reason: 'malformed' | 'fraction' | 'too_short' | 'too_long' };

const DURATION = /^(\d+)(\.\d+)?\s*(ms|s|m|h|d|w)?$/i;

/** Reads a duration into milliseconds under `rules`. Never throws. */
export function parseDuration(text: string, rules: DurationRules = {}): Duration {
  const m = typeof text === 'string' ? DURATION.exec(text.trim()) : null;
  if (!m) return { ok: false, reason: 'malformed' };
  const unit = (m[3]?.toLowerCase() ?? rules.bare) as DurationUnit | undefined;
  if (unit === undefined) return { ok: false, reason: 'malformed' };
  if (m[2] !== undefined && rules.whole) return { ok: false, reason: 'fraction' };
  // Scaled before rounding away float noise: 0.1h is 360000 ms, not 360000.00000000006.
  const exact = Number(`${m[1]}${m[2] ?? ''}`) * DURATION_UNIT_MS[unit];
  const ms = Math.round(exact);
  if (!Number.isFinite(ms)) return { ok: false, reason: 'too_long' };
  if (Math.abs(exact - ms) > 1e-6 * Math.max(1, ms)) return { ok: false, reason: 'fraction' };
  if (rules.min !== undefined && ms < rules.min) return { ok: false, reason: 'too_short' };
  if (rules.max !== undefined && ms > rules.max) return { ok: false, reason: 'too_long' };
  return { ok: true, ms };
}

/** A duration in its largest whole unit (`30d`, `72h` → `3d`, `90s`, `1500ms`); `parseDuration` reads it back. */
export function formatDurationText(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    if (ms % DURATION_UNIT_MS[unit] === 0) return `${ms / DURATION_UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
