/**
 * The cost of one outbox read for an ordered target (`--pace 'URL order=trigger'`) with a long
 * history: one key, N deliveries, the first half handed on (done), the rest pending. The order's
 * partial indexes hold only owed and dead rows, so the done half is never walked.
 * `npx tsx bench/order-read.ts [N]` (default 8000): prints the plan and the time of each read.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orderOfTargets, resolvePacing } from '../src/core/pacing.js';
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { attemptFor, makeDelivery } from '../test/helpers/fixtures.js';

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 8000);
  const app = 'http://127.0.0.1:3000/webhooks';
  const dir = mkdtempSync(join(tmpdir(), 'hookrelay-order-read-'));
  const path = join(dir, 'order.db');
  const pacing = resolvePacing([`${app} order=trigger`], '--pace', [app], [], []);
  const outbox = { to: app, routes: [], order: orderOfTargets(pacing, [app]) };
  try {
    let store = await createSqliteStore(path, { outbox });
    for (let i = 0; i < n; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, n - i) }, (_, k) => {
        const d = makeDelivery({ id: `d-${i + k}`, receivedAt: 1000 });
        return store.accept(d, attemptFor(d, { receivedAt: 1000 }));
      }));
    }
    await store.close();
    const db = new Database(path);
    db.prepare("UPDATE relay_jobs SET state = 'done' WHERE delivery_seq <= ?").run(n / 2);
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT 1 FROM relay_jobs j WHERE j.order_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM relay_jobs e WHERE e.target = j.target AND e.order_key = j.order_key AND e.delivery_seq < j.delivery_seq AND e.state IN ('pending', 'held'))").all() as Array<{ detail: string }>;
    console.log(`plan: ${plan.map((row) => row.detail).join(' | ')}`);
    db.close();
    store = await createSqliteStore(path, { outbox });
    const time = async (label: string, read: () => Promise<unknown[]>) => {
      const started = performance.now();
      const got = await read();
      console.log(`${label}: ${got.length} row(s) in ${(performance.now() - started).toFixed(1)} ms (${n / 2} done, ${n / 2} pending, one key)`);
    };
    await time('due read, head healthy', () => store.dueRelayJobs(10_000, 32));
    await store.close();
    const failing = new Database(path);
    failing.prepare('UPDATE relay_jobs SET tries = 1, next_at = 99999999 WHERE delivery_seq = ?').run(n / 2 + 1);
    failing.close();
    store = await createSqliteStore(path, { outbox });
    await time('due read, head failing', () => store.dueRelayJobs(10_000, 32));
    await time('blocked keys', () => store.blockedOrderKeys(app, 20));
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
