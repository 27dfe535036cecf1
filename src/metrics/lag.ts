/**
 * Lag and backlog (issue 39, item 3): what the outbox owes each relay target, and how far behind each
 * bridge subscriber is, in deliveries and in seconds. One reading for `/metrics` and `hookrelay status`,
 * from the store's reads only: the relay's backlog by target (`relayBacklog`) and, for a subscriber, the
 * arrival of the first delivery after its cursor (`deliveriesAfter`).
 */
import { displayUrl } from '../core/url-secrets.js';
import type { BridgeCursors, RelayBacklog } from '../store/store.js';

/** Targets are the operator's (routes, `--forward-to`, earlier runs'): the series stop at this many, the most owed first. */
export const MAX_TARGET_SERIES = 100;
/** Longest target shown as a label value or a line of `status`. */
const MAX_TARGET_TEXT = 200;
/** The target of jobs queued by an older hookrelay, before targets were kept (`events retarget --from unknown`). */
export const UNKNOWN_TARGET = 'unknown';

/** One relay target's backlog as it may be shown: its URL without credentials. */
export interface TargetBacklog {
  /** displayUrl of the target (credentials and secret query values redacted), or `unknown`. */
  target: string;
  /** Owed: due or waiting for a retry. */
  pending: number;
  /** Owed, for a target the running relay does not hand on to. */
  held: number;
  /** Given up: `hookrelay events retry` puts one back. */
  dead: number;
  /** Owed jobs tried at least once and not yet handed on. */
  retrying: number;
  /** Arrival of the oldest delivery still owed (ms since the epoch), or null when none is owed. */
  oldestOwedAt: number | null;
  /** Its age at `now`, in whole seconds; 0 when none is owed. */
  oldestOwedAgeSeconds: number;
}

const ageSeconds = (since: number | null, now: number): number => (since === null ? 0 : Math.max(0, Math.floor((now - since) / 1000)));

export const shownTarget = (target: string | null): string => {
  if (target === null) return UNKNOWN_TARGET;
  const shown = displayUrl(target);
  return shown.length > MAX_TARGET_TEXT ? `${shown.slice(0, MAX_TARGET_TEXT - 1)}…` : shown;
};

/**
 * The store's backlog rows as shown: targets redacted (two stored URLs that differ only in their
 * credentials are one target shown, their counts added), the most owed first, then the oldest, at most
 * `max` of them. `total` is how many targets there were before the cut.
 */
export function targetBacklog(rows: readonly RelayBacklog[], now: number, max = MAX_TARGET_SERIES): { targets: TargetBacklog[]; total: number } {
  const byShown = new Map<string, TargetBacklog>();
  for (const row of rows) {
    const target = shownTarget(row.target);
    const entry = byShown.get(target) ?? { target, pending: 0, held: 0, dead: 0, retrying: 0, oldestOwedAt: null, oldestOwedAgeSeconds: 0 };
    byShown.set(target, entry);
    entry.pending += row.pending;
    entry.held += row.held;
    entry.dead += row.dead;
    entry.retrying += row.retrying;
    if (row.oldestOwedAt !== null) entry.oldestOwedAt = Math.min(entry.oldestOwedAt ?? Infinity, row.oldestOwedAt);
  }
  const all = [...byShown.values()];
  for (const entry of all) entry.oldestOwedAgeSeconds = ageSeconds(entry.oldestOwedAt, now);
  all.sort(
    (a, b) =>
      b.pending + b.held - (a.pending + a.held) ||
      b.oldestOwedAgeSeconds - a.oldestOwedAgeSeconds ||
      b.dead - a.dead ||
      (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
  );
  return { targets: all.slice(0, Math.max(0, max)), total: all.length };
}

/**
 * How long each cursor has been behind, in whole seconds at `now`: the age of the first delivery
 * after it (the oldest one its subscriber has not acknowledged), 0 when there is none. One read per
 * distinct cursor, however many subscribers share it; a read that fails counts as unknown (absent).
 */
export async function lagSecondsByCursor(store: Pick<BridgeCursors, 'deliveriesAfter'>, ackedSeqs: Iterable<number>, now: number): Promise<Map<number, number>> {
  const distinct = [...new Set(ackedSeqs)];
  const ages = await Promise.all(
    distinct.map(async (seq) => {
      try {
        const [next] = await store.deliveriesAfter(seq, 1);
        return [seq, next ? ageSeconds(next.receivedAt, now) : 0] as const;
      } catch {
        return null;
      }
    }),
  );
  return new Map(ages.filter((a): a is readonly [number, number] => a !== null));
}
