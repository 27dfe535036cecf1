/**
 * Bulk replay jobs run by a node (`listen`, `connect`) for its console: the same journaled job as
 * `hookrelay events replay --since …` (replay-job.ts, replay-job-journal.ts), planned from a list
 * of ids the caller chose, run in the background through the node's replayer settings, its
 * progress announced on the hub. A job stopped by the node's shutdown resumes from the console or
 * with `hookrelay events replay --resume`.
 */
import type { EventHub, HubEvents } from '../runtime/event-hub.js';
import type { DeliveryStore } from '../store/store.js';
import { createJournal, JournalError, listedJobState, listJobs, newJobId, openJournal, type ReplayItem, type ReplayJournal } from './replay-job-journal.js';
import { jobSettings, runReplayJob } from './replay-job.js';
import { createReplayer, type ReplaySettings } from './replay.js';

export type ReplayJobView = HubEvents['replayJob'] & { createdAt: number; selection: string };

export interface BulkReplays {
  /** Plans a job of these deliveries (oldest first) and starts it; resolves once its plan is durable. */
  start(request: { items: ReplayItem[]; selection: string; to: string | null; concurrency?: number }): ReplayJobView;
  /** Goes on with a stopped job of this data folder; why not, when it is unknown (404), running (here or in another process) or damaged (409). */
  resume(id: string): { ok: true } | { ok: false; status: 404 | 409; message: string };
  /** Stops a running job: its copies in flight finish and are recorded. */
  stop(id: string): boolean;
  /** Jobs of this data folder, newest first: those running here with their live progress. */
  list(): ReplayJobView[];
  /** Stops every running job and waits for them. */
  close(): Promise<void>;
}

export interface BulkReplaysOptions {
  dataDir: string;
  store: Pick<DeliveryStore, 'getDelivery' | 'relayHistory' | 'recordRelay'>;
  hub: EventHub;
  settings: ReplaySettings;
  clock: () => number;
  advice?: { noTarget: string; noSecret: string };
}

/** Progress announcements, at most this often per job (the last one always goes). */
const ANNOUNCE_MS = 250;
const CONSOLE_CONCURRENCY = 4;

export function createBulkReplays(options: BulkReplaysOptions): BulkReplays {
  const { dataDir, store, hub, clock } = options;
  const running = new Map<string, { view: ReplayJobView; stop: AbortController; done: Promise<void> }>();
  const finished = new Map<string, ReplayJobView>();

  function run(journal: ReplayJournal): ReplayJobView {
    const { plan } = journal;
    const view: ReplayJobView = { id: plan.id, createdAt: plan.createdAt, selection: plan.selection, total: plan.items.length, done: 0, ok: 0, failed: 0, state: 'running' };
    const stop = new AbortController();
    const replayer = createReplayer({ store, hub, settings: jobSettings(options.settings, plan.id), clock, advice: options.advice });
    let announcedAt = -Infinity;
    const announce = (force: boolean) => {
      if (!force && clock() - announcedAt < ANNOUNCE_MS) return;
      announcedAt = clock();
      const { createdAt: _c, selection: _s, ...event } = view;
      hub.emit('replayJob', event);
    };
    const done = runReplayJob({
      journal,
      replayer,
      store,
      clock,
      signal: stop.signal,
      onProgress: (p) => {
        Object.assign(view, { done: p.done, ok: p.ok, failed: p.failed });
        announce(p.done === p.total);
      },
    })
      .then((result) => {
        Object.assign(view, { done: result.done, ok: result.ok, failed: result.failed });
        view.state = result.error !== null ? 'failed' : result.interrupted ? 'stopped' : 'finished';
        if (result.error !== null) view.error = result.error;
      })
      .catch((err: unknown) => {
        view.state = 'failed';
        view.error = (err as Error).message;
      })
      .finally(async () => {
        try {
          journal.close();
        } catch {
          /* the disk refused the last sync: the journal's own lines say where it stood */
        }
        await replayer.close();
        running.delete(plan.id);
        announce(true);
      });
    running.set(plan.id, { view, stop, done });
    announce(true);
    return view;
  }

  return {
    start({ items, selection, to, concurrency }) {
      const plan = { version: 1 as const, id: newJobId(), createdAt: clock(), selection, to, ratePerSecond: null, concurrency: concurrency ?? CONSOLE_CONCURRENCY, items };
      return run(createJournal(dataDir, plan));
    },
    resume(id) {
      if (running.has(id)) return { ok: false, status: 409, message: 'this replay job is running' };
      let journal: ReplayJournal;
      try {
        journal = openJournal(dataDir, id);
      } catch (err) {
        if (err instanceof JournalError) return { ok: false, status: err.kind === 'usage' ? 404 : 409, message: err.message };
        throw err;
      }
      run(journal);
      return { ok: true };
    },
    stop(id) {
      const job = running.get(id);
      if (!job) return false;
      job.stop.abort();
      return true;
    },
    list() {
      // A job running here is its live view; a finished one never changes, so its journal is read once
      // (the console and every /metrics scrape list jobs) and only its view is kept, not its plan.
      const listed = listJobs(dataDir, (id) => running.has(id) || finished.has(id));
      const present = new Set(listed.map((job) => job.id));
      for (const id of finished.keys()) if (!present.has(id)) finished.delete(id);
      const views = listed.map((job): ReplayJobView | null => {
        const known = running.get(job.id)?.view ?? finished.get(job.id);
        if (known) return { ...known };
        if (!job.plan) return null;
        const total = job.plan.items.length;
        const sent = job.sent ?? 0;
        const view: ReplayJobView = { id: job.id, createdAt: job.plan.createdAt, selection: job.plan.selection, total, done: sent, ok: sent - (job.failed ?? 0), failed: job.failed ?? 0, state: listedJobState(dataDir, { ...job, plan: job.plan }) };
        if (view.state === 'finished') finished.set(job.id, view);
        return view;
      });
      return views.filter((v): v is ReplayJobView => v !== null).sort((a, b) => b.createdAt - a.createdAt);
    },
    async close() {
      for (const job of running.values()) job.stop.abort();
      await Promise.allSettled([...running.values()].map((j) => j.done));
    },
  };
}
