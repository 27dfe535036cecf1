/**
 * `listen --route` end to end over real sockets: the async relay and the sync passthrough both
 * hand each delivery to its route's target (else --forward-to), and a replay with no URL goes
 * where the relay would send it.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import type { ForwardConfig } from '../../src/config/listen-config.js';
import type { HubEvents } from '../../src/runtime/event-hub.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
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

async function post(handle: AppHandle, trigger: string): Promise<string> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger });
  const res = await request(handle.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return req.id;
}

function relayCount(handle: AppHandle) {
  const events: Array<HubEvents['relay']> = [];
  const waiters: Array<() => void> = [];
  handle.hub.on('relay', (e) => {
    events.push(e);
    waiters.splice(0).forEach((w) => w());
  });
  return async (n: number) => {
    while (events.length < n) await new Promise<void>((r) => waiters.push(r));
    return events;
  };
}

const forward = (to: string, routes: ForwardConfig['routes'], mode: ForwardConfig['mode']): ForwardConfig => ({ to, secret: 'whsec_fwd', timeoutMs: 5000, headers: [], mode, maxTries: 3, routes });

describe.each(['async', 'sync'] as const)('listen --route (--forward-mode %s)', (mode) => {
  it('hands vendor.* to its route, the rest to --forward-to, and replays to the route by default', async () => {
    const [vendor, fallback] = await Promise.all([target(), target()]);
    const handle = await app(forward(fallback.url, [{ glob: 'vendor.*', urls: [vendor.url] }], mode));
    const relayed = relayCount(handle);
    const vendorId = await post(handle, 'vendor.rating_dropped');
    const otherId = await post(handle, 'trustcenter.access_requested');
    await relayed(2);
    expect(vendor.received.map((r) => r.headers['x-service-delivery'])).toEqual([vendorId]);
    expect(fallback.received.map((r) => r.headers['x-service-delivery'])).toEqual([otherId]);

    const replayed = await handle.replay(vendorId);
    expect(replayed).toMatchObject({ ok: true, target: vendor.url });
    expect(vendor.received.map((r) => r.headers['x-hookrelay-replay'])).toEqual(['false', 'true']);
    expect((await handle.store.relayHistory(vendorId)).attempts.map((a) => [a.replay, a.target])).toEqual([
      [false, vendor.url],
      [true, vendor.url],
    ]);
  });
});
