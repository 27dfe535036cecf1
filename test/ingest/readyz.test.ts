/** /readyz (readiness) against /healthz (liveness): the store must be able to write, the relay worker be alive. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppDeps, type AppHandle } from '../../src/app/build-app.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testListenConfig } from '../helpers/listen-config.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(overrides: Partial<ListenConfig> = {}, deps: AppDeps = {}): Promise<AppHandle & { dbPath: string }> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const dbPath = join(dir, 'app.db');
  const app = await buildApp(
    testListenConfig(dbPath, overrides),
    deps,
  );
  cleanups.push(() => app.close());
  return Object.assign(app, { dbPath });
}

async function get(app: AppHandle, path: string) {
  const res = await request(new URL(path, app.receiverUrl), {});
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown>, requestId: res.headers['x-request-id'] };
}

describe('/readyz', () => {
  it('is 200 with a writable SQLite store and no relay; /healthz stays a liveness check', async () => {
    const app = await start();
    const ready = await get(app, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ success: true, data: { store: 'writable', relay: 'off' } });
    expect(ready.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get(app, '/healthz')).status).toBe(200);
  });

  it('reports the relay worker alive when forwarding', async () => {
    const app = await start({ forward: { to: 'http://127.0.0.1:9/hook', secret: TEST_SECRET, timeoutMs: 1000, headers: [], mode: 'async', maxTries: 1 } });
    expect((await get(app, '/readyz')).body).toMatchObject({ data: { store: 'writable', relay: 'alive' } });
  });

  it('is 503 with the reason when the store cannot write, and 200 again once it can', async () => {
    const memory = createMemoryStore();
    let failing = true;
    const store = { ...memory, probe: async () => { if (failing) throw new StoreUnavailableError('disk full (test)'); } };
    const app = await start({}, { store });
    const down = await get(app, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ success: false, code: 'NOT_READY', details: { store: 'unavailable', relay: 'off' } });
    expect(String(down.body.error)).toContain('disk full (test)');
    expect((await get(app, '/healthz')).status).toBe(200);
    failing = false;
    expect((await get(app, '/readyz')).status).toBe(200);
  });

  it('is 503 while another process holds the SQLite write lock', async () => {
    const app = await start();
    const blocker = new Database(app.dbPath);
    blocker.pragma('busy_timeout = 0');
    blocker.exec('BEGIN EXCLUSIVE');
    try {
      const busy = await get(app, '/readyz');
      expect(busy.status).toBe(503);
      expect(busy.body).toMatchObject({ details: { store: 'unavailable' } });
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect((await get(app, '/readyz')).status).toBe(200);
  });

  it('keeps a plain x-request-id from a proxy and replaces a hostile one', async () => {
    const app = await start();
    const kept = await request(new URL('/healthz', app.receiverUrl), { headers: { 'x-request-id': 'proxy-abc.123' } });
    await kept.body.dump();
    expect(kept.headers['x-request-id']).toBe('proxy-abc.123');
    const replaced = await request(new URL('/healthz', app.receiverUrl), { headers: { 'x-request-id': 'a b<script>' } });
    await replaced.body.dump();
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
