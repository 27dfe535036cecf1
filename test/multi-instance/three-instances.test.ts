/**
 * Three `listen` processes on one PostgreSQL database behind a "load balancer" (the load
 * generator spreads deliveries and duplicate copies over them); one is killed with SIGKILL
 * mid-run. Every acknowledged id must be stored once and handed on to the app once.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListenProcess } from '../helpers/listen-process.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';
import { post, startInstance, startRelayTarget, stopInstance, type RelayTarget } from './fleet.js';

const server = useTestPostgres();
const running: ListenProcess[] = [];
let target: RelayTarget | null = null;
afterAll(async () => {
  for (const listen of running) if (listen.child.exitCode === null && listen.child.signalCode === null) listen.child.kill('SIGKILL');
  await Promise.all(running.map((l) => l.exited));
  await target?.close();
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('three listen processes on one PostgreSQL database', () => {
  it('store each acknowledged id once and hand it on once, with one instance killed mid-run', async () => {
    const schemaUrl = new URL(await server.freshSchema());
    // A short time to live, so the killed instance's claims come back soon after the kill.
    schemaUrl.searchParams.set('relay_lease_ms', '2500');
    const storeUrl = schemaUrl.href;
    // The victim's hand-offs are never answered: whatever it claimed must be taken over by the others.
    target = await startRelayTarget(new Set(['b']));
    const forward = ['--forward-to', target.url, '--forward-timeout', '1000'];
    const fleet = await Promise.all(['a', 'b', 'c'].map((name) => startInstance(storeUrl, name, forward)));
    running.push(...fleet);
    const alive = [true, true, true];
    const victim = 1;

    const TOTAL = 240;
    const ids = Array.from({ length: TOTAL }, () => randomUUID());
    const acknowledged = new Set<string>();
    let copiesAcknowledged = 0;
    let killed = false;

    /** One copy of `id`, like a sender: on a failure, the next try goes to the next live instance. */
    async function deliver(id: string, first: number): Promise<void> {
      for (let tryNo = 1, at = first; tryNo <= 8; tryNo++, at++) {
        while (!alive[at % 3]) at++;
        const status = await post(fleet[at % 3]!.url, id, tryNo);
        if (status !== null && status >= 200 && status < 300) {
          acknowledged.add(id);
          copiesAcknowledged++;
          return;
        }
      }
    }

    let next = 0;
    async function lane(): Promise<void> {
      while (next < TOTAL) {
        const i = next++;
        const id = ids[i]!;
        // Every third delivery also gets a concurrent duplicate copy on another instance.
        await Promise.all([deliver(id, i), ...(i % 3 === 0 ? [deliver(id, i + 1)] : [])]);
        if (!killed && acknowledged.size >= TOTAL / 3) {
          killed = true;
          alive[victim] = false;
          fleet[victim]!.child.kill('SIGKILL');
        }
      }
    }
    await Promise.all(Array.from({ length: 12 }, () => lane()));
    expect(killed).toBe(true);
    expect(acknowledged.size).toBe(TOTAL);
    expect(copiesAcknowledged).toBeGreaterThan(TOTAL);

    await target.waitForAll(acknowledged);
    // The survivors finish and record their hand-offs on SIGTERM.
    await Promise.all([stopInstance(fleet[0]!), stopInstance(fleet[2]!)]);
    expect(await fleet[victim]!.exited).toEqual([null, 'SIGKILL']);

    const stored = await query<{ id: string }>(storeUrl, 'SELECT id FROM deliveries');
    expect(stored).toHaveLength(TOTAL);
    expect(new Set(stored.map((r) => r.id))).toEqual(acknowledged);
    const accepted = await query<{ n: string }>(storeUrl, "SELECT COUNT(*) AS n FROM attempts WHERE outcome = 'accepted'");
    expect(Number(accepted[0]!.n)).toBe(TOTAL);
    const duplicates = await query<{ n: string }>(storeUrl, "SELECT COUNT(*) AS n FROM attempts WHERE outcome = 'duplicate'");
    expect(Number(duplicates[0]!.n)).toBeGreaterThan(0);

    // Handed on once: one 2xx per id, and nothing arrived for an id after its 2xx.
    expect([...target.okCount.values()].every((n) => n === 1)).toBe(true);
    expect(target.okCount.size).toBe(TOTAL);
    expect(target.afterOk).toEqual([]);
    const jobs = await query<{ state: string; n: string }>(storeUrl, 'SELECT state, COUNT(*) AS n FROM relay_jobs GROUP BY state');
    expect(jobs.map((r) => [r.state, Number(r.n)])).toEqual([['done', TOTAL]]);
    // The victim did claim jobs (its hand-offs reached the app, unanswered); each went out again from a survivor.
    expect(target.hung.size).toBeGreaterThan(0);
    expect([...target.hung].every((id) => target!.okCount.get(id) === 1)).toBe(true);
  }, 90_000);
});
