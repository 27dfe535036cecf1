/**
 * The time-scale mark (issue 13 item 5): `hookrelay send --time-scale F` (F ≠ 1) adds
 * `x-hookrelay-time-scale: F` to every attempt. The receiver stores it with the delivery's headers,
 * and `check` and the console judge that delivery's waits at F, so a scaled run is judged as it
 * was sent without a flag. The service never sends the header: its deliveries are judged at the
 * scale `check` is given (1 by default).
 */
import { DEFAULT_SLACK, LOCAL_SLACK, type CheckOptions } from './options.js';

/** The header a scaled `hookrelay send` adds to every attempt (lower case, as Node stores names). */
export const TIME_SCALE_MARK_HEADER = 'x-hookrelay-time-scale';

/** Delivery id → the time scale its sender marked it with. */
export type TimeScaleMarks = ReadonlyMap<string, number>;

const DECIMAL = /^\s*(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?\s*$/i;

/**
 * The time scale a delivery's headers mark, or null when there is no mark or it cannot be judged
 * (not a plain decimal number, or not > 0: a run with no waits at all has none to judge). The first
 * mark counts.
 */
export function readTimeScaleMark(headers: ReadonlyArray<readonly [string, string]>): number | null {
  const header = headers.find(([name]) => name.toLowerCase() === TIME_SCALE_MARK_HEADER);
  if (header === undefined || !DECIMAL.test(header[1])) return null;
  const scale = Number(header[1]);
  return Number.isFinite(scale) && scale > 0 ? scale : null;
}

/**
 * `options` for a delivery judged at `timeScale`. The slack follows the scale (DEFAULT_SLACK at 1,
 * LOCAL_SLACK otherwise) unless it was given explicitly (`slackGiven`).
 */
export function optionsAtScale(options: CheckOptions, timeScale: number): CheckOptions {
  if (timeScale === options.timeScale) return options;
  const slack = options.slackGiven === true ? options.slack : timeScale === 1 ? DEFAULT_SLACK : LOCAL_SLACK;
  return { ...options, timeScale, slack };
}

/** The mark of a delivery known under any of `ids` (its first id first), or null. */
export function markOf(marks: TimeScaleMarks | undefined, ids: ReadonlyArray<string | null>): number | null {
  if (marks === undefined) return null;
  for (const id of ids) {
    if (id === null) continue;
    const mark = marks.get(id);
    if (mark !== undefined) return mark;
  }
  return null;
}
