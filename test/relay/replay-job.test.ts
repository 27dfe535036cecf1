/** runReplayJob over a journal: what a stopped run left is found, not sent again; the pace holds; a stop finishes what is in flight. */
import { describe, expect, it, onTestFinished } from 'vitest';
import { createJournal, openJournal, newJobId, type ReplayPlan } from '../../src/relay/replay-job-journal.js';
import { jobTryOf, runReplayJob, type EarlierOutcome } from '../../src/relay/replay-job.js';
import type { Replayer, ReplayResult } from '../../src/relay/replay.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp-dir.js';

async function setUp(n: number, pace: Partial<ReplayPlan> = {}) {
  const { dir, remove } = tempDir();
  onTestFinished(remove);
  const store = createMemoryStore();
  const items = [];
  for (let i = 0; i < n; i++) {
    const d = makeDelivery({ id: `evt-${i}` });
    items.push({ seq: (await store.accept(d, attemptFor(d))).deliverySeq, id: d.id });
  }
  const plan: ReplayPlan = { version: 1, id: newJobId(), createdAt: 1, selection: 'every stored delivery', to: 'http://127.0.0.1:1/x', ratePerSecond: null, concurrency: 2, items, ...pace };
  const sent: string[] = [];
  /** Records each try in the store, as the real replayer does, and answers 200. */
  const replayer: Pick<Replayer, 'replay'> = {
    async replay(id) {
      sent.push(id);
      const d = await store.getDelivery(id);
      if (!d) return null;
      await store.recordRelay({ deliverySeq: d.seq, startedAt: Date.now(), finishedAt: Date.now(), status: 200, error: null, replay: true, target: 'http://127.0.0.1:1/x', try: 1, next: null });
      return { ok: true, status: 200, error: null, target: 'http://127.0.0.1:1/x', latencyMs: 1 } satisfies ReplayResult;
    },
  };
  return { dir, store, plan, sent, replayer };
}

describe('runReplayJob', () => {
  it('does not send again an item a stopped run began whose try was recorded, and sends one whose try was not', async () => {
    const { dir, store, plan, sent, replayer } = await setUp(3);
    const first = createJournal(dir, plan);
    // A run that began items 0 and 1 and died: item 0's try landed in the store, item 1's did not.
    first.begin([0, 1], Date.now() - 10);
    await store.recordRelay({ deliverySeq: plan.items[0]!.seq, startedAt: Date.now(), finishedAt: Date.now(), status: 204, error: null, replay: true, target: 'x', try: 1, next: null });
    first.close();
    const journal = openJournal(dir, plan.id);
    const result = await runReplayJob({ journal, replayer, store, clock: Date.now });
    journal.close();
    expect(sent).toEqual(['evt-1', 'evt-2']);
    expect(result).toMatchObject({ total: 3, done: 3, ok: 3, foundRecorded: 1, sentThisRun: 2, interrupted: false, error: null });
    // Finished: a further run sends nothing.
    const again = openJournal(dir, plan.id);
    expect((await runReplayJob({ journal: again, replayer, store, clock: Date.now })).sentThisRun).toBe(0);
    again.close();
  });

  it('starts copies no faster than the rate, and a stop lets those in flight finish, recorded', async () => {
    const { dir, store, plan, sent, replayer } = await setUp(40, { ratePerSecond: 20, concurrency: 4 });
    const journal = createJournal(dir, plan);
    const stop = new AbortController();
    // The pace waits on real timers; the clock reads how far in the run is.
    let now = 0;
    const started = Date.now();
    const result = await runReplayJob({
      journal,
      replayer,
      store,
      clock: () => (now = Date.now() - started),
      signal: stop.signal,
      onProgress: (p) => p.done === 10 && stop.abort(),
    });
    journal.close();
    expect(result.interrupted).toBe(true);
    expect(result.done).toBe(sent.length);
    // 20 a second: the tenth copy starts no sooner than 450 ms in.
    expect(now).toBeGreaterThanOrEqual(450);
    expect(sent.length).toBeLessThan(14);
    const resumed = openJournal(dir, plan.id);
    expect(resumed.progress.filter((p) => p.done).length).toBe(result.done);
    resumed.close();
  });

  it('tells onEarlier, before anything is sent, each item earlier runs had done (its d line, or its try found recorded), in plan order', async () => {
    const { dir, store, plan, sent, replayer } = await setUp(4);
    const first = createJournal(dir, plan);
    // Items 0 and 2 done (2 refused with a 503), item 3 begun with its try recorded, item 1 never begun.
    first.begin([0, 2, 3], 1_000);
    first.finish(2, 503, false);
    first.finish(0, 200, true);
    await store.recordRelay({ deliverySeq: plan.items[3]!.seq, startedAt: 1_500, finishedAt: 1_510, status: 204, error: null, replay: true, target: 'x', try: 1, next: null });
    first.close();
    const journal = openJournal(dir, plan.id);
    const told: Array<{ earlier: EarlierOutcome[]; sentSoFar: number }> = [];
    await runReplayJob({ journal, replayer, store, clock: Date.now, onEarlier: (earlier) => void told.push({ earlier, sentSoFar: sent.length }) });
    journal.close();
    expect(told).toEqual([{
      sentSoFar: 0,
      earlier: [
        { index: 0, id: 'evt-0', startedAt: 1_000, status: 200, ok: true },
        { index: 2, id: 'evt-2', startedAt: 1_000, status: 503, ok: false },
        { index: 3, id: 'evt-3', startedAt: 1_000, status: 204, ok: true },
      ],
    }]);
    expect(sent).toEqual(['evt-1']);
  });

  it('jobTryOf: the first replay try (by seq) begun at or after the item was begun; null when none', () => {
    const t = (seq: number, startedAt: number, replay = true) => ({ seq, startedAt, replay });
    expect(jobTryOf([t(3, 900), t(5, 1_200), t(4, 1_100), t(6, 1_300, false)], 1_000)).toEqual(t(4, 1_100));
    expect(jobTryOf([t(1, 900), t(2, 1_500, false)], 1_000)).toBeNull();
  });
});
