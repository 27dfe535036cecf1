/**
 * Fan-out across `kill -9`: a `listen` handing each delivery to three targets (one of them down at
 * first) is killed mid-way and started again. Each target gets every delivery, and one a second time
 * only if it was in flight at the kill (answered 2xx, its commit prevented: docs/relay.md); no target
 * is charged with another's copies.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openStoreReader } from '../../src/store/open-store.js';
import { startListenProcess, type ListenProcess } from '../helpers/listen-process.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { freePort } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const COUNT = 60;

/**
 * An app on `port` (0: any) recording each x-service-delivery it gets, answering after `delayMs`; past
 * `answerFirst` requests it answers none while `holding` (so a kill always finds hand-offs under way,
 * however fast the machine).
 */
async function app(delayMs: number, port = 0, answerFirst = Infinity): Promise<{ url: string; ids: string[]; server: Server; release: () => void }> {
  const ids: string[] = [];
  let holding = true;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['x-service-delivery']));
      if (holding && ids.length > answerFirst) return;
      setTimeout(() => res.end('ok'), delayMs);
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, ids, server, release: () => (holding = false) };
}

const tally = (ids: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
};

describe('fan-out and kill -9', () => {
  it('each target gets every delivery; a second copy only of what was in flight at the kill', async () => {
    const main = await app(5, 0, COUNT / 3);
    const audit = await app(5);
    const logPort = await freePort();
    const logUrl = `http://127.0.0.1:${logPort}/hook`;

    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const args = ['--db', join(dir, 'fan-out.db'), '--secret', TEST_SECRET, '--no-console', '--forward-to', main.url, '--forward-max-tries', '100', '--also', `*=${audit.url} ${logUrl}`];
    const start = async (): Promise<ListenProcess> => {
      const proc = await startListenProcess(args);
      cleanups.push(() => proc.child.kill('SIGKILL'));
      return proc;
    };

    let listen = await start();
    const accepted: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const id = `fan-${i}-${Math.random().toString(36).slice(2)}`;
      const body = Buffer.from(JSON.stringify({ id, type: 'vendor.rating_dropped', apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org_1', data: { vendorId: 'v_1' } }));
      const sent = signedRequest({ id, body, trigger: 'vendor.rating_dropped', t: Math.floor(Date.now() / 1000) });
      const res = await request(listen.url, { method: 'POST', headers: sent.headers, body: sent.body });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
      accepted.push(id);
    }
    // Killed with hand-offs under way to the main app (it answered a third, and holds the rest), the log down.
    await until(() => main.ids.length > COUNT / 3, 'a third of the main app\'s deliveries, and one held');
    listen.child.kill('SIGKILL');
    await listen.exited;
    expect(main.ids.length).toBeLessThan(COUNT);
    main.release();

    // The log comes up, and listen starts again on the same database.
    const log = await app(0, logPort);
    listen = await start();
    const everyId = new Map(accepted.map((id) => [id, 1]));
    for (const [name, target] of [['main', main], ['audit', audit], ['log', log]] as const) {
      await until(() => new Set(target.ids).size === COUNT, `every delivery at the ${name} app`, 40_000);
    }
    // Every job done: nothing is owed, so nothing more can be sent to any of them.
    const reader = await openStoreReader({ kind: 'sqlite', path: join(dir, 'fan-out.db') });
    cleanups.push(() => reader.close());
    await until(async () => (await reader.stats()).relayJobs.done === 3 * COUNT, 'every job of every target done');
    expect((await reader.stats()).relayJobs).toEqual({ pending: 0, held: 0, done: 3 * COUNT, dead: 0 });
    for (const target of [main, audit, log]) {
      const counts = tally(target.ids);
      expect(new Set(counts.keys())).toEqual(new Set(everyId.keys()));
      // A repeat only of what was in flight at the kill: at most the relay's concurrency (16) a target.
      const repeats = [...counts.values()].filter((n) => n > 1);
      expect(repeats.every((n) => n === 2)).toBe(true);
      expect(repeats.length).toBeLessThanOrEqual(16);
    }
    // The log was down until after the kill: nothing it got was sent twice.
    expect([...tally(log.ids).values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});
