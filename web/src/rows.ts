/**
 * The live list's model: one row per delivery id (or per arrival without an id), fed by API pages
 * and feed messages in any order. Every update is idempotent, so a message seen both in the
 * backlog and in an API page counts once. Pure: no DOM.
 */
import type { AttemptTally, AttemptView, DeliverySummary, FeedMessage, Outcome, RelayJobView, RelayView } from './types.js';

export type OutcomeCounts = Record<Outcome, number>;

export interface Row {
  key: string;
  deliveryId: string | null;
  trigger: string | null;
  /** Latest activity, ms: the list is sorted by it, newest first. */
  lastSeen: number;
  stored: boolean;
  /** Times received again after it was stored (derived: see `counts`). */
  duplicateCount: number;
  /** Arrivals by outcome (derived from `tally` and `live`, never from arrival order). */
  counts: OutcomeCounts;
  /** At least this many arrivals (true when `tally` was truncated). */
  countsTruncated: boolean;
  /** Outcome, status, reason and duration of the latest arrival. */
  outcome: Outcome | null;
  status: number | null;
  reason: string | null;
  durationMs: number | null;
  latestSeq: number;
  bodyBytes: number | null;
  relay: RelayView | null;
  /** Its relay jobs, one per target, as the list read them and the feed's relay tries moved them since; null when not known. */
  relayJobs: RelayJobView[] | null;
  skipVerify: boolean;
  /** The newest tally the API sent (its `throughSeq` is its version). */
  tally: AttemptTally | null;
  /** Attempts seen one by one (feed, attempt lists), by seq: those newer than `tally` add to it. */
  live: Map<number, Outcome>;
  /** The largest duplicateCount a delivery summary carried: the count only grows, so it is a floor. */
  duplicateFloor: number;
  lone: AttemptView | null;
}

export type StatusFilter = '' | 'accepted' | 'duplicate' | 'rejected' | 'faulted';

export interface Filter {
  trigger: string;
  status: StatusFilter;
  text: string;
}

export const keyOf = (deliveryId: string | null, seq: number) => (deliveryId !== null ? `d:${deliveryId}` : `a:${seq}`);

const OUTCOMES: readonly Outcome[] = ['accepted', 'duplicate', 'rejected', 'faulted', 'unavailable'];
const zeroCounts = (): OutcomeCounts => ({ accepted: 0, duplicate: 0, rejected: 0, faulted: 0, unavailable: 0 });

export interface RowStore {
  applyDelivery(summary: DeliverySummary): void;
  applyAttempt(attempt: AttemptView): void;
  applyRelay(deliveryId: string, relay: RelayView): void;
  remove(deliveryId: string): void;
  get(key: string): Row | undefined;
  /** Rows matching `filter`, newest first. `serverMatches`: keys the server found for the text filter (it searches bodies too). */
  list(filter: Filter, serverMatches: ReadonlySet<string> | null): Row[];
  triggers(): string[];
  size(): number;
  clear(): void;
}

/**
 * Counts are merged by version, never by arrival order: the API's tally says which attempts it
 * counted (every seq up to `throughSeq`), and an attempt seen one by one adds only when it is newer
 * than that. So a feed backlog replayed after a page load, a stale page, or a feed message that
 * arrives before the page all give the same count (issue 13, item 10).
 */
function recount(row: Row): void {
  const through = row.tally?.throughSeq ?? 0;
  const counts = row.tally ? { ...row.tally.byOutcome } : zeroCounts();
  for (const [seq, outcome] of row.live) if (seq > through) counts[outcome] += 1;
  row.counts = counts;
  row.countsTruncated = row.tally?.truncated ?? false;
  row.duplicateCount = Math.max(counts.duplicate, row.duplicateFloor);
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
        counts: zeroCounts(),
        countsTruncated: false,
        outcome: null,
        status: null,
        reason: null,
        durationMs: null,
        latestSeq: 0,
        bodyBytes: null,
        relay: null,
        relayJobs: null,
        skipVerify: false,
        tally: null,
        live: new Map(),
        duplicateFloor: 0,
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
    row.durationMs = Math.max(0, a.finishedAt - a.receivedAt);
    if (!row.stored || row.bodyBytes === null) row.bodyBytes = a.bodyBytes;
    if (a.trigger !== null) row.trigger = a.trigger;
  };

  const see = (row: Row, a: AttemptView) => {
    if (row.live.has(a.seq)) return;
    row.live.set(a.seq, a.outcome);
    if (a.deliveryId === null) row.lone = a;
    if (a.skipVerify) row.skipVerify = true;
    if (row.trigger === null) row.trigger = a.trigger;
    row.lastSeen = Math.max(row.lastSeen, a.receivedAt);
    if (a.outcome === 'accepted' || a.outcome === 'duplicate') row.stored = true;
    takeLatest(row, a);
  };

  return {
    applyDelivery(s) {
      const row = ensure(keyOf(s.id, s.seq), s.id);
      row.stored = true;
      row.trigger = s.trigger;
      row.bodyBytes = s.bodyBytes;
      row.duplicateFloor = Math.max(row.duplicateFloor, s.duplicateCount);
      if (s.attempts && s.attempts.throughSeq >= (row.tally?.throughSeq ?? -1)) row.tally = s.attempts;
      row.lastSeen = Math.max(row.lastSeen, s.lastAttemptAt, s.receivedAt);
      if (row.outcome === null) row.outcome = s.duplicateCount > 0 ? 'duplicate' : 'accepted';
      if (s.latestAttempt) see(row, s.latestAttempt);
      // The jobs of a list read: the first the row gets, else when no older than the newest try the
      // row has seen (a feed try may be newer, and has moved its job already).
      if (s.relayJobs !== undefined && (row.relayJobs === null || !row.relay || (s.relay && row.relay.at <= s.relay.at))) row.relayJobs = s.relayJobs;
      if (s.relay && (!row.relay || row.relay.at <= s.relay.at)) row.relay = s.relay;
      recount(row);
    },

    applyAttempt(a) {
      const row = ensure(keyOf(a.deliveryId, a.seq), a.deliveryId);
      see(row, a);
      recount(row);
    },

    applyRelay(deliveryId, relay) {
      const row = rows.get(keyOf(deliveryId, 0));
      if (!row || (row.relay && row.relay.at > relay.at)) return;
      row.relay = relay;
      if (row.relayJobs) row.relayJobs = movedJobs(row.relayJobs, relay);
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

/** The row a feed message brings news of (an arrival or a stored delivery); null for the others. */
export function deliveryKeyOf(message: FeedMessage): string | null {
  if (message.type === 'attempt') return keyOf(message.data.deliveryId, message.data.seq);
  if (message.type === 'delivery') return keyOf(message.data.id, message.data.seq);
  return null;
}

/**
 * How many deliveries the queued feed messages concern (the "Resume (N new)" count): an arrival
 * and the stored delivery it made are one delivery, and so are a delivery's retries.
 */
export function queuedDeliveries(messages: Iterable<FeedMessage>): number {
  const keys = new Set<string>();
  for (const m of messages) {
    const key = deliveryKeyOf(m);
    if (key !== null) keys.add(key);
  }
  return keys.size;
}

/** Arrivals of a row in total, e.g. `6` or `200+`. */
export function attemptsText(row: Pick<Row, 'counts' | 'countsTruncated'>): string {
  const total = OUTCOMES.reduce((sum, o) => sum + row.counts[o], 0);
  return `${total}${row.countsTruncated ? '+' : ''}`;
}

/**
 * The refused arrivals before the latest one, so that a delivery faulted five times and then
 * accepted does not read like one accepted at once: `after 5 faulted`, `after 2 rejected, 1 faulted`.
 * Null when nothing was refused.
 */
export function historyText(row: Pick<Row, 'counts' | 'outcome'>): string | null {
  const refused = (['rejected', 'faulted', 'unavailable'] as const).filter((o) => row.counts[o] > 0);
  // The latest refusal is what the chip already says: leave it out of the history.
  const counts = { ...row.counts };
  if (row.outcome === 'rejected' || row.outcome === 'faulted' || row.outcome === 'unavailable') counts[row.outcome] -= 1;
  const parts = refused.filter((o) => counts[o] > 0).map((o) => `${counts[o]} ${o}`);
  if (parts.length === 0) return null;
  return row.outcome === 'accepted' || row.outcome === 'duplicate' ? `after ${parts.join(', ')}` : `before: ${parts.join(', ')}`;
}

type VerdictOf = Pick<Row, 'outcome' | 'duplicateCount' | 'reason' | 'status' | 'stored'>;

/** What a stored delivery is: accepted, or received again since. */
const storedState = (row: VerdictOf): 'accepted' | 'duplicate' => (row.duplicateCount > 0 ? 'duplicate' : 'accepted');
const storedVerdict = (row: VerdictOf): string => (storedState(row) === 'duplicate' ? `duplicate ×${row.duplicateCount}` : 'accepted');

/** The latest arrival's refusal, in full; null when it was not refused. */
function refusalText(row: VerdictOf): string | null {
  switch (row.outcome) {
    case 'rejected':
      return `rejected: ${row.reason ?? `HTTP ${row.status ?? '—'}`}`;
    case 'faulted':
      return `faulted: ${row.reason ?? `HTTP ${row.status ?? 'no answer'}`}`;
    case 'unavailable':
      return 'unavailable: store could not write (503)';
    default:
      return null;
  }
}

/**
 * A stored delivery leads with what it is, whatever came after: an arrival refused after it was
 * stored (a copy with a bad signature, a fault) changes nothing stored, and its chip must not read as
 * the delivery refused ("duplicate ×1, then rejected: SIGNATURE_MISMATCH").
 */
function withStored(row: VerdictOf, refusal: string | null): string {
  if (refusal !== null) return row.stored ? `${storedVerdict(row)}, then ${refusal}` : refusal;
  if (row.outcome === 'duplicate') return `duplicate ×${Math.max(1, row.duplicateCount)}`;
  return row.stored || row.outcome === 'accepted' ? storedVerdict(row) : '…';
}

/** The verdict's text: accepted / duplicate ×N / rejected: reason / faulted: rule, a stored delivery's led by what it is. */
export function verdictText(row: VerdictOf): string {
  return withStored(row, refusalText(row));
}

/**
 * The list's chip: the verdict, with a fault rule shortened to its answer ("faulted: 503 (rule)"):
 * the whole rule is a line of its own and wrapped the row to four lines. The title keeps it whole.
 */
export function verdictChipText(row: VerdictOf): string {
  if (row.outcome === 'faulted' && row.reason?.startsWith('fault:')) {
    const answer = row.reason.slice('fault:'.length).trim().split(/\s+/)[0] ?? '';
    return withStored(row, `faulted: ${answer || `HTTP ${row.status ?? 'no answer'}`} (rule)`);
  }
  return verdictText(row);
}

/**
 * The chip's colour: a stored delivery's is its stored state's, whatever was refused since; a store
 * that could not write (unavailable) is hookrelay's own failure, and keeps its colour.
 */
export function verdictClass(row: VerdictOf): string {
  if (row.stored && row.outcome !== 'duplicate' && row.outcome !== 'unavailable') return storedState(row);
  return row.outcome ?? 'accepted';
}

/**
 * The jobs after one relay try: a try of the relay's own (it says whether it is retried: `nextRetryAt`)
 * moves the job of its target (done, pending, or dead when it is not retried); a replay and the sync
 * hand-off move none. Tries are not counted here: the detail reads them.
 */
export function movedJobs(jobs: RelayJobView[], relay: RelayView): RelayJobView[] {
  if (relay.replay || relay.nextRetryAt === undefined || relay.target === undefined) return jobs;
  const state: RelayJobView['state'] = relay.ok ? 'done' : relay.nextRetryAt !== null ? 'pending' : 'dead';
  return jobs.map((job) => (job.target === relay.target ? { ...job, state, nextAt: state === 'pending' ? relay.nextRetryAt ?? null : null, lastResponseStatus: relay.status, lastStatus: relay.status, lastError: relay.error ?? null } : job));
}

/** What a job's target last answered, from this server's name or an older server's; null when none. */
export const lastAnswerOf = (job: RelayJobView): number | null => job.lastResponseStatus ?? job.lastStatus ?? null;

/** The order a fan-out's states are counted in: what needs a hand first. */
const JOB_STATES: ReadonlyArray<RelayJobView['state']> = ['dead', 'held', 'pending', 'done'];

/**
 * A fan-out's jobs in a few words (`1 dead, 2 done (3 targets)`); null for a delivery with one job or
 * none, whose relay cell says it all.
 */
export function relayJobsText(jobs: RelayJobView[] | null): string | null {
  if (!jobs || jobs.length < 2) return null;
  const counts = JOB_STATES.map((state) => [state, jobs.filter((job) => job.state === state).length] as const).filter(([, n]) => n > 0);
  // The counts first: the cell is narrow, and a dead job is what the row must say before it is cut.
  return `${counts.map(([state, n]) => `${n} ${state}`).join(', ')} (${jobs.length} targets)`;
}

/** Each job of a fan-out on its own line (the relay cell's title): target and state. */
export function relayJobsLines(jobs: RelayJobView[] | null): string[] {
  if (!jobs || jobs.length < 2) return [];
  return jobs.map((job) => {
    const status = lastAnswerOf(job);
    return `${job.target ?? '(no target)'}: ${job.state}${status !== null ? ` (${status})` : ''}`;
  });
}

/**
 * The relay cell in two short lines, each cut to the column (the whole of relayText is its title,
 * the whole error is in the detail): what happened, then why it failed and whether it is retried.
 */
export function relayLines(relay: RelayView | null): [string, string | null] {
  if (!relay || relay.ok) return [relayText(relay), null];
  const why = relay.status !== null ? `HTTP ${relay.status}` : (relay.error ?? 'no answer');
  return [`${relay.replay ? 'replay ' : ''}relay failed`, `${why}${relay.nextRetryAt ? ', retrying' : ''}`];
}

/** The relay cell: what happened to the hand-off. */
export function relayText(relay: RelayView | null): string {
  if (!relay) return '—';
  const tag = relay.replay ? 'replay ' : '';
  if (relay.ok) return `${tag}relayed ${relay.status ?? ''}`.trim();
  const why = relay.status !== null ? `HTTP ${relay.status}` : (relay.error ?? 'no answer');
  return `${tag}relay failed: ${why}${relay.nextRetryAt ? ', retrying' : ''}`;
}
