/** What every driver shares for the bridge's reads and cursors: argument checks, the trigger filter, the retention floor. */
import { globMatch } from '../core/faults/glob.js';
import type { BridgeCursor } from './store.js';

/**
 * Refuses a cursor write that no driver could store faithfully: an empty name, or a seq that is
 * not a non-negative safe integer (JSON to the SQLite writer would turn NaN into null).
 */
export function checkBridgeCursorArgs(name: string, seq: number, now: number): void {
  if (typeof name !== 'string' || name === '') throw new TypeError('a bridge subscriber needs a non-empty name');
  if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`a bridge cursor is a non-negative integer, got ${String(seq)}`);
  if (!Number.isFinite(now)) throw new RangeError(`a bridge cursor's time must be finite, got ${String(now)}`);
}

/** The trigger test of deliveriesAfter: null when every trigger passes (no globs, or an empty list). */
export function triggerFilter(triggers: readonly string[] | undefined): ((trigger: string) => boolean) | null {
  if (!triggers || triggers.length === 0) return null;
  return (trigger) => triggers.some((glob) => globMatch(glob, trigger));
}

/** How many rows deliveriesAfter may return: a whole non-negative number. */
export function clampLimit(limit: number): number {
  return Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
}

/**
 * The `keepAfterSeq` for prune: the smallest cursor of the subscribers seen (registered or
 * acknowledged) within `retainMs` of `now`; undefined when there is none, so a subscriber gone
 * longer than `--bridge-retain` no longer holds the store.
 */
export function bridgeRetentionFloor(cursors: readonly BridgeCursor[], now: number, retainMs: number): number | undefined {
  let floor: number | undefined;
  for (const c of cursors) if (c.updatedAt >= now - retainMs && (floor === undefined || c.ackedSeq < floor)) floor = c.ackedSeq;
  return floor;
}
