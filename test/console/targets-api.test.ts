/**
 * `/api/targets` on a real `listen --forward-to … --pace …`: each target with its pace, paused and
 * resumed by number, its URL's credentials never shown; /metrics says which is paused.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { resolvePacing } from '../../src/core/pacing.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { join } from 'node:path';
import { buildApp } from '../../src/app/build-app.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { countingReads } from '../helpers/counted-reads.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { startApp, TEST_CONSOLE } from '../helpers/start-app.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTarget } from '../helpers/target-server.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function call(method: 'GET' | 'POST', url: string): Promise<{ status: number; body: { data?: unknown; error?: string } }> {
  const res = await request(url, method === 'POST' ? { method, headers: { 'content-type': 'application/json' }, body: '{}' } : { method });
  return { status: res.statusCode, body: (await res.body.json()) as { data?: unknown; error?: string } };
}

describe('/api/targets', () => {
  it('lists the targets with their pace, pauses and resumes one by number, and never shows its password', async () => {
    const app = await startTarget();
    cleanups.push(() => app.close());
    const to = app.url.replace('http://', 'http://relay-user:relay-pass-123@');
    const pacing = resolvePacing([`${new URL(to).href} rate=20/s burst=2`], '--pace', [new URL(to).href], [], []);
    // The node's store, its outbox reads counted: "nothing sent" is checked after the relay looked.
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const sqlite = await createSqliteStore(join(dir, 'app.db'), { outbox: { to: new URL(to).href, routes: [] } });
    cleanups.push(() => sqlite.close());
    const counted = countingReads(sqlite);
    const forward = { to: new URL(to).href, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async' as const, maxTries: 5, pacing };
    const node = await buildApp(testListenConfig(join(dir, 'app.db'), { console: TEST_CONSOLE, forward }), { store: counted.store });
    cleanups.push(() => node.close());
    const api = (path: string) => new URL(path, node.consoleUrl!).href;

    const listed = await call('GET', api('/api/targets'));
    expect(listed.status).toBe(200);
    const shown = app.url.replace('http://', 'http://[redacted]@');
    expect(listed.body.data).toEqual([{ id: '1', target: shown, concurrency: 16, ratePerSecond: 20, burst: 2, paused: false, inFlight: 0, waiting: 0, order: null, onDead: null, blockedKeys: [] }]);

    const paused = await call('POST', api('/api/targets/1/pause'));
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ id: '1', paused: true });
    const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const answer = await request(node.receiverUrl, { method: 'POST', headers: sent.headers, body: sent.body });
    await answer.body.dump();
    expect(answer.statusCode).toBe(200);
    // Two reads of the outbox after the delivery was stored: each would have started it.
    await counted.nextReads(2);
    expect(app.received).toHaveLength(0);
    const metrics = await (await request(api('/metrics'))).body.text();
    expect(metrics).toContain(`hookrelay_relay_target_paused{target="${shown}"} 1`);

    const resumed = await call('POST', api('/api/targets/1/resume'));
    expect(resumed.body.data).toMatchObject({ paused: false });
    await app.waitFor(1);

    for (const bad of ['0', '2', 'x', '1e3']) {
      const refused = await call('POST', api(`/api/targets/${bad}/pause`));
      expect(refused.status).toBe(404);
      expect(refused.body.error).toMatch(/GET \/api\/targets lists them/);
    }
    const all = JSON.stringify([listed, paused, resumed, metrics]);
    expect(all).not.toContain('relay-pass-123');
    const status = await call('GET', api('/api/status'));
    expect((status.body.data as { features: { targets: boolean } }).features.targets).toBe(true);
  });

  it('shows an ordered target\'s key held up by its dead head (on-dead=block), with the deliveries waiting behind it', async () => {
    const app = await startTarget(() => 503);
    cleanups.push(() => app.close());
    const to = new URL(app.url).href;
    const pacing = resolvePacing([`${to} order=/data/accessRequestId on-dead=block`], '--pace', [to], [], []);
    const node = await startApp(cleanups, { console: TEST_CONSOLE, forward: { to, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 1, pacing } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // Every one is about access request ar_1 (envelopeBody's data): one key.
      const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
      const answer = await request(node.receiverUrl, { method: 'POST', headers: sent.headers, body: sent.body });
      await answer.body.dump();
      expect(answer.statusCode).toBe(200);
      ids.push(sent.id);
    }
    await app.waitFor(1);
    const api = new URL('/api/targets', node.consoleUrl!).href;
    let listed: { status: number; body: { data?: unknown } } = { status: 0, body: {} };
    for (const end = Date.now() + 5000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) {
      listed = await call('GET', api);
      if (((listed.body.data as Array<{ blockedKeys: unknown[] }>)[0]?.blockedKeys.length ?? 0) > 0) break;
    }
    expect(listed.body.data).toMatchObject([
      { order: '/data/accessRequestId', onDead: 'block', blockedKeys: [{ key: 'v:"ar_1"', deliveryId: ids[0], state: 'dead', tries: 1, lastStatus: 503, waiting: 2 }] },
    ]);
    // Only the head was tried: the others wait behind it.
    expect(app.received).toHaveLength(1);
  });

  it('answers 501 naming --forward-to when the node has no relay', async () => {
    const node = await startApp(cleanups, { console: TEST_CONSOLE });
    const res = await call('GET', new URL('/api/targets', node.consoleUrl!).href);
    expect(res.status).toBe(501);
    expect(res.body.error).toMatch(/--forward-to/);
  });
});
