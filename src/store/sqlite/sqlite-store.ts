/**
 * The SQLite driver: a writer thread owns all writes (group commit), a checkpoint thread copies
 * the WAL into the database and the writer keeps it bounded, and reads run on a connection of
 * their own in this thread.
 */
import { deadBlockingTargets, type RelayTargets } from '../../core/routes.js';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MessageChannel, type Worker } from 'node:worker_threads';
import {
  StoreUnavailableError,
  type AcceptResult,
  type AttemptInput,
  type BridgeCursor,
  type CommitReport,
  type DeliveryStore,
  type NewDelivery,
  type PruneResult,
} from '../store.js';
import { checkBridgeCursorArgs } from '../bridge-cursors.js';
import { createTicketQueue } from '../../runtime/ticket-queue.js';
import { openDatabase } from './open-database.js';
import type { PruneChunk } from './prune-chunk.js';
import { createSqliteReader } from './sqlite-reader.js';
import { readStoreStats } from './sqlite-stats.js';
import { spawnWorker } from './spawn-worker.js';
import { encodeBatch, OUTCOME_CODES, type WriteRequest } from './batch-codec.js';
import type { FromWriter, OpRequest, StoreOpName, StoreOps, ToWriter, WriteResults } from './writer-ops.js';

/** How long an opened store that has not written waits before it starts its checkpoint thread. */
const CHECKPOINTER_IDLE_START_MS = 5000;

type WriteResult =
  | { ticket: number; ok: true; outcome: 'accepted' | 'duplicate' | 'recorded'; deliverySeq: number; attemptSeq: number; detail?: unknown }
  | { ticket: number; ok: false; error: string };

export interface SqliteStoreOptions {
  /** How often the checkpoint thread runs a PASSIVE checkpoint (default 1 s). */
  checkpointIntervalMs?: number;
  /** WAL in use past which the writer finishes a checkpoint between commits, so the WAL starts over (default 64 MiB). */
  walRestartBytes?: number;
  /** A write not committed within this time is answered as unavailable (503, never a 2xx). */
  writeTimeoutMs?: number;
  /** Test knob: the writer sleeps this long before each commit, simulating a slow disk. */
  commitDelayMs?: number;
  /** Write a relay outbox job with every accepted delivery (forwarding is on), for the target its trigger is routed to (true: no target kept). */
  outbox?: boolean | RelayTargets;
  /** Called once per group commit (metrics: commit latency and batch size); ok false when it rolled back. */
  onCommit?: (report: CommitReport) => void;
}

/** Deliveries (or attempts) looked at per prune transaction: intake commits run in between. */
const PRUNE_CHUNK = 500;

export interface SqliteStore extends DeliveryStore {
  readonly path: string;
  prune: NonNullable<DeliveryStore['prune']>;
  stats: NonNullable<DeliveryStore['stats']>;
  probe: NonNullable<DeliveryStore['probe']>;
}

/** A write sent to the writer thread and not answered yet. */
interface Waiter {
  ticket: number;
  /** performance.now() time past which it is answered as unavailable. */
  at: number;
  resolve: (r: WriteResult) => void;
}

export async function createSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  const writeTimeoutMs = options.writeTimeoutMs ?? 5000;

  const channel = new MessageChannel();
  const writer = spawnWorker(import.meta.url, 'writer-worker', {
    workerData: { path: file, port: channel.port2, commitDelayMs: options.commitDelayMs ?? 0, outbox: options.outbox ?? false, walRestartBytes: options.walRestartBytes ?? 64 * 1024 * 1024 },
    transferList: [channel.port2],
  });
  const port = channel.port1;
  const waiters = createTicketQueue<Waiter>();
  let closing: Promise<void> | null = null;
  let writerDead: string | null = null;
  let closedResolve: (() => void) | null = null;

  const ready = new Promise<void>((resolveReady, rejectReady) => {
    writer.once('error', (err) => rejectReady(err));
    port.on('message', (message: FromWriter) => {
      switch (message.type) {
        case 'ready':
          resolveReady();
          break;
        case 'fatal':
          rejectReady(new Error(`cannot open the database ${file}: ${message.error}`));
          break;
        case 'results':
          settleAll(message.results);
          if (message.commit && options.onCommit) {
            try {
              options.onCommit({ ...message.commit, ok: message.results.error === null });
            } catch {
              /* an observer never breaks intake */
            }
          }
          break;
        case 'closed':
          closedResolve?.();
          break;
      }
    });
  });
  writer.on('error', (err) => failAll(`the writer thread failed: ${err.message}`));
  writer.on('exit', () => failAll('the writer thread stopped'));
  await ready.catch(async (err) => {
    await writer.terminate();
    throw err;
  });
  // The writer stays referenced only while writes are in flight: an idle store never keeps
  // the process alive by itself.
  writer.unref();
  port.unref();

  // Started at the first write of a delivery, relay outcome or the like, or after
  // CHECKPOINTER_IDLE_START_MS: booting a thread costs ~100 ms of CPU, which a store that is only
  // opened (the CLI's reads; a listen before its first delivery, whose start-up prune and readiness
  // probes write next to nothing) should not pay before it answers. The timer still copies a WAL
  // left from before, or from a large prune.
  let checkpointer: Worker | null = null;
  const startCheckpointer = (): void => {
    if (checkpointer !== null || closing !== null) return;
    clearTimeout(checkpointerTimer);
    try {
      checkpointer = spawnWorker(import.meta.url, 'checkpoint-worker', {
        // Every second, not every 200 ms: each pass fsyncs the database file, and a commit's WAL fsync
        // that queues behind it is the receive path's slowest answer. Measured (bench/notes.md, session
        // 9): p99 ~20–25 → ~15–19 ms at the same throughput under the bench's load.
        workerData: { path: file, intervalMs: options.checkpointIntervalMs ?? 1000 },
      });
    } catch {
      return; // checkpointing is an optimisation; SQLite checkpoints at the next open
    }
    checkpointer.unref();
    checkpointer.on('error', () => {
      /* as above */
    });
  };
  /** Writes that do not start the checkpoint thread: a start-up prune of nothing, a readiness probe. */
  const housekeeping = (request: WriteRequest): boolean => request.kind === 'op' && (request.name === 'prune' || request.name === 'probe');
  const checkpointerTimer = setTimeout(startCheckpointer, CHECKPOINTER_IDLE_START_MS);
  checkpointerTimer.unref();

  const readDb = openDatabase(file, { readonly: true });
  const reader = createSqliteReader(readDb);
  const deadBlocks = deadBlockingTargets(options.outbox);

  function failAll(reason: string): void {
    writerDead ??= reason;
    for (const waiter of waiters.takeAll()) answer(waiter, { ticket: waiter.ticket, ok: false, error: reason });
  }

  function settleAll(results: WriteResults): void {
    const { tickets, outcomes, deliverySeqs, attemptSeqs, error, details } = results;
    for (let i = 0; i < tickets.length; i++) {
      if (error !== null) settle({ ticket: tickets[i]!, ok: false, error });
      else {
        const result: WriteResult = { ticket: tickets[i]!, ok: true, outcome: OUTCOME_CODES[outcomes[i]!] as 'accepted', deliverySeq: deliverySeqs[i]!, attemptSeq: attemptSeqs[i] ?? 0 };
        if (details?.[i] !== undefined) result.detail = details[i];
        settle(result);
      }
    }
  }

  function settle(result: WriteResult): void {
    const waiter = waiters.take(result.ticket);
    if (waiter) answer(waiter, result); // else already answered as timed out
  }

  function answer(waiter: Waiter, result: WriteResult): void {
    // While closing, the port stays referenced until the writer says it closed.
    if (waiters.size === 0 && !closing) port.unref();
    waiter.resolve(result);
  }

  // One timer for every write in flight, set for the oldest one's deadline: only the oldest can be
  // due. Under steady intake the oldest is answered long before, so the timer fires about once per
  // write timeout, finds nothing due and is set again for the oldest then.
  let sweeper: NodeJS.Timeout | undefined;
  const armSweeper = (at: number) => {
    sweeper = setTimeout(sweep, Math.max(0, at - performance.now()));
    // What the write waits on (the writer's port) keeps the process alive, not the timer.
    sweeper.unref();
  };
  const sweep = () => {
    sweeper = undefined;
    const now = performance.now();
    for (let due = waiters.takeDue(now); due; due = waiters.takeDue(now)) {
      answer(due, { ticket: due.ticket, ok: false, error: `not committed within ${writeTimeoutMs} ms` });
    }
    const oldest = waiters.oldest();
    if (oldest) armSweeper(oldest.at);
  };

  // Requests of one event-loop turn travel to the writer in one message.
  let nextTicket = 1;
  let outgoing: WriteRequest[] = [];
  const flush = () => {
    const requests = outgoing;
    outgoing = [];
    const packed = encodeBatch(requests);
    port.postMessage({ type: 'batch', packed } satisfies ToWriter, [packed.buffer as ArrayBuffer]);
  };

  /** `request.ticket` is assigned here (callers pass 0): a copy of each request to add it was garbage on every write. */
  function write(request: WriteRequest): Promise<WriteResult> {
    const ticket = nextTicket++;
    request.ticket = ticket;
    if (checkpointer === null && !housekeeping(request)) startCheckpointer();
    if (writerDead) return Promise.resolve({ ticket, ok: false, error: writerDead });
    return new Promise((resolveWrite) => {
      const at = performance.now() + writeTimeoutMs;
      waiters.add({ ticket, at, resolve: resolveWrite });
      if (waiters.size === 1) port.ref();
      if (!sweeper) armSweeper(at);
      if (outgoing.length === 0) setImmediate(flush);
      outgoing.push(request);
    });
  }

  /** A numeric operation of the writer (writer-ops.ts), its arguments typed by its name. */
  async function op<K extends StoreOpName>(name: K, ...args: StoreOps[K]['args']): Promise<number> {
    const result = await write({ kind: 'op', ticket: 0, name, args } as OpRequest);
    if (!result.ok) throw new StoreUnavailableError(`the store could not write: ${result.error}`);
    return result.deliverySeq;
  }

  return {
    path: file,

    async accept(delivery: NewDelivery, attempt: AttemptInput): Promise<AcceptResult> {
      const result = await write({ kind: 'accept', ticket: 0, delivery, attempt });
      if (!result.ok) throw new StoreUnavailableError(`the store could not write: ${result.error}`);
      return { outcome: result.outcome as AcceptResult['outcome'], deliverySeq: result.deliverySeq, attemptSeq: result.attemptSeq };
    },

    async recordAttempt(attempt: AttemptInput): Promise<number> {
      const result = await write({ kind: 'attempt', ticket: 0, attempt });
      if (!result.ok) throw new StoreUnavailableError(`the store could not write: ${result.error}`);
      return result.attemptSeq;
    },

    async getDelivery(id) {
      return reader.getDelivery(id);
    },
    async listDeliveries(query) {
      return reader.listDeliveries(query);
    },
    async listAttempts(query) {
      return reader.listAttempts(query);
    },
    async countArrivals(deliveryId) {
      return reader.countArrivals(deliveryId);
    },
    async dueRelayJobs(now, limit, skip, skipTargets) {
      return reader.dueRelayJobs(now, limit, skip, skipTargets, deadBlocks);
    },
    async recordRelay(outcome) {
      await op('recordRelay', outcome);
    },
    async relayHistory(deliveryId, options) {
      return reader.relayHistory(deliveryId, options);
    },
    async requeueRelay(deliveryId, now, target) {
      return (await op('requeueRelay', deliveryId, now, target)) > 0;
    },
    async relayCounts() {
      return reader.relayCounts();
    },
    async blockedOrderKeys(target, limit) {
      return reader.blockedOrderKeys(target, limit, deadBlocks);
    },

    async relayBacklog() {
      return reader.relayBacklog();
    },
    async holdRelayJobs(targets, now) {
      return op('holdRelayJobs', JSON.stringify(targets), now);
    },
    async retargetRelayJobs(from, to, now) {
      return op('retargetRelayJobs', from, to, now);
    },
    async deleteDelivery(id) {
      return (await op('deleteDelivery', id)) > 0;
    },

    async prune(before, { dryRun = false, keepAfterSeq, signal, onBatch } = {}): Promise<PruneResult> {
      const total: PruneResult = { before, deliveries: 0, attempts: 0, relayAttempts: 0, keptPending: 0, dryRun };
      for (const phase of [1, 2] as const) {
        for (let after = 0, done = false; !done && !signal?.aborted; ) {
          const result = await write({ kind: 'op', ticket: 0, name: 'prune', args: [before, phase, after, PRUNE_CHUNK, dryRun, keepAfterSeq ?? null] });
          if (!result.ok) throw new StoreUnavailableError(`the store could not prune: ${result.error}`);
          const chunk = result.detail as PruneChunk;
          total.deliveries += chunk.deliveries;
          total.attempts += chunk.attempts;
          total.relayAttempts += chunk.relayAttempts;
          total.keptPending += chunk.keptPending;
          if (onBatch) await onBatch({ ...total });
          ({ after, done } = chunk);
        }
      }
      return total;
    },

    async stats() {
      return readStoreStats(readDb);
    },

    async deliveriesAfter(afterSeq, limit, triggers) {
      return reader.deliveriesAfter(afterSeq, limit, triggers);
    },
    async countDeliveriesAfter(afterSeq, upToSeq, triggers, most) {
      return reader.countDeliveriesAfter(afterSeq, upToSeq, triggers, most);
    },
    async bridgeCursor(name) {
      return reader.bridgeCursor(name);
    },
    async bridgeCursors() {
      return reader.bridgeCursors();
    },
    async latestDeliverySeq() {
      return reader.latestDeliverySeq();
    },
    async registerBridgeSubscriber(name, seq, now): Promise<BridgeCursor> {
      checkBridgeCursorArgs(name, seq, now);
      const result = await write({ kind: 'op', ticket: 0, name: 'registerBridgeSubscriber', args: [name, seq, now] });
      if (!result.ok) throw new StoreUnavailableError(`the store could not write: ${result.error}`);
      return result.detail as BridgeCursor;
    },
    async ackBridge(name, seq, now) {
      checkBridgeCursorArgs(name, seq, now);
      await op('ackBridge', name, seq, now);
    },

    async probe() {
      await op('probe');
    },

    close(): Promise<void> {
      closing ??= (async () => {
        // Commits in flight finish first; the writer then checkpoints and closes.
        await Promise.all([...waiters.values()].map((w) => new Promise<void>((r) => {
          const original = w.resolve;
          w.resolve = (res) => (original(res), r());
        })));
        if (outgoing.length > 0) flush();
        if (!writerDead) {
          port.ref();
          await new Promise<void>((r) => {
            closedResolve = r;
            port.postMessage({ type: 'close' } satisfies ToWriter);
          });
        }
        clearTimeout(checkpointerTimer);
        checkpointer?.postMessage({ type: 'close' });
        await Promise.all([writer.terminate(), checkpointer?.terminate()]);
        readDb.close();
        port.close();
      })();
      return closing;
    },
  };
}
