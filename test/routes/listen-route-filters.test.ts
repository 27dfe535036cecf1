/**
 * `listen --route 'GLOB where … = URL'` end to end over real sockets: deliveries whose body and
 * headers meet the filter go to the route's target, the rest to --forward-to, through the async
 * relay (the target chosen in the SQLite writer's accepting transaction) and the sync passthrough;
 * a replay with no URL goes where the filter sends it.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import type { ForwardConfig } from '../../src/config/listen-config.js';
import { parseRoute, type Route } from '../../src/core/routes.js';
import type { HubEvents } from '../../src/runtime/event-hub.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { envelopeBody, signedRequest } from '../helpers/signed-delivery.js';
import { startTarget, type Target } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function target(): Promise<Target> {
  const t = await startTarget();
  cleanups.push(() => t.close());
  return t;
}

async function app(forward: ForwardConfig): Promise<AppHandle> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const handle = await buildApp(testListenConfig(join(dir, 'h.db'), { forward }));
  cleanups.push(() => handle.close());
  return handle;
}

async function post(handle: AppHandle, trigger: string, data: Record<string, unknown>): Promise<string> {
  const id = crypto.randomUUID();
  const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger, id, body: envelopeBody(id, trigger, { data }) });
  const res = await request(handle.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return id;
}

function relayed(handle: AppHandle) {
  const events: Array<HubEvents['relay']> = [];
  const waiters: Array<() => void> = [];
  handle.hub.on('relay', (e) => {
    events.push(e);
    waiters.splice(0).forEach((w) => w());
  });
  return async (n: number) => {
    while (events.length < n) await new Promise<void>((r) => waiters.push(r));
  };
}

function route(text: string): Route {
  const parsed = parseRoute(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.route;
}

const ids = (t: Target): unknown[] => t.received.map((r) => r.headers['x-service-delivery']);

describe.each(['async', 'sync'] as const)('listen --route with a filter (--forward-mode %s)', (mode) => {
  it('sends the deliveries that meet the filter to the route, the rest to --forward-to', async () => {
    const [risky, fallback] = await Promise.all([target(), target()]);
    const routes = [route(`vendor.* where /data/risk >= 70 and header:X-Service-Event prefix vendor. = ${risky.url}`)];
    const handle = await app({ to: fallback.url, secret: 'whsec_fwd', timeoutMs: 5000, headers: [], mode, maxTries: 3, routes });
    const done = relayed(handle);
    const high = await post(handle, 'vendor.rating_dropped', { risk: 90 });
    const huge = await post(handle, 'vendor.rating_dropped', { risk: 1e300 });
    const low = await post(handle, 'vendor.rating_dropped', { risk: 69.999 });
    const missing = await post(handle, 'vendor.rating_dropped', {});
    const otherTrigger = await post(handle, 'trustcenter.access_requested', { risk: 99 });
    await done(5);
    // The relay hands on concurrently: which, not in what order.
    expect(ids(risky).sort()).toEqual([high, huge].sort());
    expect(ids(fallback).sort()).toEqual([low, missing, otherTrigger].sort());

    expect(await handle.replay(high)).toMatchObject({ ok: true, target: risky.url });
    expect(await handle.replay(low)).toMatchObject({ ok: true, target: fallback.url });
  });
});
