/**
 * One set of limits (src/core/limits.ts) for the receiver and the bridge: whatever the receiver
 * accepts, the bridge carries and the laptop stores; what it refuses never reaches the store; and a
 * delivery stored past the limits (an older version accepted such) is recorded on the laptop as one
 * it could not take, while the subscription moves on to the next.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect, type ConnectHandle } from '../../src/app/build-connect.js';
import { MAX_HEADER_LINES, MAX_HEADER_NAME_LENGTH } from '../../src/core/limits.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { envelopeBody, signedRequest, type SignedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const TOKEN = 'laptop-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

async function publicSide(): Promise<AppHandle> {
  const app = await buildApp(
    testListenConfig(join(folder(), 'public.db'), {
      bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] },
    }),
  );
  cleanups.push(() => app.close());
  return app;
}

async function laptop(app: AppHandle): Promise<ConnectHandle> {
  const handle = await buildConnect({
    url: app.bridgeUrl!,
    token: TOKEN,
    name: 'ana',
    dbPath: join(folder(), 'laptop.db'),
    forward: null,
    console: null,
    logFormat: 'silent',
    retainMs: null,
    devSecret: null,
  });
  cleanups.push(() => handle.close());
  return handle;
}

/** A signed delivery with `extra` header lines after its own seven (content-type … signature). */
function withExtraHeaders(extra: Array<[string, string]>): { req: SignedRequest; rawHeaders: string[] } {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
  const rawHeaders = [...Object.entries(req.headers), ...extra].flat();
  return { req, rawHeaders };
}

async function post(app: AppHandle, req: SignedRequest, rawHeaders: string[]) {
  const res = await request(app.receiverUrl, { method: 'POST', headers: rawHeaders, body: req.body });
  return { status: res.statusCode, code: res.headers['x-hookrelay-error'], text: await res.body.text() };
}


/** Seven lines of the signed request, plus the Host, Content-Length and Connection lines undici adds. */
const OWN_LINES = 10;

describe('one set of limits for the receiver and the bridge', () => {
  it('refuses with 431 what the bridge could not carry, stores none of it, and carries everything at the limits to the laptop', async () => {
    const app = await publicSide();
    const local = await laptop(app);
    await until(() => local.bridge.state() === 'live', 'live');

    const tooMany = withExtraHeaders(Array.from({ length: MAX_HEADER_LINES - OWN_LINES + 1 }, (_, i) => [`x-e${i}`, 'v']));
    const many = await post(app, tooMany.req, tooMany.rawHeaders);
    expect(many.status).toBe(431);
    expect(many.code).toBe('HEADERS_TOO_LARGE');
    expect(many.text).toContain(`hookrelay accepts at most ${MAX_HEADER_LINES}`);

    const longName = withExtraHeaders([[`x-${'n'.repeat(MAX_HEADER_NAME_LENGTH - 1)}`, 'v']]);
    const named = await post(app, longName.req, longName.rawHeaders);
    expect(named.status).toBe(431);
    expect(named.text).toContain(`a header name of ${MAX_HEADER_NAME_LENGTH + 1} characters`);
    expect(await app.store.getDelivery(tooMany.req.id)).toBeUndefined();
    expect(await app.store.getDelivery(longName.req.id)).toBeUndefined();

    const atLimit = withExtraHeaders([
      [`x-${'n'.repeat(MAX_HEADER_NAME_LENGTH - 2)}`, 'v'],
      ...Array.from({ length: MAX_HEADER_LINES - OWN_LINES - 1 }, (_, i) => [`x-e${i}`, 'v'] as [string, string]),
    ]);
    expect((await post(app, atLimit.req, atLimit.rawHeaders)).status).toBe(200);
    await until(async () => (await local.store.getDelivery(atLimit.req.id)) !== undefined, 'the delivery at the limits on the laptop');
    expect((await local.store.getDelivery(atLimit.req.id))!.headers).toHaveLength(MAX_HEADER_LINES);
  }, 30_000);

  it('records a stored delivery past the limits as one the laptop could not take, with why, and moves on to the next', async () => {
    const app = await publicSide();
    const local = await laptop(app);
    await until(() => local.bridge.state() === 'live', 'live');
    // As an older version accepted it: 206 header lines, straight into the public store.
    const id = 'c0000000-0000-4000-8000-000000000001';
    const body = envelopeBody(id);
    const rawHeaders = [['x-service-delivery', id], ['x-service-event', 'trustcenter.access_requested'], ...Array.from({ length: 204 }, (_, i) => [`x-e${i}`, 'v'])].flat();
    const now = Date.now();
    await app.store.accept(
      { id, trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: now, rawBody: body, rawHeaders, signature: 'valid', secretIndex: 0, signatureTimestamp: Math.floor(now / 1000) },
      { deliveryId: id, trigger: 'trustcenter.access_requested', receivedAt: now, finishedAt: now, attemptHeader: 1, signatureTimestamp: Math.floor(now / 1000), bodySha256: '', bodyBytes: body.length, outcome: 'accepted', status: 200, reason: null, retryAfter: null },
    );

    // The next delivery wakes the bridge, which reads both from its store in order.
    const next = signedRequest({ t: Math.floor(Date.now() / 1000) });
    expect((await post(app, next, Object.entries(next.headers).flat())).status).toBe(200);
    await until(async () => (await local.store.getDelivery(next.id)) !== undefined, 'the next delivery on the laptop');

    expect(await local.store.getDelivery(id)).toBeUndefined();
    const refused = await local.store.listAttempts({ deliveryId: id, limit: 10 });
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ outcome: 'rejected', reason: 'BRIDGE_DELIVERY_REFUSED', hints: ['delivery: 206 header lines; hookrelay accepts at most 200'] });
    expect(local.bridge.progress().reconnects).toBe(0);
    await until(() => local.bridge.progress().ackedSeq === 2, 'both acknowledged');
  }, 30_000);
});
