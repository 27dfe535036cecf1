/**
 * The writer thread's boundary, typed once for both sides (sqlite-store.ts on the main thread,
 * writer-worker.ts on the writer): the messages between them, and the operations by name, what
 * each takes and gives back. A new write is a row here, its implementation in the worker, and its
 * method on the store. The batches themselves are packed by batch-codec.ts.
 */
import type { RelayTargets } from '../../core/routes.js';
import type { BridgeCursor, RelayOutcome } from '../store.js';
import type { PruneChunk, PrunePhase } from './prune-chunk.js';

export interface StoreOps {
  /** Rewrites the header page: a real write (and fsync) through the group commit. */
  probe: { args: []; result: number };
  prune: { args: [before: number, phase: PrunePhase, after: number, limit: number, dryRun: boolean, keepAfterSeq: number | null]; result: PruneChunk };
  registerBridgeSubscriber: { args: [name: string, seq: number, now: number]; result: BridgeCursor };
  ackBridge: { args: [name: string, seq: number, now: number]; result: number };
  /** Sent as its own record (batch-codec.ts RELAY): the answer's body travels as bytes. */
  recordRelay: { args: [outcome: RelayOutcome]; result: number };
  /** `target`: only the delivery's job for it (absent: every dead job of the delivery). */
  requeueRelay: { args: [id: string, now: number, target?: string]; result: number };
  holdRelayJobs: { args: [targetsJson: string, now: number]; result: number };
  retargetRelayJobs: { args: [from: string | null, to: string, now: number]; result: number };
  deleteDelivery: { args: [id: string]; result: number };
}

/** A relay try's kept answer as the writer stores it: the header pairs already as their column's JSON. */
export interface PackedAnswer {
  headerLines: number;
  bodyBytes: number;
  complete: boolean;
  headersJson: string;
  body: Buffer;
}

export type StoreOpName = keyof StoreOps;

/** One operation request, its arguments typed by its name. */
export type OpRequest = { [K in StoreOpName]: { kind: 'op'; ticket: number; name: K; args: StoreOps[K]['args'] } }[StoreOpName];

/** The worker's implementations: each takes its row's arguments (recordRelay: the outcome and its packed answer, as decoded). */
export type StoreOpImplementations = { [K in Exclude<StoreOpName, 'recordRelay'>]: (...args: StoreOps[K]['args']) => StoreOps[K]['result'] } & {
  recordRelay(outcome: Omit<RelayOutcome, 'answer'>, answer: PackedAnswer | null): number;
};

/** Results travel as parallel arrays: cheap to clone. */
export interface WriteResults {
  tickets: number[];
  /** Each request's OUTCOME code (batch-codec.ts): 0 failed, 1 accepted, 2 duplicate, 3 recorded. */
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
