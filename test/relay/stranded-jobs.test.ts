/**
 * A relay job belongs to the target it was queued for (issue 36, item 7): a later listen that
 * forwards elsewhere, or not at all, says at start how many wait and for which target, never hands
 * them to its own app, and `hookrelay events retarget` is the one way to move them.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import type { ForwardConfig } from '../../src/config/listen-config.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { startListenProcess } from '../helpers/listen-process.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const forwardTo = (to: string): ForwardConfig => ({ to, secret: TEST_SECRET, timeoutMs: 2000, headers: [], mode: 'async', maxTries: 50 });

async function listen(db: string, forward: ForwardConfig | null): Promise<AppHandle> {
  const app = await buildApp(testListenConfig(db, forward ? { forward } : {}));
  cleanups.push(() => app.close());
  return app;
}

describe('a relay job stranded by a change of --forward-to', () => {
  it('is said at start, held from the new app, and moved only by events retarget', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'hookrelay.db');
    // The README tour's listen, with no app running on its port.
    const gone = 'http://127.0.0.1:9/webhooks';
    const first = await listen(db, forwardTo(gone));
    const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const res = await request(first.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    await first.close();

    const plain = await listen(db, null);
    expect(plain.startNotices).toEqual([expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^1 relay job waits for http:\/\/127\.0\.0\.1:9\/webhooks \(queued by an earlier run; this run does not forward\)/) })]);
    await plain.close();

    const app = await startTarget();
    cleanups.push(() => app.close());
    const other = await listen(db, forwardTo(app.url));
    expect(other.startNotices.map((n) => n.message).join('\n')).toMatch(/1 relay job waits for http:\/\/127\.0\.0\.1:9\/webhooks \(queued by an earlier run; this run hands on to http:\/\/127\.0\.0\.1:\d+\/.*hookrelay events retarget --from 'http:\/\/127\.0\.0\.1:9\/webhooks' --to URL/s);
    // A delivery of this run goes through the relay that would have taken the old job first (it was due
    // long before): once that one arrives, the old job had its chance, and the app got only the new one.
    const fresh = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const freshRes = await request(other.receiverUrl, { method: 'POST', headers: fresh.headers, body: fresh.body });
    await freshRes.body.dump();
    await app.waitFor(1);
    expect(app.received.map((r) => r.headers['x-service-delivery'])).toEqual([fresh.id]);
    expect((await other.store.relayHistory(req.id)).jobs).toMatchObject([{ state: 'held', target: gone }]);

    const listed = await runCli(['events', 'retarget', '--db', db]);
    expect(listed.stdout).toMatch(/^http:\/\/127\.0\.0\.1:9\/webhooks {2}1 held/m);
    const moved = await runCli(['events', 'retarget', '--db', db, '--from', gone, '--to', app.url]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/^moved 1 relay job from http:\/\/127\.0\.0\.1:9\/webhooks to/);
    await app.waitFor(2);
    expect(app.received[1]!.headers['x-service-delivery']).toBe(req.id);
    const unknown = await runCli(['events', 'retarget', '--db', db, '--from', 'http://127.0.0.1:9/nothing', '--to', app.url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no relay job waits for http:\/\/127\.0\.0\.1:9\/nothing/);
  }, 60_000);

  it('is said by a listen process at start, in its log', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'hookrelay.db');
    const first = await listen(db, forwardTo('http://127.0.0.1:9/webhooks'));
    const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const res = await request(first.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
    await res.body.dump();
    await first.close();

    const proc = await startListenProcess(['--db', db, '--secret', TEST_SECRET, '--no-console']);
    cleanups.push(() => proc.child.kill('SIGKILL'));
    const deadline = Date.now() + 10_000;
    while (!proc.output().includes('relay job waits') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(proc.output()).toMatch(/1 relay job waits for http:\/\/127\.0\.0\.1:9\/webhooks \(queued by an earlier run; this run does not forward\)/);
  }, 30_000);

  it('is never posted by a running relay that hands on elsewhere, even once it is pending again (a retry by hand)', async () => {
    const { createMemoryStore } = await import('../../src/store/memory-store.js');
    const { createRelayWorker } = await import('../../src/relay/relay-worker.js');
    const { createEventHub } = await import('../../src/runtime/event-hub.js');
    const { DEFAULT_RELAY_RETRY } = await import('../../src/relay/relay-backoff.js');
    const { makeDelivery, attemptFor } = await import('../helpers/fixtures.js');
    const old = await startTarget();
    const current = await startTarget();
    cleanups.push(() => old.close(), () => current.close());
    const store = createMemoryStore({ outbox: { to: old.url, routes: [] } });
    const d = makeDelivery();
    const { deliverySeq } = await store.accept(d, attemptFor(d));
    await store.recordRelay({ deliverySeq, startedAt: 1, finishedAt: 2, status: null, error: 'down', replay: false, target: old.url, try: 1, next: { state: 'dead' } });
    const worker = createRelayWorker({ store, hub: createEventHub(), target: current.url, secret: TEST_SECRET, timeoutMs: 2000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [['authorization', 'Bearer for-the-current-app']], pollIntervalMs: 50 });
    cleanups.push(() => worker.stop());
    expect(await store.requeueRelay(d.id, Date.now())).toBe(true);
    worker.poke();
    const deadline = Date.now() + 5000;
    while ((await store.relayHistory(d.id)).jobs[0]?.state !== 'held' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect((await store.relayHistory(d.id)).jobs).toMatchObject([{ state: 'held', target: old.url }]);
    // stop() waits for every hand-off in flight: after it, nothing more can arrive.
    await worker.stop();
    expect(old.received).toHaveLength(0);
    expect(current.received).toHaveLength(0);
  }, 30_000);
});
