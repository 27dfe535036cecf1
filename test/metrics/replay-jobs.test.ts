/** Bulk replay jobs in /metrics (issue 39, item 3): each job's copies by outcome and its state, read at scrape time. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createMetrics, MAX_REPLAY_JOB_SERIES, type ReplayJobSample } from '../../src/metrics/metrics.js';
import { createBulkReplays } from '../../src/relay/bulk-replays.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

/** `name{labels} value` lines of one metric. */
function series(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const at = line.lastIndexOf(' ');
    found.set(line.slice(name.length, at), Number(line.slice(at + 1)));
  }
  return found;
}

describe('replay jobs in /metrics', () => {
  it('gives each job its copies handed on, failed and left, and one state', async () => {
    const jobs: ReplayJobSample[] = [
      { id: 'rj_aaaaaaaaaaaa', createdAt: 2, total: 10, ok: 6, failed: 1, state: 'running' },
      { id: 'rj_bbbbbbbbbbbb', createdAt: 1, total: 4, ok: 4, failed: 0, state: 'finished' },
    ];
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false });
    metrics.setReplayJobs(() => jobs);
    const text = await metrics.render();
    expect(series(text, 'hookrelay_replay_job_copies')).toEqual(
      new Map([
        ['{job="rj_aaaaaaaaaaaa",outcome="ok"}', 6],
        ['{job="rj_aaaaaaaaaaaa",outcome="failed"}', 1],
        ['{job="rj_aaaaaaaaaaaa",outcome="left"}', 3],
        ['{job="rj_bbbbbbbbbbbb",outcome="ok"}', 4],
        ['{job="rj_bbbbbbbbbbbb",outcome="failed"}', 0],
        ['{job="rj_bbbbbbbbbbbb",outcome="left"}', 0],
      ]),
    );
    const states = series(text, 'hookrelay_replay_job_state');
    expect(states.get('{job="rj_aaaaaaaaaaaa",state="running"}')).toBe(1);
    expect(states.get('{job="rj_aaaaaaaaaaaa",state="finished"}')).toBe(0);
    expect(states.get('{job="rj_bbbbbbbbbbbb",state="finished"}')).toBe(1);
    // A job gone from the list loses its series at the next scrape.
    jobs.pop();
    expect([...series(await metrics.render(), 'hookrelay_replay_job_state').keys()].some((k) => k.includes('rj_bbbbbbbbbbbb'))).toBe(false);
  });

  it('a job folder that cannot be read shows no jobs and never fails the scrape', async () => {
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false });
    metrics.setReplayJobs(() => {
      throw new Error("EACCES: permission denied, open 'replay-jobs/rj_aaaaaaaaaaaa/run.lock'");
    });
    const text = await metrics.render();
    expect(series(text, 'hookrelay_replay_job_state').size).toBe(0);
    expect(text).toContain('# HELP hookrelay_replay_job_state');
  });

  it(`keeps at most ${MAX_REPLAY_JOB_SERIES} jobs, those not finished first, then the newest`, async () => {
    const jobs: ReplayJobSample[] = Array.from({ length: 30 }, (_, i) => ({
      id: `rj_${String(i).padStart(12, '0')}`, createdAt: i, total: 1, ok: i % 3 === 0 ? 0 : 1, failed: 0, state: i % 3 === 0 ? 'stopped' : 'finished',
    }));
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false });
    metrics.setReplayJobs(() => jobs);
    const shown = new Set([...series(await metrics.render(), 'hookrelay_replay_job_state').keys()].map((k) => /job="(rj_\d+)"/.exec(k)![1]));
    expect(shown.size).toBe(MAX_REPLAY_JOB_SERIES);
    // Every stopped job (ten of them), then the ten newest finished ones.
    for (const job of jobs) if (job.state === 'stopped') expect(shown.has(job.id), job.id).toBe(true);
    const finishedShown = jobs.filter((j) => j.state === 'finished' && shown.has(j.id)).map((j) => j.createdAt);
    expect(finishedShown).toEqual([16, 17, 19, 20, 22, 23, 25, 26, 28, 29]);
  });

  it("a real job's progress, and a finished job's journal read once", async () => {
    const { dir, remove } = tempDir();
    onTestFinished(remove);
    const target = await startTarget();
    onTestFinished(() => target.close());
    const store = createMemoryStore();
    const hub = createEventHub();
    const items = [];
    for (let i = 0; i < 3; i++) {
      const d = makeDelivery({ id: `evt-${i}` });
      items.push({ seq: (await store.accept(d, attemptFor(d))).deliverySeq, id: d.id });
    }
    const bulk = createBulkReplays({ dataDir: dir, store, hub, clock: Date.now, settings: { secret: 'whsec_metrics_jobs', timeoutMs: 5000, headers: [], targets: { to: target.url, routes: [] } } });
    onTestFinished(() => bulk.close());
    const metrics = createMetrics({ hub, processMetrics: false });
    metrics.setReplayJobs(() => bulk.list());
    const job = bulk.start({ items, selection: 'test', to: null });
    await until(() => bulk.list()[0]?.state === 'finished', 'the job to finish');
    const copies = series(await metrics.render(), 'hookrelay_replay_job_copies');
    expect(copies.get(`{job="${job.id}",outcome="ok"}`)).toBe(3);
    expect(copies.get(`{job="${job.id}",outcome="left"}`)).toBe(0);
    // Finished, it is not read again: a journal damaged since still lists as it was.
    writeFileSync(join(dir, 'replay-jobs', job.id, 'progress.log'), 'garbage\n');
    expect(bulk.list()).toEqual([expect.objectContaining({ id: job.id, state: 'finished', ok: 3 })]);
  });
});
