/**
 * The live list's model: one row per delivery id (or per arrival without an id), fed by API pages
 * and feed messages in any order. Every update is idempotent, so a message seen both in the
 * backlog and in an API page counts once. Pure: no DOM.
 */
import type { AttemptView, DeliverySummary, Outcome, RelayView } from './types.js';

export interface Row {
  key: string;
  deliveryId: string | null;
  trigger: string | null;
  /** Latest activity, ms: the list is sorted by it, newest first. */
  lastSeen: number;
  stored: boolean;
  duplicateCount: number;
  /** Outcome, status and reason of the latest arrival. */
  outcome: Outcome | null;
  status: number | null;
  reason: string | null;
  latestSeq: number;
  relay: RelayView | null;
  skipVerify: boolean;
  /** Attempts seen for this row (only those without a delivery id are kept whole). */
  seen: Set<number>;
  lone: AttemptView | null;
}

export type StatusFilter = '' | 'accepted' | 'duplicate' | 'rejected' | 'faulted';

export interface Filter {
  trigger: string;
  status: StatusFilter;
  text: string;
}

export const keyOf = (deliveryId: string | null, seq: number) => (deliveryId !== null ? `d:${deliveryId}` : `a:${seq}`);

export interface RowStore {
  applyDelivery(summary: DeliverySummary): void;
  applyAttempt(attempt: AttemptView, live: boolean): void;
  applyRelay(deliveryId: string, relay: RelayView): void;
  remove(deliveryId: string): void;
  get(key: string): Row | undefined;
  /** Rows matching `filter`, newest first. `serverMatches`: keys the server found for the text filter (it searches bodies too). */
  list(filter: Filter, serverMatches: ReadonlySet<string> | null): Row[];
  triggers(): string[];
  size(): number;
  clear(): void;
}

export function createRowStore(maxRows = 2000): RowStore {
  const rows = new Map<string, Row>();

  const ensure = (key: string, deliveryId: string | null): Row => {
    let row = rows.get(key);
    if (!row) {
      row = {
        key,
        deliveryId,
        trigger: null,
        lastSeen: 0,
        stored: false,
        duplicateCount: 0,
        outcome: null,
        status: null,
        reason: null,
        latestSeq: 0,
        relay: null,
        skipVerify: false,
        seen: new Set(),
        lone: null,
      };
      rows.set(key, row);
      if (rows.size > maxRows) evictOldest();
    }
    return row;
  };

  const evictOldest = () => {
    let oldest: Row | undefined;
    for (const row of rows.values()) if (!oldest || row.lastSeen < oldest.lastSeen) oldest = row;
    if (oldest) rows.delete(oldest.key);
  };

  const takeLatest = (row: Row, a: AttemptView) => {
    if (a.seq <= row.latestSeq) return;
    row.latestSeq = a.seq;
    row.outcome = a.outcome;
    row.status = a.status;
    row.reason = a.reason;
    if (a.trigger !== null) row.trigger = a.trigger;
  };

  return {
    applyDelivery(s) {
      const row = ensure(keyOf(s.id, s.seq), s.id);
      row.stored = true;
      row.trigger = s.trigger;
      // The store's count is authoritative; live duplicates add to it until the next page load.
      row.duplicateCount = s.duplicateCount;
      row.lastSeen = Math.max(row.lastSeen, s.lastAttemptAt, s.receivedAt);
      if (row.outcome === null) row.outcome = s.duplicateCount > 0 ? 'duplicate' : 'accepted';
      if (s.latestAttempt) {
        row.seen.add(s.latestAttempt.seq);
        takeLatest(row, s.latestAttempt);
      }
      if (s.relay) row.relay = s.relay;
    },

    applyAttempt(a, live) {
      const key = keyOf(a.deliveryId, a.seq);
      const row = ensure(key, a.deliveryId);
      if (row.seen.has(a.seq)) return;
      row.seen.add(a.seq);
      if (a.deliveryId === null) row.lone = a;
      if (a.skipVerify) row.skipVerify = true;
      if (row.trigger === null) row.trigger = a.trigger;
      row.lastSeen = Math.max(row.lastSeen, a.receivedAt);
      if (a.outcome === 'accepted') row.stored = true;
      if (a.outcome === 'duplicate' && live) row.duplicateCount += 1;
      takeLatest(row, a);
    },

    applyRelay(deliveryId, relay) {
      const row = rows.get(keyOf(deliveryId, 0));
      if (row && (!row.relay || row.relay.at <= relay.at)) row.relay = relay;
    },

    remove(deliveryId) {
      rows.delete(keyOf(deliveryId, 0));
    },

    get: (key) => rows.get(key),

    list(filter, serverMatches) {
      const text = filter.text.trim().toLowerCase();
      return [...rows.values()]
        .filter((row) => {
          if (filter.trigger && row.trigger !== filter.trigger) return false;
          switch (filter.status) {
            case 'accepted': if (!row.stored) return false; break;
            case 'duplicate': if (row.duplicateCount === 0) return false; break;
            case 'rejected': case 'faulted': if (row.outcome !== filter.status) return false; break;
            default: break;
          }
          if (!text) return true;
          const own = [row.deliveryId, row.trigger, row.reason].some((v) => v !== null && v.toLowerCase().includes(text));
          return own || (serverMatches?.has(row.key) ?? false);
        })
        .sort((a, b) => b.lastSeen - a.lastSeen || b.latestSeq - a.latestSeq);
    },

    triggers() {
      const set = new Set<string>();
      for (const row of rows.values()) if (row.trigger !== null) set.add(row.trigger);
      return [...set].sort();
    },

    size: () => rows.size,
    clear: () => rows.clear(),
  };
}

/** The verdict chip's text: accepted / duplicate ×N / rejected: reason / faulted: rule. */
export function verdictText(row: Pick<Row, 'outcome' | 'duplicateCount' | 'reason' | 'status' | 'stored'>): string {
  switch (row.outcome) {
    case 'duplicate':
      return `duplicate ×${Math.max(1, row.duplicateCount)}`;
    case 'rejected':
      return `rejected: ${row.reason ?? `HTTP ${row.status ?? '—'}`}`;
    case 'faulted':
      return `faulted: ${row.reason ?? `HTTP ${row.status ?? 'no answer'}`}`;
    case 'unavailable':
      return 'unavailable: store could not write (503)';
    case 'accepted':
      return row.duplicateCount > 0 ? `duplicate ×${row.duplicateCount}` : 'accepted';
    default:
      return row.stored ? 'accepted' : '…';
  }
}

/** The relay cell: what happened to the hand-off. */
export function relayText(relay: RelayView | null): string {
  if (!relay) return '—';
  const tag = relay.replay ? 'replay ' : '';
  if (relay.ok) return `${tag}relayed ${relay.status ?? ''}`.trim();
  const why = relay.status !== null ? `HTTP ${relay.status}` : (relay.error ?? 'no answer');
  return `${tag}relay failed: ${why}${relay.nextRetryAt ? ', retrying' : ''}`;
}
