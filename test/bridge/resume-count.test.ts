/**
 * What `connect` says it resumes (issue 36 item 20): a subscriber whose token is limited to some
 * triggers is told the number of missed deliveries it gets, not the number stored since its cursor.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect } from '../../src/app/build-connect.js';
import type { ConnectConfig } from '../../src/config/connect-config.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const TOKEN = 'laptop-token-0123456789abcdefghijklmnopqrstuvwxyz';
const VENDOR_TOKEN = 'vendor-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});


async function post(app: AppHandle, trigger: string): Promise<string> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return req.id;
}

/** A `connect` that records every bridge message, from its first. */
async function connectRecording(config: ConnectConfig): Promise<{ messages: string[]; handle: Awaited<ReturnType<typeof buildConnect>> }> {
  const hub = createEventHub();
  const messages: string[] = [];
  hub.on('notice', (n) => messages.push(n.message));
  const handle = await buildConnect(config, { hub });
  cleanups.push(() => handle.close());
  await until(() => handle.bridge.state() === 'live', 'live');
  return { messages, handle };
}

it('a trigger-limited subscriber is told how many missed deliveries it gets, not how many were stored', async () => {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const app = await buildApp(
    testListenConfig(join(dir, 'public.db'), {
      bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }, { name: 'vendor', token: VENDOR_TOKEN, triggers: ['vendor.*'] }] },
    }),
  );
  cleanups.push(() => app.close());
  const config: ConnectConfig = { url: app.bridgeUrl!, token: VENDOR_TOKEN, name: 'desk', dbPath: join(dir, 'laptop.db'), forward: null, console: null, logFormat: 'silent', retainMs: null, devSecret: null };
  const first = await connectRecording(config);
  await first.handle.close();

  const triggers = ['trustcenter.access_requested', 'vendor.rating_dropped', 'trustcenter.access_requested', 'trustcenter.access_requested', 'vendor.rating_dropped', 'trustcenter.access_requested'];
  const vendorIds: string[] = [];
  for (const trigger of triggers) {
    const id = await post(app, trigger);
    if (trigger.startsWith('vendor.')) vendorIds.push(id);
  }

  const again = await connectRecording(config);
  // `live` can come before the commits of what came just before it.
  const stored = async () => (await again.handle.store.listDeliveries({ limit: 10 })).items.map((d) => d.id).sort();
  await until(async () => (await stored()).length === 2, 'the two vendor deliveries stored');
  expect(await stored()).toEqual([...vendorIds].sort());
  expect(again.messages.filter((m) => /^resum/.test(m))).toEqual(['resuming 2 missed deliveries', 'resumed 2 missed deliveries']);
}, 30_000);

it('an unlimited subscriber is told every missed delivery, and nothing when none were missed', async () => {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const app = await buildApp(testListenConfig(join(dir, 'public.db'), { bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] } }));
  cleanups.push(() => app.close());
  const config: ConnectConfig = { url: app.bridgeUrl!, token: TOKEN, name: 'ana', dbPath: join(dir, 'laptop.db'), forward: null, console: null, logFormat: 'silent', retainMs: null, devSecret: null };
  const first = await connectRecording(config);
  expect(first.messages.filter((m) => /^resum/.test(m))).toEqual([]);
  await first.handle.close();
  for (let i = 0; i < 3; i++) await post(app, 'vendor.rating_dropped');
  const again = await connectRecording(config);
  expect(again.messages.filter((m) => /^resum/.test(m))).toEqual(['resuming 3 missed deliveries', 'resumed 3 missed deliveries']);
}, 30_000);
