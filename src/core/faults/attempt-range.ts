/** Inclusive ranges of attempt / arrival numbers: `3`, `2-4`, `3-` (open-ended). */
import { MAX_RANGE_VALUE, type AttemptRange } from './rule.js';

export type RangeParse = { ok: true; value: AttemptRange } | { ok: false; problem: string };

export const RANGE_FORMS = 'must be N, N-M or N- with 1 <= N <= M (e.g. 1, 2-4, 3-)';

const RANGE = /^([0-9]{1,7})(?:(-)([0-9]{1,7})?)?$/;

/** Reads `N`, `N-M` or `N-`; refuses zero, a reversed range and anything else with a "must be" phrase. */
export function parseRangeText(text: string): RangeParse {
  const m = RANGE.exec(text);
  if (!m) return { ok: false, problem: RANGE_FORMS };
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : m[3] === undefined ? null : Number(m[3]);
  return checkRange({ from, to });
}

/** Checks a range object: integers from 1 to MAX_RANGE_VALUE, `from <= to`, `to` null for open-ended. */
export function checkRange(range: AttemptRange): RangeParse {
  const { from, to } = range;
  if (!isCount(from) || (to !== null && !isCount(to))) {
    return { ok: false, problem: `must use whole numbers from 1 to ${MAX_RANGE_VALUE}` };
  }
  if (to !== null && to < from) return { ok: false, problem: `must not end (${to}) before it starts (${from})` };
  return { ok: true, value: { from, to } };
}

/** `3`, `2-4` or `3-`. */
export function formatRange(range: AttemptRange): string {
  if (range.to === null) return `${range.from}-`;
  return range.from === range.to ? String(range.from) : `${range.from}-${range.to}`;
}

/** Whether `n` lies in the range; false for a non-number or NaN. */
export function inRange(range: AttemptRange, n: number): boolean {
  return typeof n === 'number' && n >= range.from && (range.to === null || n <= range.to);
}

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_RANGE_VALUE;
}
