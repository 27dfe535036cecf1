/** Shapes of the control API and feed as the page reads them (docs/console.md). */

export type Outcome = 'accepted' | 'duplicate' | 'rejected' | 'faulted' | 'unavailable';

export interface Status {
  version: string;
  receiverUrl: string;
  path: string;
  secretHints: string[];
  skipVerify: boolean;
  forwardTo: string | null;
  toleranceSeconds: number;
  tokenRequired: boolean;
  feedPath: string;
  features: {
    faults: boolean;
    faultValidation: boolean;
    replay: boolean;
    remove: boolean;
    conformance: boolean;
    relayHistory: boolean;
    /** `GET /api/bridge` answers: this process is a bridge's public side or a laptop on one. */
    bridge?: boolean;
    /** `GET /metrics` answers on this listener (the lag and backlog line reads it); absent from an older server: not read. */
    metrics?: boolean;
    /** `/api/replay-jobs` answers: many deliveries can be replayed as one job; absent from an older server. */
    bulkReplay?: boolean;
    /** `/api/targets` answers: this process relays (async) and its targets can be paused; absent from an older server. */
    targets?: boolean;
  };
}

/**
 * A relay target as `GET /api/targets` lists it (its URL's credentials hidden by the server). `target`
 * and `order` are hostile text; the numbers are checked before they are shown (targets-view.ts).
 */
export interface RelayTarget {
  /** Its place in the list, 1 first: what pause and resume name. */
  id: string;
  target: string;
  concurrency: number;
  /** Hand-offs started a second at most; null: no rate. */
  ratePerSecond: number | null;
  burst: number;
  paused: boolean;
  inFlight: number;
  /** Jobs read and waiting in memory for the target's pace. */
  waiting: number;
  /** `order=…` as written; null (or absent, from an older server) when the target is not ordered. */
  order?: string | null;
  onDead?: 'skip' | 'block' | null;
  /** Keys held up by their head: only counted here. */
  blockedKeys?: unknown[];
}

/** A bulk replay job (`/api/replay-jobs`, and the feed's `replayJob`); `selection` and `error` are hostile text. */
export interface ReplayJob {
  id: string;
  createdAt?: string;
  selection?: string;
  total: number;
  done: number;
  ok: number;
  failed: number;
  state: 'running' | 'finished' | 'stopped' | 'failed';
  error?: string;
}

/** A subscriber of the public side's bridge; `subscriber` (`token/name`) is hostile text. */
export interface BridgeSubscriber {
  subscriber: string;
  connected: boolean;
  ackedSeq: number;
  lag: number;
}

/** `GET /api/bridge`: the public side's subscribers (the most behind first), or the laptop's client. */
export type BridgeView =
  | { side: 'public'; total: number; connected: number; subscribers: BridgeSubscriber[] }
  | { side: 'laptop'; state: string; host: string; name: string; receivedSeq: number; ackedSeq: number; lag: number; reconnects: number };

export interface AttemptView {
  seq: number;
  deliveryId: string | null;
  trigger: string | null;
  receivedAt: number;
  finishedAt: number;
  attemptHeader: number | null;
  signatureTimestamp: number | null;
  bodySha256: string;
  bodyBytes: number;
  outcome: Outcome;
  status: number | null;
  reason: string | null;
  retryAfter: string | null;
  skipVerify?: boolean;
  /** Why a rejection happened, in `hookrelay verify`'s words (trailing newline in the secret, re-serialised body, clock skew). */
  hints?: string[];
  /** Detail only: the headers of this arrival, in order (null when none were kept). */
  headers?: Array<[string, string]> | null;
  /** Detail only: the body a refused or faulted arrival sent, when it was kept. */
  body?: BodyView | null;
  /** Detail only: which of the sender's attempts this arrival belongs to (1 = its first); its redirect hops share it. */
  senderAttempt?: number;
  /** Detail only: 0 for the request that opened the attempt, n for its n-th redirect hop. */
  hop?: number;
}

/** What the target answered to a relay try: its header lines (at most 100) and the first 4 KiB of its body. */
export interface RelayAnswerView {
  headers: Array<[string, string]>;
  /** Header lines the answer had: more than `headers.length` when some were left out. */
  headerLines: number;
  body: BodyView;
  /** Body bytes seen: the size when `complete`, else at least this many. */
  bodyBytes: number;
  complete: boolean;
}

export interface RelayView {
  at: number;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  replay: boolean;
  error?: string;
  nextRetryAt?: number | null;
  target?: string;
  /** Detail only: what the target answered; null when it was not kept (a try recorded before hookrelay kept answers, or no answer), or left out. */
  answer?: RelayAnswerView | null;
  /** Detail only: the answer was kept but left out of the detail, which carries the newest tries' answers (at most 20, 1 MiB). */
  answerLeftOut?: boolean;
}

export interface DeliverySummary {
  seq: number;
  id: string;
  trigger: string;
  apiVersion: string;
  apiVersionKnown: boolean;
  receivedAt: number;
  lastAttemptAt: number;
  duplicateCount: number;
  bodyBytes: number;
  signature: 'valid' | 'skipped';
  secretHint: string | null;
  signatureTimestamp: number | null;
  latestAttempt?: AttemptView | null;
  relay?: RelayView | null;
  /** List items only: the delivery's relay jobs, one per target (null when the store could not say). */
  relayJobs?: RelayJobView[] | null;
  /** List items only: the delivery's arrivals by outcome, counted in one read (see AttemptTally). */
  attempts?: AttemptTally;
}

/**
 * A delivery's arrivals by outcome as one API read saw them. `throughSeq` is the seq of the newest
 * attempt counted: attempts are numbered by one global sequence, so an attempt from the feed with a
 * higher seq is newer than the tally and one with a lower or equal seq is already in it.
 */
export interface AttemptTally {
  throughSeq: number;
  total: number;
  /** More arrivals exist than were counted. */
  truncated: boolean;
  byOutcome: Record<Outcome, number>;
}

export interface BodyView {
  bytes: number;
  sha256: string;
  bom: boolean;
  invalidUtf8: boolean;
  inline: boolean;
  text: string;
  base64: string;
}

/**
 * A relay job of a stored delivery (one per target): `dead` once the relay gave up (Retry puts it
 * back in the queue). Every string is hostile text: shown as text, never parsed.
 */
export interface RelayJobView {
  /** Its place among the delivery's jobs (1, 2, …): what Retry names. Absent from an older server. */
  job?: number;
  state: 'pending' | 'held' | 'done' | 'dead';
  tries: number;
  /** When a pending job is due, ms since the epoch. */
  nextAt: number | null;
  /** Where it goes, credentials redacted; null for a job queued before targets were kept. */
  target: string | null;
  /** What its target last answered; null when there was no answer (or no try yet). Absent from an older server. */
  lastResponseStatus?: number | null;
  /** The same, under the name an older server sends (deprecated there). */
  lastStatus?: number | null;
  lastError?: string | null;
}

/** Known fields of a delivery missing or of another type than its trigger's schema says (`hookrelay schema`). */
export interface SchemaDriftView {
  trigger: string;
  /** At most five, each `<JSON pointer>: <what was there> (<what> expected)`: hostile text, shown as text. */
  problems: string[];
  /** Findings not listed. */
  more: number;
}

export interface DeliveryDetail {
  delivery: DeliverySummary;
  /** Null when the body matches its schema or its trigger has none; absent from an older server. */
  drift?: SchemaDriftView | null;
  headers: Array<[string, string]>;
  body: BodyView;
  signature: {
    state: 'valid' | 'skipped';
    secretHint: string | null;
    secretIndex: number | null;
    timestamp: number | null;
    skewSeconds: number | null;
    toleranceSeconds: number;
  };
  attempts: AttemptView[];
  attemptsTruncated: boolean;
  relay: RelayView[] | null;
  /** One per target, in the order they were queued ([] when the delivery has none); null when the store could not say; absent from an older server. */
  relayJobs?: RelayJobView[] | null;
  conformance: unknown;
}

/** `GET /api/deliveries/:id/attempts`: every arrival of an id, stored or not, with what each sent. */
export interface AttemptsDetail {
  id: string;
  stored: boolean;
  attempts: AttemptView[];
  attemptsTruncated: boolean;
  conformance: unknown;
}

export interface CursorInfo {
  nextCursor: string | null;
  hasMore: boolean;
  limit: number;
}

export type FeedMessage =
  | { n: number; type: 'attempt'; data: AttemptView }
  | { n: number; type: 'delivery'; data: DeliverySummary }
  | { n: number; type: 'relay'; data: RelayView & { deliveryId: string } }
  | { n: number; type: 'rules'; data: { change: string; count: number; rules?: unknown[] } }
  | { n: number; type: 'notice'; data: { level: 'info' | 'warn' | 'error'; message: string } }
  | { n: number; type: 'deleted'; data: { id: string } }
  | { n: number; type: 'replayJob'; data: ReplayJob };
