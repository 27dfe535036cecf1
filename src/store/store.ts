/**
 * The store contract. Every driver (SQLite in a writer thread, the in-memory double, later
 * PostgreSQL) implements it, and one contract suite (test/store/store-contract.ts) runs
 * against each.
 */

export type {
  AttemptInput,
  AttemptOutcome,
  AttemptRecord,
  KeptAnswer,
  KeptRequest,
  NewDelivery,
  RelayAttemptRecord,
  RelayJob,
  SignatureState,
  StoredDelivery,
} from '../core/records.js';
import type { AttemptInput, AttemptOutcome, AttemptRecord, NewDelivery, RelayAttemptRecord, RelayJob, StoredDelivery } from '../core/records.js';
export { relayJobKey } from '../core/records.js';

export interface AcceptResult {
  outcome: 'accepted' | 'duplicate';
  deliverySeq: number;
  /** The seq of the attempt row written with it: what the console merges live attempts by. */
  attemptSeq: number;
}

export interface DeliveryQuery {
  /** Return deliveries with seq below this (from `nextCursor`). */
  before?: number;
  limit: number;
  trigger?: string;
  /** Only deliveries that were received more than once. */
  duplicatesOnly?: boolean;
  /** Substring of the id, trigger or body text. */
  text?: string;
}

export interface DeliveryPage {
  items: StoredDelivery[];
  /** Pass back as `before`; null on the last page. */
  nextCursor: number | null;
}

export interface AttemptQuery {
  deliveryId?: string;
  outcomes?: readonly AttemptOutcome[];
  /** Only attempts with seq below this. */
  before?: number;
  /** Only attempts received at or after this time (ms since the epoch). */
  since?: number;
  limit: number;
  /**
   * Also read what each attempt kept of its request (`request`: headers and raw body, or null).
   * Off by default: lists, tallies and the conformance judge never read bodies.
   */
  withRequest?: boolean;
}


/** Options of `relayHistory`. */
export interface RelayHistoryOptions {
  /** Also read what the target answered to each try (headers, the first 4 KiB of the body). */
  withAnswers?: boolean;
  /** With `withAnswers`: only the newest this many tries carry their answer (the others read as null). */
  answersOfNewest?: number;
}

/** What one relay try did, and what becomes of the job (null for replays: the job is untouched). */
export interface RelayOutcome extends Omit<RelayAttemptRecord, 'seq'> {
  next: { state: 'done' } | { state: 'pending'; nextAt: number } | { state: 'dead' } | null;
  /**
   * The target of the job the try moves, as queued: `target` is what the try shows (its credentials
   * hidden), so a job whose URL holds some is named by this. Absent: `target`.
   */
  jobTarget?: string;
}

/** The target a relay outcome's job was queued for (RelayOutcome.jobTarget). */
export const jobTargetOf = (outcome: Pick<RelayOutcome, 'target' | 'jobTarget'>): string => outcome.jobTarget ?? outcome.target;

/** One group commit of accepts, for metrics: how long it took, how many requests it carried, whether it committed. */
export interface CommitReport {
  ms: number;
  size: number;
  ok: boolean;
}

/** What a prune removed (or, dry, would remove). */
export interface PruneResult {
  /** Deliveries last seen before this time (ms since the epoch) were candidates. */
  before: number;
  deliveries: number;
  /** Attempts removed: those of the removed deliveries, and refused ones (no stored delivery) as old. */
  attempts: number;
  relayAttempts: number;
  /** Old deliveries kept because their relay job is still pending. */
  keptPending: number;
  dryRun: boolean;
}

/** Options of `prune`. */
export interface PruneOptions {
  /** Only count what would go. */
  dryRun?: boolean;
  /**
   * A delivery whose seq is greater than this is never pruned, however old (the bridge passes the
   * smallest cursor of its live subscribers: bridgeRetentionFloor in bridge-cursors.ts).
   */
  keepAfterSeq?: number;
  /**
   * Aborted: the prune stops between two of its transactions and resolves with what it removed so
   * far (a stopping node does not wait for a long prune; the next one carries on).
   */
  signal?: AbortSignal;
  /** After each of its transactions, with what the prune removed so far (progress; tests). */
  onBatch?: (sofar: PruneResult) => void | Promise<void>;
}

/** A bridge subscriber's durable cursor: the last delivery seq it acknowledged (0 before any). */
export interface BridgeCursor {
  name: string;
  ackedSeq: number;
  updatedAt: number;
}

/** A key of an ordered target whose later deliveries wait for its head (RelayOutbox.blockedOrderKeys). */
export interface BlockedOrderKey {
  target: string;
  /** As stored: `t:TRIGGER`, `v:` and the value's compact JSON, or `-` (missing). */
  key: string;
  /** The head: the delivery the key waits for. */
  deliveryId: string;
  state: 'pending' | 'dead';
  tries: number;
  lastStatus: number | null;
  lastError: string | null;
  /** Later jobs of the key, waiting. */
  waiting: number;
}

/** Relay jobs by state: `held` are owed too, for a target the running relay does not hand on to. */
export interface RelayCounts {
  pending: number;
  held: number;
  done: number;
  dead: number;
}

/** The jobs still owed (pending, held) or given up (dead) for one target. */
export interface RelayBacklog {
  target: string | null;
  pending: number;
  held: number;
  dead: number;
  /** When the oldest delivery still owed to it (pending or held) arrived, ms since the epoch; null when none is owed. */
  oldestOwedAt: number | null;
  /** Owed jobs that have been tried and failed at least once (the target is failing, or was). */
  retrying: number;
}

/** Adds one group of backlog rows (target, state, count, oldest arrival, retried) into per-target entries: the one fold every driver uses. */
export function foldBacklog(rows: Iterable<{ target: string | null; state: string; n: number | string; oldest: number | string | null; retrying: number | string | null }>): RelayBacklog[] {
  const byTarget = new Map<string | null, RelayBacklog>();
  for (const row of rows) {
    const entry = byTarget.get(row.target) ?? { target: row.target, pending: 0, held: 0, dead: 0, oldestOwedAt: null, retrying: 0 };
    byTarget.set(row.target, entry);
    if (row.state !== 'pending' && row.state !== 'held' && row.state !== 'dead') continue;
    entry[row.state] += Number(row.n);
    if (!isOwed(row.state)) continue;
    entry.retrying += Number(row.retrying ?? 0);
    if (row.oldest !== null) entry.oldestOwedAt = Math.min(entry.oldestOwedAt ?? Infinity, Number(row.oldest));
  }
  return [...byTarget.values()];
}

/** A job the outbox still owes: retention never removes its delivery. */
export const isOwed = (state: string | null): boolean => state === 'pending' || state === 'held';

/** Counts for `db stats` and operators. */
export interface StoreStats {
  deliveries: number;
  attempts: Record<AttemptOutcome, number>;
  relayJobs: RelayCounts;
  /** Received time of the oldest and newest stored delivery (ms since the epoch); null when empty. */
  oldestReceivedAt: number | null;
  newestReceivedAt: number | null;
}

/** What a hand-off reads of a delivery from the outbox, and no more: a store may leave out the rest. */
export type OutboxDelivery = Pick<StoredDelivery, 'seq' | 'id' | 'trigger' | 'receivedAt' | 'headers' | 'rawBody'>;

/**
 * The store's four contracts, each with its own suite in test/store/store-contract.ts. A part that
 * needs one asks for that one; the drivers (SQLite, PostgreSQL, memory) give all four as DeliveryStore.
 */

/** Deliveries and their attempts: what the receiver writes and every list reads. */
export interface DeliveryLog {
  /**
   * Stores `delivery` unless a delivery with its id is stored already, and records `attempt`
   * as `accepted` or `duplicate`, in one durable transaction. Resolves only after the commit;
   * rejects with a StoreUnavailableError when it cannot write.
   */
  accept(delivery: NewDelivery, attempt: AttemptInput): Promise<AcceptResult>;
  /**
   * Records an attempt that stores no delivery (rejected, faulted, unavailable), with its `hints`
   * and the `request` it kept (headers and raw body), if any: they are removed with the attempt
   * (delete, prune). A duplicate (`accept`) keeps the headers it arrived with; an accepted attempt
   * keeps nothing of its own: its delivery holds its request.
   */
  recordAttempt(attempt: AttemptInput): Promise<number>;
  getDelivery(id: string): Promise<StoredDelivery | undefined>;
  listDeliveries(query: DeliveryQuery): Promise<DeliveryPage>;
  /** Newest first; `request` only with `withRequest`, `hints` when there are any. */
  listAttempts(query: AttemptQuery): Promise<AttemptRecord[]>;
  /** How many arrivals were recorded for this delivery id, whatever their outcome (survives restarts). */
  countArrivals(deliveryId: string): Promise<number>;
  /** Removes a delivery with its attempts and relay history. False when it was not stored. */
  deleteDelivery(id: string): Promise<boolean>;
}

/**
 * The relay outbox: one job per accepted delivery and target (relayJobsOf in core/routes.ts), its
 * tries, and where each is owed. A job is named by its delivery and target (relayJobKey); a job
 * queued before targets were kept has none, and is its delivery's only job.
 */
export interface RelayOutbox {
  /**
   * Pending relay jobs due at `now`, oldest first, with their deliveries. Jobs whose relayJobKey
   * is in `skip` (every job the caller holds: read, in flight or being recorded) are left out. A
   * store shared by several instances (`claimsRelayJobs`) claims what it returns for this
   * instance: no other instance gets the job while this one lives; `recordRelay` ends the claim,
   * and a killed instance's jobs come back within its time to live (pg-instance-heartbeat.ts).
   * A job this instance claimed and its caller no longer holds (not in `skip`) is returned again,
   * so one caller claims at a time. Jobs queued for a target in `skipTargets` (one whose pace lets
   * nothing start now) are left out too.
   */
  dueRelayJobs(now: number, limit: number, skip?: ReadonlySet<string>, skipTargets?: readonly string[]): Promise<Array<{ job: RelayJob; delivery: OutboxDelivery }>>;
  /**
   * True when dueRelayJobs claims (PostgreSQL): jobs in flight are not returned again, by this
   * instance or another.
   */
  readonly claimsRelayJobs?: boolean;
  /**
   * Gives back this instance's claims of these jobs (relayJobKey; still pending): the relay let them
   * go (their target paused, or more of them read than its pace lets start) and another instance may
   * take them.
   */
  releaseRelayClaims?(jobKeys: readonly string[]): Promise<void>;
  /**
   * Records a relay try, with what the target answered (`answer`: bounded by the hand-off, removed
   * with the try), and moves its job, durably: the job of `deliverySeq` for jobTargetOf(outcome), or
   * its delivery's job queued before targets were kept (`next` null, a replay: no job moves).
   */
  recordRelay(outcome: RelayOutcome): Promise<void>;
  /**
   * The jobs (one per target, in the order they were queued; none when the delivery has no job) and
   * every relay try of a delivery, oldest first; with `withAnswers`, each try with what the target
   * answered (`answer`, null when none was kept). Lists and counts leave it out.
   */
  relayHistory(deliveryId: string, options?: RelayHistoryOptions): Promise<{ jobs: RelayJob[]; attempts: RelayAttemptRecord[] }>;
  /**
   * Puts a delivery's dead jobs (only its job for `target`, when given) back in the queue, due now.
   * False when none was dead: a done job was handed on already, and a pending one is still queued.
   */
  requeueRelay(deliveryId: string, now: number, target?: string): Promise<boolean>;
  relayCounts(): Promise<RelayCounts>;
  /** What the outbox owes, by the target each job was queued for (null: queued before targets were kept); done jobs left out. */
  relayBacklog(): Promise<RelayBacklog[]>;
  /**
   * The keys of ordered targets held up by their head: a job that failed and waits to be tried again,
   * or a dead one where dead jobs block (`on-dead=block`), with later jobs of its key waiting behind
   * it, for one target. Oldest first, at most `limit`. The stores that keep no order answer none.
   */
  blockedOrderKeys(target: string, limit: number): Promise<BlockedOrderKey[]>;
  /**
   * At the start of a relay that hands on to `targets`: its pending jobs for any other target are
   * held (they wait for a run that forwards there), and held jobs for one of `targets` are pending
   * again. Jobs queued before targets were kept are left pending. Resolves how many moved. Durable.
   */
  holdRelayJobs(targets: readonly string[], now: number): Promise<number>;
  /**
   * `events retarget`: pending and held jobs queued for `from` (null: before targets were kept) go to
   * `to`, pending. A delivery that has a job for `to` already keeps that one, and its job for `from`
   * is removed (a delivery is handed to a target once). Resolves how many moved or were so merged. Durable.
   */
  retargetRelayJobs(from: string | null, to: string, now: number): Promise<number>;
}

/** The bridge's reads and its subscribers' durable cursors. */
export interface BridgeCursors {
  /**
   * Stored deliveries with seq > afterSeq, in seq order (oldest first), at most `limit`; `triggers`: only these
   * trigger globs (`*` any run, `?` one char; src/core/faults/glob.ts globMatch) when given and non-empty.
   * On PostgreSQL, seqs may become visible out of order across instances: see the known limit in pg-store.ts.
   */
  deliveriesAfter(afterSeq: number, limit: number, triggers?: readonly string[]): Promise<StoredDelivery[]>;
  /**
   * How many of the deliveries with afterSeq < seq <= upToSeq `deliveriesAfter` would give under the
   * same `triggers` (what a resuming subscriber will get), reading no body. On PostgreSQL up to the
   * commit-order horizon, as deliveriesAfter reads. A store whose reads run on the caller's thread
   * (SQLite, memory) reads at most `most` rows, and resolves null when the range holds more.
   */
  countDeliveriesAfter(afterSeq: number, upToSeq: number, triggers?: readonly string[], most?: number): Promise<number | null>;
  /** The subscriber's cursor, or null for a name never seen. */
  bridgeCursor(name: string): Promise<BridgeCursor | null>;
  /** Creates the subscriber at `seq` if new (its starting point); never moves an existing one. Resolves with the cursor as stored. Durable. */
  registerBridgeSubscriber(name: string, seq: number, now: number): Promise<BridgeCursor>;
  /**
   * Moves the cursor forward to `seq` (never backwards: a smaller seq is a no-op); the same seq again
   * refreshes its time, which is how a connected but quiet subscriber keeps holding retention. Durable before it resolves
   * (the server acknowledges nothing it has not stored). An unknown name is created at `seq`.
   */
  ackBridge(name: string, seq: number, now: number): Promise<void>;
  /** Every known subscriber, for retention and metrics, by name. */
  bridgeCursors(): Promise<BridgeCursor[]>;
  /** The newest stored delivery seq (0 when empty). */
  latestDeliverySeq(): Promise<number>;
}

/** Retention, counts, readiness and closing. */
export interface Housekeeping {
  /**
   * Retention: removes deliveries last seen before `before` (ms since the epoch) with their
   * attempts and relay history, and refused attempts as old. Never removes a delivery with a relay
   * job still owed (pending or held, for any of its targets), so nothing accepted is lost; what is kept within the
   * window stays deduped. `dryRun` only counts. A delivery with seq above `keepAfterSeq` is kept
   * (a bridge subscriber still owes it), with the refused attempts that claim its id.
   */
  prune(before: number, options?: PruneOptions): Promise<PruneResult>;
  /** Counts of what is stored. */
  stats(): Promise<StoreStats>;
  /** Readiness (`/readyz`): one small real write through the write path; rejects when the store cannot write. */
  probe(): Promise<void>;
  /** Finishes pending writes and releases the store. */
  close(): Promise<void>;
}

export interface DeliveryStore extends DeliveryLog, RelayOutbox, BridgeCursors, Housekeeping {}

/** The store could not durably write; the receiver answers 503 and acknowledges nothing. */
export class StoreUnavailableError extends Error {
  readonly code = 'STORE_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Joins flat raw headers into pairs. */
export function pairHeaders(raw: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
  return pairs;
}
