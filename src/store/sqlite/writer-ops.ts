/**
 * The writer thread's operations by name: what each takes and gives back, typed once for both sides
 * of the thread boundary (sqlite-store.ts sends them, writer-worker.ts implements them). A new write
 * is a row here, its implementation in the worker, and its method on the store.
 */
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
