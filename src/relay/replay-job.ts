/**
 * Runs a bulk replay from its journal (replay-job-journal.ts): every item of the plan not yet
 * done, in order, through the one replayer (replay.ts: freshly signed, marked as a replay,
 * recorded in the delivery's history), at most `concurrency` at once and `ratePerSecond` a
 * second. Stopped (the signal), it lets the copies in flight finish and record, and returns; run
 * again on the same journal, it goes on where it stopped.
 */
import { createRateBucket } from '../core/rate-bucket.js';
import type { DeliveryStore, RelayAttemptRecord } from '../store/store.js';
import type { ItemProgress, ReplayJournal } from './replay-job-journal.js';
import type { Replayer, ReplaySettings } from './replay.js';

export interface ReplayJobProgress {
  total: number;
  /** Items with a recorded outcome, this run and before. */
  done: number;
  ok: number;
  failed: number;
  /** Deliveries gone from the store since the plan was made (pruned, deleted): nothing to send. */
  missing: number;
  /** Sent by this run (the rate and time left are of these). */
  sentThisRun: number;
  /** Items a stopped run had begun and whose try was found recorded: not sent again. */
  foundRecorded: number;
}

export interface ReplayJobResult extends ReplayJobProgress {
  /** The signal stopped it before every item was done. */
  interrupted: boolean;
  /** Why it stopped early on its own (the store could not record, no target or secret); null otherwise. */
  error: string | null;
  /** The first few failures, for the summary. */
  failures: Array<{ id: string; status: number | null; error: string | null }>;
}

/** An item whose outcome a run before this one recorded (its `d` line, or its try found recorded). */
export interface EarlierOutcome {
  index: number;
  id: string;
  /** When that run began sending it (its last `s` line); null when the journal has none. */
  startedAt: number | null;
  status: number | null;
  ok: boolean;
}

export interface ReplayJobOptions {
  journal: ReplayJournal;
  replayer: Pick<Replayer, 'replay'>;
  store: Pick<DeliveryStore, 'relayHistory'>;
  clock: () => number;
  signal?: AbortSignal;
  onProgress?: (progress: ReplayJobProgress) => void;
  /**
   * Called once, before anything is sent, with the items earlier runs of the job had done, in plan
   * order (none for a new job): a resumed run accounts for them, as they print nothing again.
   */
  onEarlier?: (earlier: EarlierOutcome[]) => void | Promise<void>;
}

/** The header each copy of a bulk job carries, naming the job (an app can tell a backfill from live traffic). */
export const REPLAY_JOB_HEADER = 'x-hookrelay-replay-job';

/** The replayer's settings for a job's copies: its own, plus the header naming the job. */
export const jobSettings = (settings: ReplaySettings, jobId: string): ReplaySettings => ({ ...settings, headers: [...settings.headers, [REPLAY_JOB_HEADER, jobId]] });

/**
 * The replay try a job's send of an item was recorded as: the first replay try (by seq) begun at or
 * after the item's `s` line, the time the journal synced before the send; null when there is none.
 */
export function jobTryOf<T extends Pick<RelayAttemptRecord, 'seq' | 'replay' | 'startedAt'>>(attempts: readonly T[], startedAt: number): T | null {
  let first: T | null = null;
  for (const a of attempts) if (a.replay && a.startedAt >= startedAt && (first === null || a.seq < first.seq)) first = a;
  return first;
}

const FAILURES_KEPT = 5;
const MISSING = 'the delivery is no longer stored';

export async function runReplayJob(options: ReplayJobOptions): Promise<ReplayJobResult> {
  const { journal, replayer, store, clock, signal } = options;
  const { plan, progress } = journal;
  const result: ReplayJobResult = {
    total: plan.items.length,
    done: 0,
    ok: 0,
    failed: 0,
    missing: 0,
    sentThisRun: 0,
    foundRecorded: 0,
    interrupted: false,
    error: null,
    failures: [],
  };
  const count = (p: ItemProgress) => {
    if (!p.done) return;
    result.done++;
    if (p.done.ok) result.ok++;
    else result.failed++;
  };
  progress.forEach(count);

  // Items a stopped run had begun: their try may have been recorded after the last `d` line synced.
  for (const [index, p] of progress.entries()) {
    if (p.done || p.startedAt === undefined) continue;
    const item = plan.items[index]!;
    const tried = jobTryOf((await store.relayHistory(item.id)).attempts, p.startedAt);
    if (!tried) continue;
    const ok = tried.status !== null && tried.status >= 200 && tried.status < 300;
    journal.finish(index, tried.status, ok);
    result.foundRecorded++;
    count(progress[index]!);
  }
  journal.flush();
  if (options.onEarlier) {
    const earlier = progress.flatMap((p, index): EarlierOutcome[] => (p.done ? [{ index, id: plan.items[index]!.id, startedAt: p.startedAt ?? null, status: p.done.status, ok: p.done.ok }] : []));
    await options.onEarlier(earlier);
  }
  options.onProgress?.({ ...result });

  const queue = progress.flatMap((p, index) => (p.done ? [] : [index]));
  const startedAt = clock();
  // One start every 1000/rate ms: a stall is not owed back (no burst after one).
  const bucket = plan.ratePerSecond === null ? null : createRateBucket(plan.ratePerSecond, 1, clock());
  const waitMs = () => bucket?.waitMs(clock()) ?? 0;
  let inFlight = 0;
  let next = 0;
  let wake: (() => void) | null = null;
  const woken = () => new Promise<void>((resolve) => (wake = resolve));
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  signal?.addEventListener('abort', poke, { once: true });

  const stopping = () => signal?.aborted === true || result.error !== null;

  async function send(index: number): Promise<void> {
    const item = plan.items[index]!;
    try {
      const replayed = await replayer.replay(item.id, plan.to ?? undefined);
      result.sentThisRun++;
      if (replayed === null) {
        journal.finish(index, null, false);
        result.missing++;
        if (result.failures.length < FAILURES_KEPT) result.failures.push({ id: item.id, status: null, error: MISSING });
      } else {
        journal.finish(index, replayed.status, replayed.ok);
        if (!replayed.ok && result.failures.length < FAILURES_KEPT) result.failures.push({ id: item.id, status: replayed.status, error: replayed.error });
      }
      count(progress[index]!);
      options.onProgress?.({ ...result });
    } catch (err) {
      // (journal.finish too: a disk that fails now leaves the item without its `d` line, as a kill would.)
      // No target, no secret, or the store could not record the try: nothing after this would
      // fare better. The item has no `d` line: a resumed run looks for its try, then sends it.
      result.error ??= (err as Error).message;
    }
  }

  while (next < queue.length && !stopping()) {
    if (inFlight >= plan.concurrency) {
      await woken();
      continue;
    }
    const wait = waitMs();
    if (wait > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken(), new Promise((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
      continue;
    }
    // Every item that may start now begins with one synced write.
    const batch: number[] = [];
    while (next < queue.length && inFlight + batch.length < plan.concurrency && waitMs() === 0) {
      batch.push(queue[next++]!);
      bucket?.take(clock());
    }
    try {
      journal.begin(batch, clock());
    } catch (err) {
      // The journal cannot be written (a full or failing disk): nothing is sent unrecorded.
      result.error = `the job's journal could not be written: ${(err as Error).message}`;
      break;
    }
    for (const index of batch) {
      inFlight++;
      void send(index).finally(() => {
        inFlight--;
        poke();
      });
    }
  }
  while (inFlight > 0) await woken();
  signal?.removeEventListener('abort', poke);
  journal.flush();
  result.interrupted = result.error === null && result.done < result.total;
  return result;
}
