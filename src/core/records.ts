/**
 * What hookrelay records: attempts, deliveries and relay tries. Plain data, shared by the pure core
 * (the conformance judge reads attempts) and every layer above it; the store contract is in store/.
 */

/** What hookrelay did with one arrival. */
export type AttemptOutcome =
  | 'accepted' // stored for the first time
  | 'duplicate' // id already stored: answered 2xx, not handed on again
  | 'rejected' // refused before storing (size, signature, envelope)
  | 'faulted' // answered by a fault rule
  | 'unavailable'; // the store could not write: answered 503

/** One arrival at the receiver, as recorded. Times are milliseconds since the epoch. */
export interface AttemptRecord {
  /** Store-assigned, increasing in arrival-record order. */
  seq: number;
  /** `x-service-delivery` as sent (null when absent). */
  deliveryId: string | null;
  /** `x-service-event` as sent (null when absent). */
  trigger: string | null;
  receivedAt: number;
  /** When the answer was sent or the connection ended (a hang ends when the client gives up). */
  finishedAt: number;
  /** `x-service-delivery-attempt`, when it is a positive integer. */
  attemptHeader: number | null;
  /** `t` of the signature header, when it parses. */
  signatureTimestamp: number | null;
  /** Lower-case hex SHA-256 of the raw body. */
  bodySha256: string;
  bodyBytes: number;
  outcome: AttemptOutcome;
  /** HTTP status answered; null when no response was given (reset, close, hang). */
  status: number | null;
  /** Error code or fault description naming why (null for a plain accept). */
  reason: string | null;
  /** The Retry-After value hookrelay sent with its answer, if any. */
  retryAfter: string | null;
  /**
   * Why a rejection happened, in the words of its likely cause (the hints `hookrelay verify` prints:
   * a secret with a trailing newline, a re-serialised body, a clock skew of N s). Present only when
   * there is at least one.
   */
  hints?: string[];
  /**
   * What the arrival sent, when it stored no delivery of its own: present only when the attempt was
   * read with `withRequest`, null when nothing was kept (issue 13, item 8).
   */
  request?: KeptRequest | null;
}

/**
 * The request of an arrival that is not a stored delivery (rejected, faulted, unavailable; for a
 * duplicate, its headers), kept so that it can be inspected, exported and verified again.
 */
export interface KeptRequest {
  /** Names and values in arrival order, exactly as received (the signature too: every export redacts it). */
  headers: Array<[name: string, value: string]>;
  /**
   * The raw body, byte for byte; null when it was not kept: never read (over --body-limit, a wrong
   * Content-Length), or a duplicate's (its `bodySha256` says whether it equals the stored body).
   */
  body: Buffer | null;
}

export type AttemptInput = Omit<AttemptRecord, 'seq'>;

export type SignatureState = 'valid' | 'skipped';

/** A verified delivery about to be stored. */
export interface NewDelivery {
  id: string;
  trigger: string;
  apiVersion: string;
  /** False when `apiVersion` is not the one this build knows: accepted, but marked. */
  apiVersionKnown: boolean;
  receivedAt: number;
  /** The body exactly as received. */
  rawBody: Buffer;
  /** Header names and values in arrival order, flat as Node's `rawHeaders`. */
  rawHeaders: readonly string[];
  signature: SignatureState;
  /** Which configured secret matched (0 = primary); null when verification was skipped. */
  secretIndex: number | null;
  signatureTimestamp: number | null;
}

export interface StoredDelivery extends Omit<NewDelivery, 'rawHeaders'> {
  seq: number;
  headers: Array<[name: string, value: string]>;
  /** Arrivals of this id that were answered 2xx after it was stored. */
  duplicateCount: number;
  lastAttemptAt: number;
}

/** A delivery just stored, as the receiver holds it: handed on without reading it back. */
export interface FreshDelivery {
  seq: number;
  id: string;
  trigger: string;
  receivedAt: number;
  rawBody: Buffer;
  /** Flat, as received: name, value, name, value… */
  rawHeaders: readonly string[];
}

/**
 * The relay hand-off of one accepted delivery to one target (its outbox job). A delivery has one
 * job per target (`--also`, routes of several targets): a job is named by its delivery and target.
 */
export interface RelayJob {
  deliverySeq: number;
  deliveryId: string;
  /**
   * `held`: pending, but for a target the running process does not hand on to (it was queued by an
   * earlier run with another --forward-to or route): it waits for a run that forwards there, or for
   * `hookrelay events retarget`; never handed to another target by itself.
   */
  state: 'pending' | 'held' | 'done' | 'dead';
  /** Where the job goes, chosen when it was queued (its route, else --forward-to); null for a job queued before targets were kept. */
  target: string | null;
  tries: number;
  /** When a pending job is due, ms since the epoch. */
  nextAt: number;
  lastStatus: number | null;
  lastError: string | null;
}

/**
 * The one name of a relay job among a worker's and a store's sets: its delivery's seq and its target
 * (empty for a job queued before targets were kept: a delivery has at most one such job). The stores
 * build the same text in SQL: `delivery_seq || '|' || coalesce(target, '')`.
 */
export const relayJobKey = (job: { deliverySeq: number; target: string | null }): string => `${job.deliverySeq}|${job.target ?? ''}`;

/**
 * What the target answered to one relay try, as kept (issue 13, item 13). Bounded whatever the
 * answer: at most 100 header lines, each value cut at 2 KiB, and the first 4 KiB of the body.
 */
export interface KeptAnswer {
  /** Names and values in the order received, their bytes read as Latin-1 (as Node reads headers): the first 100. */
  headers: Array<[name: string, value: string]>;
  /** Header lines the answer had: more than `headers.length` when some were left out. */
  headerLines: number;
  /** The first 4096 bytes of the body (all of it when it is smaller). */
  body: Buffer;
  /** Body bytes seen: the body's size when `complete`, else how many arrived before hookrelay stopped reading (over 64 KiB, cut, out of time). */
  bodyBytes: number;
  /** The body was read to its end. */
  complete: boolean;
}

/** One try to hand a delivery on (relay or explicit replay). */
export interface RelayAttemptRecord {
  seq: number;
  deliverySeq: number;
  startedAt: number;
  finishedAt: number;
  /** HTTP status from the target; null when there was no answer. */
  status: number | null;
  error: string | null;
  replay: boolean;
  target: string;
  /** 1 for the first try of the job; replays count their own. */
  try: number;
  /**
   * What the target answered: present only when read `withAnswers`; null when nothing was kept (no
   * answer came, or the try was recorded before hookrelay kept answers).
   */
  answer?: KeptAnswer | null;
}
