/** Messages between the store (main thread) and the writer thread that owns the database. */
import type { RelayTargets } from '../../core/routes.js';
export type { WriteRequest } from './batch-codec.js';

/** Results travel as parallel arrays: cheap to clone. */
export interface WriteResults {
  tickets: number[];
  /** 0 failed, 1 accepted, 2 duplicate, 3 recorded. */
  outcomes: number[];
  deliverySeqs: number[];
  /** The seq of the attempt row each request wrote (0 for an operation). */
  attemptSeqs: number[];
  /** Set when the whole batch failed (it rolled back: nothing in it is stored). */
  error: string | null;
  /** By index: what an operation returned when it is more than a number (a prune chunk). */
  details?: Record<number, unknown>;
}

/** One group commit, for metrics: its duration (retries and the test delay included) and how many requests it held. */
export interface CommitStats {
  ms: number;
  size: number;
}

export const OUTCOME_CODES = ['failed', 'accepted', 'duplicate', 'recorded'] as const;

/** The code of each outcome, as the writer sends it (an index into OUTCOME_CODES). */
export const OUTCOME = { failed: 0, accepted: 1, duplicate: 2, recorded: 3 } as const satisfies Record<(typeof OUTCOME_CODES)[number], number>;

export type ToWriter = { type: 'batch'; packed: Uint8Array } | { type: 'close' };

export type FromWriter =
  | { type: 'ready' }
  | { type: 'fatal'; error: string }
  | { type: 'results'; results: WriteResults; commit?: CommitStats }
  | { type: 'closed' };

export interface WriterData {
  path: string;
  port: MessagePort;
  /** Test knob: sleep this long before each commit (a slow disk). */
  commitDelayMs: number;
  /** Write a relay job with every accepted delivery (forwarding is on), for the target its trigger is routed to (true: no target kept). */
  outbox: boolean | RelayTargets;
  /** WAL in use past which the writer finishes a checkpoint between commits. */
  walRestartBytes: number;
}
