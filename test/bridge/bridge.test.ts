/**
 * The bridge end to end, in one process over real sockets: a public `listen` with a bridge
 * listener, a laptop `connect` with its own store and relay, and a local app.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect, type ConnectHandle } from '../../src/app/build-connect.js';
import type { ConnectConfig } from '../../src/config/connect-config.js';
import { verify } from '../../src/index.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { envelopeBody, signedRequest } from '../helpers/signed-delivery.js';
import { startTarget, type Target } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const TOKEN = 'laptop-token-0123456789abcdefghijklmnopqrstuvwxyz';
const VENDOR_TOKEN = 'vendor-token-0123456789abcdefghijklmnopqrstuvwxyz';
const LOCAL_SECRET = 'whsec_local_forward_secret_0123456789';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const now = () => Math.floor(Date.now() / 1000);

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

async function publicSide(): Promise<AppHandle> {
  const app = await buildApp(
    testListenConfig(join(folder(), 'public.db'), {
      bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }, { name: 'vendor', token: VENDOR_TOKEN, triggers: ['vendor.*'] }] },
    }),
  );
  cleanups.push(() => app.close());
  return app;
}

function laptopConfig(app: AppHandle, target: Target | null, overrides: Partial<ConnectConfig> = {}): ConnectConfig {
  return {
    url: app.bridgeUrl!,
    token: TOKEN,
    name: 'ana',
    dbPath: join(folder(), 'laptop.db'),
    forward: target ? { to: target.url, secret: LOCAL_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 3 } : null,
    console: null,
    logFormat: 'silent',
    retainMs: null,
    devSecret: null,
    ...overrides,
  };
}

async function laptop(config: ConnectConfig): Promise<ConnectHandle> {
  const handle = await buildConnect(config);
  cleanups.push(() => handle.close());
  return handle;
}

async function post(app: AppHandle, body?: Buffer, trigger = 'trustcenter.access_requested', id?: string) {
  const req = signedRequest({ t: now(), trigger, ...(body ? { body } : {}), ...(id ? { id } : {}) });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return req;
}


describe('the bridge', () => {
  it('hands every delivery to the local app byte for byte, re-signed with the local secret (BOM and invalid UTF-8 included)', async () => {
    const app = await publicSide();
    const target = await startTarget();
    cleanups.push(() => target.close());
    const local = await laptop(laptopConfig(app, target));
    await until(() => local.bridge.state() === 'live', 'live');

    const id1 = 'b0000000-0000-4000-8000-000000000001';
    const id2 = 'b0000000-0000-4000-8000-000000000002';
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), envelopeBody(id1)]);
    const invalid = Buffer.concat([envelopeBody(id2).subarray(0, -1), Buffer.from(',"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const sent = [await post(app), await post(app, bom, undefined, id1), await post(app, invalid, undefined, id2)];
    await target.waitFor(3);
    for (const req of sent) {
      const got = target.received.find((r) => r.headers['x-service-delivery'] === req.id)!;
      expect(got.body.equals(req.body)).toBe(true);
      expect(verify(got.body, got.headers['x-service-signature'] as string, { secrets: [LOCAL_SECRET] }).ok).toBe(true);
      const stored = (await local.store.getDelivery(req.id))!;
      expect(stored.signature).toBe('valid');
      expect(stored.headers.find(([n]) => n.toLowerCase() === 'x-service-event')![1]).toBe('trustcenter.access_requested');
    }
  }, 30_000);

  it('keeps what arrives while the laptop is away and delivers all of it in order on connect, then goes live', async () => {
    const app = await publicSide();
    const config = laptopConfig(app, null);
    const first = await laptop(config);
    await until(() => first.bridge.state() === 'live', 'first live');
    await first.close();

    const ids: string[] = [];
    for (let i = 0; i < 200; i++) ids.push((await post(app)).id);
    const again = await laptop(config);
    await until(async () => (await again.store.listDeliveries({ limit: 1000 })).items.length === 200, '200 deliveries on the laptop');
    const stored = (await again.store.listDeliveries({ limit: 1000 })).items.reverse().map((d) => d.id);
    expect(stored).toEqual(ids);
    await until(() => again.bridge.state() === 'live', 'live after the backlog');
    const live = await post(app);
    await until(async () => (await again.store.getDelivery(live.id)) !== undefined, 'the live delivery');
  }, 60_000);

  it("names a refused client's X-Forwarded-For (behind a proxy the socket is the proxy's), as text", async () => {
    const app = await publicSide();
    const notices: string[] = [];
    app.hub.on('notice', ({ message }) => notices.push(message));
    const url = new URL(app.bridgeUrl!.replace(/^ws/, 'http'));
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(url, {
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', authorization: 'Bearer wrong-token', 'x-forwarded-for': '203.0.113.9, \u00e9vil' },
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('upgrade', () => reject(new Error('upgraded with a wrong token')));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(401);
    expect(notices).toEqual(['bridge: refused a client from 127.0.0.1 (forwarded for 203.0.113.9, ?vil): no valid bridge token']);
  });

  it('refuses a wrong token before sending anything, and a token limited to triggers never receives others', async () => {
    const app = await publicSide();
    await post(app);
    const notices: string[] = [];
    app.hub.on('notice', ({ message }) => notices.push(message));
    const wrong = await laptop(laptopConfig(app, null, { token: 'x'.repeat(40), name: 'intruder' }));
    const message = await wrong.refused;
    expect(message).toMatch(/refused this client: 401 a valid bridge token is required/);
    // What to check, by the token's hint only.
    expect(message).toContain('This client sent the token …xxxx: it must be the TOKEN of one of the public listen\'s --bridge-token NAME:TOKEN values');
    expect(message).not.toContain('x'.repeat(40));
    // The public side says so too, without the token.
    const refusals = notices.filter((n) => n.includes('refused a client'));
    expect(refusals).toEqual([expect.stringMatching(/^bridge: refused a client from 127\.0\.0\.1: no valid bridge token$/)]);
    // A client retrying with a wrong token does not flood the log: one notice per 10 s.
    await (await laptop(laptopConfig(app, null, { token: 'y'.repeat(40), name: 'intruder' }))).refused;
    expect(notices.filter((n) => n.includes('refused a client'))).toHaveLength(1);
    expect((await wrong.store.listDeliveries({ limit: 10 })).items).toEqual([]);

    const vendor = await laptop(laptopConfig(app, null, { token: VENDOR_TOKEN, name: 'vendor-desk' }));
    await until(() => vendor.bridge.state() === 'live', 'vendor live');
    const rated = await post(app, undefined, 'vendor.rating_dropped');
    await post(app, undefined, 'trustcenter.access_requested');
    const rated2 = await post(app, undefined, 'vendor.rating_dropped');
    await until(async () => (await vendor.store.getDelivery(rated2.id)) !== undefined, 'the second vendor delivery');
    const got = (await vendor.store.listDeliveries({ limit: 10 })).items.map((d) => d.id).reverse();
    expect(got).toEqual([rated.id, rated2.id]);
  }, 30_000);

  it('survives a hostile frame from a subscriber, and keeps each token\'s subscribers apart', async () => {
    const app = await publicSide();
    const { WebSocket } = await import('ws');
    const hostile = new WebSocket(app.bridgeUrl!, 'hookrelay-bridge.1', { headers: { authorization: `Bearer ${VENDOR_TOKEN}`, 'x-hookrelay-subscriber': 'ana' } });
    await new Promise((resolve) => hostile.once('message', resolve));
    const closed = new Promise<number>((resolve) => hostile.once('close', (code) => resolve(code)));
    hostile.send(JSON.stringify({ type: '€'.repeat(50) }));
    expect(await closed).toBe(4400);

    // The receiver is still up, and "ana" under the laptop token is another subscriber than under the vendor token.
    const config = laptopConfig(app, null);
    const ana = await laptop(config);
    await until(() => ana.bridge.state() === 'live', 'ana live');
    const vendorAna = await laptop(laptopConfig(app, null, { token: VENDOR_TOKEN }));
    await until(() => vendorAna.bridge.state() === 'live', 'vendor ana live');
    const sent = [await post(app), await post(app, undefined, 'vendor.rating_dropped')];
    await until(async () => (await ana.store.getDelivery(sent[1]!.id)) !== undefined, 'both on the laptop');
    expect((await ana.store.getDelivery(sent[0]!.id))?.id).toBe(sent[0]!.id);
    await until(async () => (await vendorAna.store.getDelivery(sent[1]!.id)) !== undefined, 'the vendor delivery on the vendor subscriber');
    expect(await vendorAna.store.getDelivery(sent[0]!.id)).toBeUndefined();
  }, 30_000);
});
