/**
 * Every id the receiver stores is reachable through every console route and the CLI, and the
 * receiver refuses a longer one with a clear 400 (a hostile sender must not store what no route can open).
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { MAX_ID_LENGTH } from '../../src/core/envelope.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const now = () => Math.floor(Date.now() / 1000);

async function start(): Promise<{ app: AppHandle; db: string }> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = join(dir, 'ids.db');
  const app = await buildApp(testListenConfig(db, { console: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null } }));
  cleanups.push(() => app.close());
  return { app, db };
}

async function post(app: AppHandle, id: string) {
  const req = signedRequest({ id, t: now() });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  return { status: res.statusCode, body: (await res.body.json()) as { code?: string; error?: string }, req };
}

async function api(app: AppHandle, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const url = new URL(path, app.consoleUrl!);
  const origin = new URL(app.consoleUrl!).origin;
  const res = await request(url, {
    method,
    headers: { ...(method === 'GET' ? {} : { origin }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.statusCode, text: await res.body.text() };
}

describe('long delivery ids', () => {
  it(`reaches a ${MAX_ID_LENGTH}-character id, multi-byte characters included, through detail, raw, replay, delete and the CLI`, async () => {
    const { app, db } = await start();
    const target = await startTarget();
    cleanups.push(() => target.close());
    const id = `${'é'.repeat(100)}/?#% ${'x'.repeat(MAX_ID_LENGTH - 105)}`;
    expect(id).toHaveLength(MAX_ID_LENGTH);
    expect((await post(app, id)).status).toBe(200);
    const path = `/api/deliveries/${encodeURIComponent(id)}`;

    const detail = await api(app, 'GET', path);
    expect(detail.status).toBe(200);
    expect(JSON.parse(detail.text).data.delivery.id).toBe(id);
    const raw = await api(app, 'GET', `${path}/raw`);
    expect(raw.status).toBe(200);
    expect(JSON.parse(raw.text).id).toBe(id);
    const replayed = await api(app, 'POST', `${path}/replay`, { to: target.url });
    expect(replayed.status).toBe(200);
    expect(target.received[0]!.headers['x-service-delivery']).toBe(id);

    const shown = await runCli(['events', 'show', id, '--db', db, '--raw']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).id).toBe(id);

    const removed = await api(app, 'DELETE', path);
    expect(removed.status).toBe(200);
    expect(await app.store.getDelivery(id)).toBeUndefined();
  });

  it(`refuses an id of ${MAX_ID_LENGTH + 1} characters with 400 INVALID_ENVELOPE naming the limit, and stores nothing`, async () => {
    const { app } = await start();
    const id = 'y'.repeat(MAX_ID_LENGTH + 1);
    const refused = await post(app, id);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INVALID_ENVELOPE');
    expect(refused.body.error).toBe(`envelope field "id" is ${MAX_ID_LENGTH + 1} characters long; hookrelay accepts at most ${MAX_ID_LENGTH}`);
    expect(await app.store.getDelivery(id)).toBeUndefined();
  });
});
