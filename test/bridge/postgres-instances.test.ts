/**
 * The bridge on PostgreSQL: two `listen` instances share one database, a laptop subscribes to one
 * of them, and receives every delivery either instance accepted, each handed to its app once.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect } from '../../src/app/build-connect.js';
import { createPostgresStore } from '../../src/store/postgres/pg-store.js';
import Database from 'better-sqlite3';
import { useTestPostgres } from '../setup/postgres-test-url.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'pg-laptop-token-0123456789abcdefghijklmnopqrstuvwxyz';
const pg = useTestPostgres();
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

async function instance(storeUrl: string, bridge: boolean): Promise<AppHandle> {
  const app = await buildApp(
    testListenConfig(join(folder(), 'unused.db'), {
      storeUrl,
      ...(bridge ? { bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] } } : {}),
    }),
  );
  cleanups.push(() => app.close());
  return app;
}

async function post(app: AppHandle): Promise<string> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return req.id;
}

describe('the bridge on PostgreSQL', () => {
  it('a subscriber on one instance receives what either instance accepted, each once, in sequence order', async () => {
    const url = await pg.freshSchema();
    const [withBridge, other] = [await instance(url, true), await instance(url, false)];
    const target = await startTarget();
    cleanups.push(() => target.close());
    const laptopDb = join(folder(), 'laptop.db');
    const laptop = await buildConnect({
      url: withBridge.bridgeUrl!,
      token: TOKEN,
      name: 'ana',
      dbPath: laptopDb,
      forward: { to: target.url, secret: 'whsec_pg_laptop_local_0123456789', timeoutMs: 5000, headers: [], mode: 'async', maxTries: 3 },
      console: null,
      logFormat: 'silent',
      retainMs: null,
      devSecret: null,
    });
    cleanups.push(() => laptop.close());

    // Both instances take deliveries at once, so their commits interleave.
    const ids = (await Promise.all(Array.from({ length: 60 }, (_, i) => post(i % 2 === 0 ? other : withBridge)))).sort();
    await target.waitFor(ids.length);
    const handed = target.received.map((r) => r.headers['x-service-delivery'] as string);
    expect([...handed].sort()).toEqual(ids);
    expect(new Set(handed).size).toBe(handed.length);
    // The laptop stored them in the public sequence's order.
    const reader = await createPostgresStore(url);
    const publicOrder = (await reader.deliveriesAfter(0, 100)).map((d) => d.id);
    await reader.close();
    const local = new Database(laptopDb, { readonly: true });
    const laptopOrder = local.prepare<[], { id: string }>('SELECT id FROM deliveries ORDER BY seq').all().map((r) => r.id);
    local.close();
    expect(laptopOrder).toEqual(publicOrder);
  }, 60_000);
});
