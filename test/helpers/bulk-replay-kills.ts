/**
 * A bulk replay killed with SIGKILL at chosen points and resumed until it finishes, against a local
 * app that records every copy: the unit suite runs it with 600 deliveries, the reliability suite
 * with 10,000.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { cliEntry } from './cli-entry.js';
import { attemptFor, makeDelivery } from './fixtures.js';
import { runCli } from './run-cli.js';
import { startTarget } from './target-server.js';

export interface KillOutcome {
  jobId: string;
  /** The flags every run took (store, target, secret, concurrency). */
  args: string[];
  lastRun: { code: number; stdout: string; stderr: string };
  /** Deliveries the app got more than once, and the most copies of one. */
  sentTwice: number;
  maxCopies: number;
  /** Every distinct x-hookrelay-replay-job the app saw. */
  jobHeaders: string[];
  /** Every delivery of the selection reached the app. */
  allArrived: boolean;
}

export async function killTwiceAndResume(o: { db: string; dir: string; ids: string[]; concurrency: number; killAfter: number[]; secret?: string }): Promise<KillOutcome> {
  const target = await startTarget();
  try {
    const args = ['events', 'replay', '--db', o.db, '--to', target.url, '--secret', o.secret ?? 'whsec_bulk_replay_secret', '--concurrency', String(o.concurrency)];
    let jobId = '';
    for (const [n, after] of o.killAfter.entries()) {
      const seen = target.received.length;
      const child = spawn(process.execPath, [...cliEntry(), ...args, ...(n === 0 ? ['--all'] : ['--resume', jobId])], { stdio: 'ignore' });
      const exited = once(child, 'exit');
      await Promise.race([target.waitFor(seen + after), exited]);
      child.kill('SIGKILL');
      await exited;
      if (n === 0) jobId = /^(rj_[0-9a-z]{12}) /.exec((await runCli(['events', 'replay', '--jobs', '--db', o.db])).stdout)?.[1] ?? '';
      if (!jobId) throw new Error('the first run left no replay job');
    }
    const lastRun = await runCli([...args, '--resume', jobId]);
    const counts = new Map<string, number>();
    for (const r of target.received) {
      const id = String(r.headers['x-service-delivery']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return {
      jobId,
      args,
      lastRun,
      sentTwice: [...counts.values()].filter((c) => c > 1).length,
      maxCopies: Math.max(...counts.values()),
      jobHeaders: [...new Set(target.received.map((r) => String(r.headers['x-hookrelay-replay-job'])))],
      allArrived: o.ids.every((id) => counts.has(id)),
    };
  } finally {
    await target.close();
  }
}

/** `n` deliveries in `dir`/hookrelay.db, one a minute back from now: every third a vendor.* trigger, every fifth with data.tier=gold. */
export async function seededDeliveries(dir: string, n: number): Promise<{ db: string; ids: string[]; now: number }> {
  const db = join(dir, 'hookrelay.db');
  const store = await createSqliteStore(db);
  const now = Date.now();
  const ids: string[] = [];
  const accepting: Array<Promise<unknown>> = [];
  for (let i = 0; i < n; i++) {
    const id = `evt-${String(i).padStart(5, '0')}`;
    const trigger = i % 3 === 0 ? 'vendor.rating_dropped' : 'trustcenter.access_requested';
    const body = JSON.stringify({ id, trigger, data: { n: i, tier: i % 5 === 0 ? 'gold' : 'basic' } });
    const d = makeDelivery({ id, trigger, rawBody: Buffer.from(body), receivedAt: now - (n - i) * 60_000 });
    ids.push(id);
    accepting.push(store.accept(d, attemptFor(d, { receivedAt: d.receivedAt })));
    if (accepting.length === 500) await Promise.all(accepting.splice(0));
  }
  await Promise.all(accepting);
  await store.close();
  return { db, ids, now };
}

