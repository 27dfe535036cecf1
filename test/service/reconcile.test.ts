/**
 * reconcile's ledger against a scripted API and a stub store: missed (with the service's
 * attempts), acknowledged but not known as delivered, in flight, webhook state, attempts that
 * never arrived; replays cover their original; resume from the saved cursor; --since; --replay.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AttemptRecord } from '../../src/core/records.js';
import { createApiClient } from '../../src/service/api-client.js';
import { reconcile, type ReconcileOptions } from '../../src/service/reconcile.js';
import { ServiceError } from '../../src/service/service-error.js';
import { createWebhooksApi } from '../../src/service/webhooks-api.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiError, delivery, ok, startHostile, webhook, type Handler, type HostileServer } from './hostile-server.js';

let server: HostileServer | undefined;
let dir: string;
let removeDir: () => void;
beforeEach(() => ({ dir, remove: removeDir } = tempDir('hookrelay-reconcile-')));
afterEach(async () => {
  await server?.close();
  server = undefined;
  removeDir();
});

const attempt = (n: number, status: number | null, failureClass: string | null = null) => ({ attemptNumber: n, startedAt: '2026-06-01T10:00:00Z', responseStatus: status, failureClass, errorMessage: status === null ? 'timeout' : 'responded with a status' });
const page = (items: unknown[], nextCursor: string | null) => ok(items, { cursor: { nextCursor, hasMore: nextCursor !== null, limit: 100 } });

/** Local store: stored ids, and the attempt headers listen recorded per id. */
function stubStore(stored: Iterable<string>, arrivals: Record<string, number[]> = {}) {
  const have = new Set(stored);
  return {
    have,
    getDelivery: async (id: string) => (have.has(id) ? ({ id } as never) : undefined),
    listAttempts: async (q: { deliveryId?: string }) => ((Object.hasOwn(arrivals, q.deliveryId ?? '') ? arrivals[q.deliveryId ?? ''] : undefined) ?? (have.has(q.deliveryId ?? '') ? [1] : [])).map((n) => ({ attemptHeader: n }) as AttemptRecord),
  };
}

async function run(route: (url: URL, method: string, i: number) => Handler, store: ReconcileOptions['store'], extra: Partial<ReconcileOptions> = {}) {
  server ??= await startHostile((i, req) => route(new URL(req.url ?? '/', 'http://x'), req.method ?? 'GET', i));
  const client = createApiClient({ baseUrl: server.baseUrl, apiKey: 'k-0123456789', sleep: async () => {}, maxTries: 2 });
  try {
    return await reconcile({ api: createWebhooksApi(client), store, apiUrl: server.baseUrl, webhookId: 'wh-1', since: null, dataDir: dir, replay: false, confirmTimeoutMs: 1000, now: Date.now, sleep: async () => {}, ...extra });
  } finally {
    await client.close();
  }
}

const LEDGER = [
  delivery('d-ok', { attempts: [attempt(1, null, 'timeout'), attempt(2, 200)], attemptCount: 2 }),
  delivery('d-missed', { status: 'failed', lastFailureClass: 'http_5xx', attemptCount: 2, attempts: [attempt(1, 503, 'http_5xx'), attempt(2, 503, 'http_5xx')] }),
  delivery('d-flying', { status: 'retrying', nextAttemptAt: '2026-06-01T11:00:00Z', attempts: [attempt(1, 503, 'http_5xx')] }),
  delivery('d-acked', { status: 'failed', lastFailureClass: 'timeout', attempts: [attempt(1, null, 'timeout')] }),
  delivery('r-of-old', { isReplay: true, replayOfDeliveryId: 'd-old' }),
  delivery('d-old', { status: 'failed', lastFailureClass: 'network', attempts: [attempt(1, null, 'network')] }),
];

it('names each kind of gap, and the attempts that never arrived', async () => {
  const store = stubStore(['d-ok', 'd-acked', 'r-of-old'], { 'd-ok': [2], 'd-missed': [1, 2], 'd-acked': [1], 'r-of-old': [1] });
  const report = await run((url) => (url.pathname.endsWith('/deliveries') ? page(LEDGER, null) : ok(webhook('wh-1'))), store);
  expect(report.missed.map((m) => m.deliveryId)).toEqual(['d-missed']);
  expect(report.missed[0]!.attempts.map((a) => [a.attemptNumber, a.responseStatus, a.failureClass])).toEqual([[1, 503, 'http_5xx'], [2, 503, 'http_5xx']]);
  expect(report.acknowledgedNotKnown.map((d) => d.deliveryId)).toEqual(['d-acked']);
  expect(report.inFlight).toEqual([{ deliveryId: 'd-flying', trigger: 'sod.violation_detected', status: 'retrying', attemptCount: 1, nextAttemptAt: '2026-06-01T11:00:00Z' }]);
  // d-ok's first attempt timed out before it reached listen; d-flying's and d-old's never came.
  expect(report.lostAttempts).toEqual([{ deliveryId: 'd-ok', attemptNumbers: [1] }, { deliveryId: 'd-flying', attemptNumbers: [1] }, { deliveryId: 'd-old', attemptNumbers: [1] }]);
  expect(report.scanned).toBe(6);
  expect(report.reconciled).toBe(false);
});

it('is reconciled when every attempted delivery, or a replay of it, is stored and the webhook is active', async () => {
  const store = stubStore(['d-ok', 'r-of-old']);
  const report = await run((url) => (url.pathname.endsWith('/deliveries') ? page([LEDGER[0], LEDGER[4], LEDGER[5]], null) : ok(webhook('wh-1'))), store);
  expect(report.missed).toEqual([]);
  expect(report.reconciled).toBe(true);
});

it('reports a suspended webhook with its reason and the fix', async () => {
  const report = await run((url) => (url.pathname.endsWith('/deliveries') ? page([], null) : ok(webhook('wh-1', { status: 'suspended', disabledReason: 'endpoint answered 410' }))), stubStore([]));
  expect(report.webhook).toMatchObject({ status: 'suspended', disabledReason: 'endpoint answered 410', fix: 'hookrelay webhooks enable wh-1' });
  expect(report.reconciled).toBe(false);
});

it('resumes from the saved cursor after a failure, keeping what the first run found', async () => {
  let failPage2 = true;
  const route = (url: URL): Handler => {
    if (!url.pathname.endsWith('/deliveries')) return ok(webhook('wh-1'));
    const cursor = url.searchParams.get('cursor');
    if (cursor === null) return page([LEDGER[1]], 'c1');
    if (cursor === 'c1') return failPage2 ? apiError(500, 'INTERNAL_ERROR', 'down') : page([LEDGER[2]], null);
    return apiError(400, 'INVALID_CURSOR', 'bad');
  };
  const store = stubStore([]);
  const first = await run(route, store).then(() => null, (e: unknown) => e);
  expect(first).toBeInstanceOf(ServiceError);
  expect(readdirSync(join(dir, 'reconcile'))).toHaveLength(1);
  failPage2 = false;
  const before = server!.requests.length;
  const report = await run(route, store);
  const cursors = server!.requests.slice(before).filter((r) => r.url.includes('/deliveries')).map((r) => new URL(r.url, 'http://x').searchParams.get('cursor'));
  expect(cursors).toEqual(['c1']);
  expect(report.resumed).toBe(true);
  expect(report.missed.map((m) => m.deliveryId)).toEqual(['d-missed']);
  expect(report.inFlight.map((d) => d.deliveryId)).toEqual(['d-flying']);
  expect(readdirSync(join(dir, 'reconcile'))).toEqual([]);
});

it('starts over when the service refuses the saved cursor', async () => {
  let broken = true;
  const route = (url: URL): Handler => {
    if (!url.pathname.endsWith('/deliveries')) return ok(webhook('wh-1'));
    const cursor = url.searchParams.get('cursor');
    if (cursor === null) return page([LEDGER[1]], broken ? 'c1' : null);
    return broken ? apiError(503, 'INTERNAL_ERROR', 'down') : apiError(400, 'INVALID_CURSOR', 'the cursor is malformed');
  };
  await run(route, stubStore([])).catch(() => {});
  broken = false;
  const report = await run(route, stubStore([]));
  expect(report.resumed).toBe(false);
  expect(report.missed.map((m) => m.deliveryId)).toEqual(['d-missed']);
  // Once with the saved cursor (refused), then from the newest page.
  const cursors = server!.requests.filter((r) => r.url.includes('/deliveries')).map((r) => new URL(r.url, 'http://x').searchParams.get('cursor'));
  expect(cursors.slice(-2)).toEqual(['c1', null]);
});

it('leaves no saved cursor behind when the cursor loops', async () => {
  const route = (url: URL): Handler => {
    if (!url.pathname.endsWith('/deliveries')) return ok(webhook('wh-1'));
    const cursor = url.searchParams.get('cursor');
    return cursor === null ? page([LEDGER[0]], 'c1') : cursor === 'c1' ? page([LEDGER[1]], 'c2') : page([LEDGER[2]], 'c1');
  };
  const err = await run(route, stubStore([])).then(() => null, (e: unknown) => e as ServiceError);
  expect(err?.code).toBe('CURSOR_LOOP');
  expect(existsSync(join(dir, 'reconcile')) ? readdirSync(join(dir, 'reconcile')) : []).toEqual([]);
});

it('stops paging at --since (newest first)', async () => {
  const old = delivery('d-older', { status: 'failed', createdAt: '2026-05-01T00:00:00Z' });
  const route = (url: URL): Handler => {
    if (!url.pathname.endsWith('/deliveries')) return ok(webhook('wh-1'));
    return url.searchParams.get('cursor') === null ? page([{ ...LEDGER[1], createdAt: '2026-06-02T00:00:00Z' }, old], 'c1') : apiError(500, 'INTERNAL_ERROR', 'must not be read');
  };
  const report = await run(route, stubStore([]), { since: { text: '2026-06-01', ms: Date.parse('2026-06-01') } });
  expect(report.scanned).toBe(1);
  expect(report.missed.map((m) => m.deliveryId)).toEqual(['d-missed']);
});

it('--replay asks for each missed delivery and confirms the replay arrived', async () => {
  const store = stubStore(['d-ok']);
  let asked = 0;
  const realGet = store.getDelivery;
  store.getDelivery = async (id: string) => {
    if (id === 'r-new' && ++asked >= 3) store.have.add('r-new');
    return realGet(id);
  };
  const route = (url: URL, method: string): Handler => {
    if (method === 'POST' && url.pathname === '/v1/webhooks/wh-1/deliveries/d-missed/replay') return ok(delivery('r-new', { status: 'pending', isReplay: true, replayOfDeliveryId: 'd-missed', attempts: [], attemptCount: 0 }));
    if (url.pathname.endsWith('/deliveries')) return page([LEDGER[0], LEDGER[1]], null);
    return ok(webhook('wh-1'));
  };
  const report = await run(route, store, { replay: true });
  expect(report.missed[0]!.replay).toEqual({ replayId: 'r-new', arrived: true });
  expect(report.reconciled).toBe(true);
});

it('--replay says when a replay did not arrive in time', async () => {
  let t = 0;
  const route = (url: URL, method: string): Handler => {
    if (method === 'POST') return ok(delivery('r-lost', { status: 'pending', isReplay: true, replayOfDeliveryId: 'd-missed' }));
    if (url.pathname.endsWith('/deliveries')) return page([LEDGER[1]], null);
    return ok(webhook('wh-1'));
  };
  const report = await run(route, stubStore([]), { replay: true, confirmTimeoutMs: 1000, now: () => t, sleep: async (ms) => void (t += ms) });
  expect(report.missed[0]!.replay).toEqual({ replayId: 'r-lost', arrived: false });
  expect(report.reconciled).toBe(false);
});

it('pages 10,000+ deliveries inside the read budget: never more reads in a minute than the budget allows', async () => {
  let t = 0;
  const sentAt: number[] = [];
  const total = 10_050;
  const route = (url: URL): Handler => {
    sentAt.push(t);
    if (!url.pathname.endsWith('/deliveries')) return ok(webhook('wh-1'));
    const start = Number(url.searchParams.get('cursor') ?? '0');
    const items = Array.from({ length: Math.min(100, total - start) }, (_, i) => ({ id: `d-${start + i}`, status: 'succeeded', attempts: [{ attemptNumber: 1 }] }));
    const next = start + 100 < total ? String(start + 100) : null;
    return page(items, next);
  };
  server = await startHostile((_i, req) => route(new URL(req.url ?? '/', 'http://x')));
  const { createPacer } = await import('../../src/service/pacer.js');
  // A budget of 30 reads a minute makes 102 reads take more than three minutes of (fake) time.
  const client = createApiClient({ baseUrl: server.baseUrl, apiKey: 'k-0123456789', now: () => t, sleep: async (ms) => void (t += ms), pacer: createPacer({ read: 30, write: 5 }) });
  const all = new Set(Array.from({ length: total }, (_, i) => `d-${i}`));
  try {
    const report = await reconcile({ api: createWebhooksApi(client), store: stubStore(all), apiUrl: server.baseUrl, webhookId: 'wh-1', since: null, dataDir: dir, replay: false, confirmTimeoutMs: 0, now: () => t, sleep: async (ms) => void (t += ms) });
    expect(report.scanned).toBe(total);
    expect(report.reconciled).toBe(true);
  } finally {
    await client.close();
  }
  expect(sentAt).toHaveLength(102);
  for (const [i, at] of sentAt.entries()) expect(sentAt.filter((x) => x > at - 60_000 && x <= at).length, `request ${i}`).toBeLessThanOrEqual(30);
  expect(t).toBeGreaterThanOrEqual(3 * 60_000);
});

it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('takes a delivery id or replayOfDeliveryId of %s as any other id', async (name) => {
  const ledger = [
    delivery(name, { status: 'failed', lastFailureClass: 'http_5xx', attempts: [attempt(1, 503, 'http_5xx')] }),
    delivery(`r-of-${name}`, { status: 'failed', isReplay: true, replayOfDeliveryId: name, attempts: [attempt(1, 503, 'http_5xx')] }),
  ];
  const report = await run((url) => (url.pathname.endsWith('/deliveries') ? page(ledger, null) : ok(webhook('wh-1'))), stubStore([]));
  expect(report.missed).toHaveLength(1);
  expect(report.missed[0]).toMatchObject({ deliveryId: name, status: 'failed' });
  expect(report.missed[0]!.attempts.map((a) => a.deliveryId)).toEqual([name, `r-of-${name}`]);
});

it('resumes a saved state whose pending roots are __proto__ and constructor', async () => {
  let failPage2 = true;
  const route = (url: URL): Handler => {
    if (!url.pathname.endsWith('/deliveries')) return ok(webhook('wh-1'));
    const cursor = url.searchParams.get('cursor');
    if (cursor === null) return page([delivery('__proto__', { status: 'failed', attempts: [attempt(1, 503, 'http_5xx')] })], 'c1');
    if (cursor === 'c1') return failPage2 ? apiError(500, 'INTERNAL_ERROR', 'down') : page([delivery('r-1', { status: 'failed', isReplay: true, replayOfDeliveryId: 'constructor' })], null);
    return apiError(400, 'INVALID_CURSOR', 'bad');
  };
  const first = await run(route, stubStore([])).then(() => null, (e: unknown) => e);
  expect(first).toBeInstanceOf(ServiceError);
  failPage2 = false;
  const report = await run(route, stubStore([]));
  expect(report.resumed).toBe(true);
  expect(report.missed.map((m) => m.deliveryId).sort()).toEqual(['__proto__', 'constructor']);
});
