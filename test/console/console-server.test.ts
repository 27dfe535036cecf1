/** The control API through inject(): envelopes, cursor lists, detail, raw, replay, delete, faults, static files. */
import { createFaultRules } from '../../src/faults/rules-controller.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEventHub, type EventHub } from '../../src/runtime/event-hub.js';
import { ConsoleConfigError, createConsoleServer } from '../../src/console/console-server.js';
import type { ConsoleServerOptions } from '../../src/console/console-options.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';
import { cleanStatus, envelopeBody, receive, refuse } from './helpers/console-fixture.js';
import { createFakeFaults } from './helpers/fake-faults.js';
import { withRelayTries } from './helpers/relay-tries.js';

const HOST = 'localhost:4001';
const ORIGIN = 'http://localhost:4001';

let store: DeliveryStore;
let hub: EventHub;
let app: FastifyInstance;

async function build(overrides: Partial<ConsoleServerOptions> = {}): Promise<FastifyInstance> {
  app = await createConsoleServer({
    store,
    hub,
    status: cleanStatus,
    listenHost: '127.0.0.1',
    listenPort: 4001,
    token: null,
    webRoot: '/nonexistent-web-root',
    now: () => Date.parse('2026-11-21T12:00:00Z'),
    ...overrides,
  });
  return app;
}

/** A request as the console page sends it: our Host, our Origin, JSON. */
async function call(method: InjectOptions['method'], url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({
    method,
    url,
    headers: {
      host: HOST,
      ...(method === 'GET' ? {} : { origin: ORIGIN }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, headers: res.headers, json: () => res.json(), raw: res.rawPayload };
}

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
});
afterEach(async () => {
  await app?.close();
});

describe('status', () => {
  it('answers the summary in the success envelope, with features', async () => {
    await build({ replay: async () => ({ ok: true, status: 200 }) });
    const res = await call('GET', '/api/status');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        ...cleanStatus(),
        tokenRequired: false,
        feedPath: '/api/feed',
        features: { faults: false, faultValidation: false, replay: true, remove: false, conformance: false, relayHistory: true, bridge: false, metrics: false, bulkReplay: false, targets: false },
      },
      timestamp: '2026-11-21T12:00:00.000Z',
    });
  });
});

describe('GET /api/deliveries', () => {
  it('pages newest first with signed cursors until hasMore is false', async () => {
    await build();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await receive(store, hub, { id: `evt_${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call('GET', `/api/deliveries?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      const body = res.json();
      expect(body.cursor.limit).toBe(3);
      expect(body.cursor.hasMore).toBe(body.cursor.nextCursor !== null);
      seen.push(...body.data.map((d: { id: string }) => d.id));
      cursor = body.cursor.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it('answers an empty list with the cursor block', async () => {
    await build();
    expect((await call('GET', '/api/deliveries')).json()).toMatchObject({ success: true, data: [], cursor: { nextCursor: null, hasMore: false, limit: 50 } });
  });

  it.each([
    ['limit=0', 'BAD_REQUEST'],
    ['limit=101', 'BAD_REQUEST'],
    ['limit=abc', 'BAD_REQUEST'],
    ['limit=5&limit=6', 'BAD_REQUEST'],
    ['page=2', 'BAD_REQUEST'],
    ['status=rejected', 'BAD_REQUEST'],
    ['cursor=', 'INVALID_CURSOR'],
    ['cursor=abc', 'INVALID_CURSOR'],
    ['cursor=ZGVsaXZlcmllczo1.AAAAAAAAAAAAAAAAAAAAAA', 'INVALID_CURSOR'],
  ])('?%s → 400 %s', async (q, code) => {
    await build();
    const res = await call('GET', `/api/deliveries?${q}`);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code, error: expect.any(String), timestamp: expect.any(String) });
  });

  it('refuses a tampered cursor and one from another list', async () => {
    await build();
    for (let i = 0; i < 3; i++) await receive(store, hub);
    const first = (await call('GET', '/api/deliveries?limit=1')).json();
    const cursor: string = first.cursor.nextCursor;
    const [payload, mac] = cursor.split('.');
    const forged = `${Buffer.from('deliveries:999').toString('base64url')}.${mac}`;
    expect((await call('GET', `/api/deliveries?cursor=${forged}`)).json().code).toBe('INVALID_CURSOR');
    expect((await call('GET', `/api/deliveries?cursor=${payload}.${mac!.slice(1)}A`)).json().code).toBe('INVALID_CURSOR');
    expect((await call('GET', `/api/attempts?cursor=${cursor}`)).json().code).toBe('INVALID_CURSOR');
    expect((await call('GET', `/api/deliveries?cursor=${cursor}`)).status).toBe(200);
  });

  it('filters by trigger, duplicates and text (the body too)', async () => {
    await build();
    await receive(store, hub, { id: 'a1', trigger: 'vendor.rating_dropped', rawBody: envelopeBody('a1', 'vendor.rating_dropped', { vendorId: 'needle-42' }) });
    await receive(store, hub, { id: 'b2' });
    await receive(store, hub, { id: 'b2' }, { outcome: 'duplicate', attemptHeader: 2 });
    const ids = async (q: string) => (await call('GET', `/api/deliveries?${q}`)).json().data.map((d: { id: string }) => d.id);
    expect(await ids('trigger=vendor.rating_dropped')).toEqual(['a1']);
    expect(await ids('status=duplicate')).toEqual(['b2']);
    expect(await ids('status=accepted')).toEqual(['b2', 'a1']);
    expect(await ids('text=needle-42')).toEqual(['a1']);
  });

  it('gives each item its secret hint, latest attempt and last relay try', async () => {
    await build({ store: withRelayTries(() => [{ at: 1, ok: false, status: 500, latencyMs: 3, replay: false }, { at: 2, ok: true, status: 204, latencyMs: 4, replay: false }], store) });
    await receive(store, hub, { id: 'x1' });
    await receive(store, hub, { id: 'x1' }, { outcome: 'duplicate', attemptHeader: 2 });
    const [item] = (await call('GET', '/api/deliveries')).json().data;
    expect(item).toMatchObject({
      id: 'x1',
      duplicateCount: 1,
      secretHint: cleanStatus().secretHints[0],
      latestAttempt: { outcome: 'duplicate', attemptHeader: 2 },
      relay: { ok: true, status: 204 },
    });
    expect(item).not.toHaveProperty('rawBody');
    expect(item).not.toHaveProperty('headers');
  });

  it('tallies each item\'s arrivals by outcome, versioned by the seq of the newest one counted (issue 13, items 10 and 12)', async () => {
    await build();
    for (let n = 1; n <= 5; n++) await refuse(store, hub, { deliveryId: 'f1', outcome: 'faulted', status: 503, reason: 'rule r1: 503', attemptHeader: n });
    await receive(store, hub, { id: 'f1' }, { attemptHeader: 6 });
    await receive(store, hub, { id: 'f1' }, { outcome: 'duplicate', attemptHeader: 6 });
    const [item] = (await call('GET', '/api/deliveries')).json().data;
    expect(item.attempts).toEqual({
      throughSeq: item.latestAttempt.seq,
      total: 7,
      truncated: false,
      byOutcome: { accepted: 1, duplicate: 1, rejected: 0, faulted: 5, unavailable: 0 },
    });
  });
});

describe('GET /api/attempts', () => {
  it('filters by outcome and pages with hasMore', async () => {
    await build();
    await receive(store, hub, { id: 'ok1' });
    for (let i = 0; i < 3; i++) await refuse(store, hub, { deliveryId: `bad${i}`, reason: 'timestamp_too_old' });
    const first = (await call('GET', '/api/attempts?outcome=rejected,faulted&limit=2')).json();
    expect(first.data.map((a: { deliveryId: string }) => a.deliveryId)).toEqual(['bad2', 'bad1']);
    expect(first.cursor).toMatchObject({ hasMore: true, limit: 2 });
    const second = (await call('GET', `/api/attempts?outcome=rejected,faulted&limit=2&cursor=${first.cursor.nextCursor}`)).json();
    expect(second.data.map((a: { deliveryId: string }) => a.deliveryId)).toEqual(['bad0']);
    expect(second.cursor).toEqual({ nextCursor: null, hasMore: false, limit: 2 });
    expect((await call('GET', '/api/attempts?outcome=nope')).status).toBe(400);
  });
});

describe('GET /api/deliveries/:id', () => {
  it('answers headers, body (text, exact bytes, encoding flags), signature and attempts', async () => {
    await build();
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"enc1","x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const d = await receive(store, hub, { id: 'enc1', rawBody: raw, rawHeaders: ['Content-Type', 'application/json', 'X-Weird', 'a\u00ff'] });
    await receive(store, hub, { id: 'enc1' }, { outcome: 'duplicate', attemptHeader: 2 });
    const res = await call('GET', '/api/deliveries/enc1');
    expect(res.status).toBe(200);
    const data = res.json().data;
    expect(data.headers).toEqual([['Content-Type', 'application/json'], ['X-Weird', 'a\u00ff']]);
    expect(data.body).toMatchObject({ bytes: raw.length, bom: true, invalidUtf8: true, inline: true });
    expect(data.body.text.startsWith('{"id":"enc1"')).toBe(true);
    expect(data.body.text).toContain('\uFFFD');
    expect(Buffer.from(data.body.base64, 'base64').equals(raw)).toBe(true);
    expect(data.signature).toEqual({ state: 'valid', secretHint: cleanStatus().secretHints[0], secretIndex: 0, timestamp: d.signatureTimestamp, skewSeconds: d.receivedAt / 1000 - d.signatureTimestamp!, toleranceSeconds: 300 });
    expect(data.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['accepted', 'duplicate']);
    // No relay try yet (the store's answer: null only when it cannot be read), no conformance adapter.
    expect(data).toMatchObject({ relay: [], relayJobs: [], conformance: null, attemptsTruncated: false });
  });

  it('includes relay history and the conformance verdict from the adapters; a failing adapter gives null', async () => {
    await build({
      store: withRelayTries(() => [{ at: 5, ok: true, status: 200, latencyMs: 12, replay: false, target: 'http://u:p@127.0.0.1:3000/h' }], store),
      conformance: async () => ({ status: 'pass', rules: [] }),
    });
    await receive(store, hub, { id: 'r1' });
    const data = (await call('GET', '/api/deliveries/r1')).json().data;
    expect(data.relay).toEqual([{ at: 5, ok: true, status: 200, latencyMs: 12, replay: false, target: 'http://[redacted]@127.0.0.1:3000/h' }]);
    expect(data.conformance).toEqual({ status: 'pass', rules: [] });

    await app.close();
    await build({ conformance: async () => Promise.reject(new Error('boom')) });
    expect((await call('GET', '/api/deliveries/r1')).json().data.conformance).toBeNull();
  });

  it('sends the answers of the newest 20 relay tries only: replays are unlimited; each older try says its answer was left out', async () => {
    // 15 retries, then 35 replays, each answered with 10 header lines and 4 KiB of body.
    const headers = Array.from({ length: 10 }, (_, n) => [`X-Debug-${n}`, 'v'.repeat(200)] as [string, string]);
    const answered = (i: number) => ({ headers, headerLines: 10, body: Buffer.alloc(4096, 0x61 + (i % 26)), bodyBytes: 4096, complete: true });
    await build({
      store: withRelayTries((_id, options) =>
        Array.from({ length: 50 }, (_, i) => ({ at: i, ok: false, status: 500, latencyMs: 1, replay: i >= 15, error: 'responded 500', ...(options?.withAnswers ? { answer: answered(i) } : {}) })), store),
    });
    await receive(store, hub, { id: 'many' });
    const res = await call('GET', '/api/deliveries/many');
    expect(res.status).toBe(200);
    const relay = res.json().data.relay as Array<{ at: number; answer: { body: { text: string } } | null; answerLeftOut?: boolean }>;
    expect(relay.map((r) => r.at)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(relay.filter((r) => r.answer !== null).map((r) => r.at)).toEqual(Array.from({ length: 20 }, (_, i) => 30 + i));
    expect(relay[49]!.answer!.body.text).toBe('x'.repeat(4096));
    expect(relay.filter((r) => r.answerLeftOut === true).map((r) => r.at)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(relay.slice(30).some((r) => 'answerLeftOut' in r)).toBe(false);
  });

  it('finds ids with slashes and answers 404 in the error envelope for unknown ids', async () => {
    await build();
    await receive(store, hub, { id: 'a/b?c' });
    expect((await call('GET', `/api/deliveries/${encodeURIComponent('a/b?c')}`)).json().data.delivery.id).toBe('a/b?c');
    const res = await call('GET', '/api/deliveries/nope');
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ success: false, error: expect.any(String), code: 'NOT_FOUND', timestamp: '2026-11-21T12:00:00.000Z' });
  });
});

describe('GET /api/deliveries/:id/raw', () => {
  it('downloads the exact bytes as an attachment', async () => {
    await build();
    const raw = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff, 0x7d]);
    await receive(store, hub, { id: 'evt/"x"', rawBody: raw });
    const res = await call('GET', `/api/deliveries/${encodeURIComponent('evt/"x"')}/raw`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe('attachment; filename="evt__x_.body"');
    expect(res.raw.equals(raw)).toBe(true);
  });
});

describe('POST /api/deliveries/:id/replay', () => {
  it('is 501 without a replay adapter', async () => {
    await build();
    await receive(store, hub, { id: 'p1' });
    expect((await call('POST', '/api/deliveries/p1/replay', {})).json()).toMatchObject({ code: 'NOT_IMPLEMENTED' });
  });

  it('replays to the configured target or a loopback URL, and refuses any other', async () => {
    const replay = vi.fn(async () => ({ ok: true, status: 204 }));
    await build({ replay });
    await receive(store, hub, { id: 'p1' });
    expect((await call('POST', '/api/deliveries/p1/replay', {})).json().data).toEqual({ ok: true, status: 204, target: 'http://127.0.0.1:3000/hooks' });
    expect((await call('POST', '/api/deliveries/p1/replay', { to: 'http://localhost:9999/x' })).json().data.target).toBe('http://localhost:9999/x');
    expect(replay.mock.calls).toEqual([['p1', null], ['p1', 'http://localhost:9999/x']]);

    for (const to of ['https://evil.example/', 'http://169.254.169.254/latest', 42, 'file:///etc/passwd']) {
      const res = await call('POST', '/api/deliveries/p1/replay', { to });
      expect(res.status).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
    }
    expect((await call('POST', '/api/deliveries/p1/replay', [1])).status).toBe(400);
    expect((await call('POST', '/api/deliveries/nope/replay', {})).status).toBe(404);
    expect(replay).toHaveBeenCalledTimes(2);
  });

  it('answers 502 when the replay cannot be attempted, and reports a failed hand-off as data', async () => {
    await build({ replay: async (id) => (id === 'boom' ? Promise.reject(new Error('x')) : { ok: false, status: 500, error: 'target answered 500' }) });
    await receive(store, hub, { id: 'boom' });
    await receive(store, hub, { id: 'fail' });
    expect((await call('POST', '/api/deliveries/boom/replay', {})).json()).toMatchObject({ code: 'REPLAY_FAILED' });
    expect((await call('POST', '/api/deliveries/fail/replay', {})).json().data).toMatchObject({ ok: false, status: 500, error: 'target answered 500' });
  });
});

describe('POST /api/deliveries/:id/retry (issue 36, item 10)', () => {
  /** A stored delivery whose relay job gave up after one failed try. */
  async function deadJob(id: string) {
    await receive(store, hub, { id });
    const seq = (await store.getDelivery(id))!.seq;
    await store.recordRelay({ deliverySeq: seq, startedAt: 1, finishedAt: 2, status: 503, error: 'responded 503; gave up after 1 tries', replay: false, target: 'http://127.0.0.1:3000/hooks', try: 1, next: { state: 'dead' } });
  }

  it('puts a dead job back in the queue, as `hookrelay events retry` does; the detail says the job is dead until then', async () => {
    store = createMemoryStore({ outbox: true });
    await build();
    await deadJob('dead1');
    const deadView = { job: 1, state: 'dead', tries: 1, nextAt: null, target: null, lastResponseStatus: 503, lastStatus: 503, lastError: 'responded 503; gave up after 1 tries' };
    const before = (await call('GET', '/api/deliveries/dead1')).json().data;
    expect(before.relayJobs).toEqual([deadView]);
    // The first job, as clients written before fan-out read it.
    expect(before.relayJob).toEqual(deadView);

    const res = await call('POST', '/api/deliveries/dead1/retry', {});
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: { id: 'dead1', requeued: true, requeuedTargets: [null] } });
    expect((await store.relayHistory('dead1')).jobs).toMatchObject([{ state: 'pending', nextAt: Date.parse('2026-11-21T12:00:00Z') }]);
    expect((await call('GET', '/api/deliveries/dead1')).json().data.relayJobs).toMatchObject([{ state: 'pending', tries: 1 }]);
    // Once queued it is not queued twice.
    const again = await call('POST', '/api/deliveries/dead1/retry');
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ success: false, code: 'CONFLICT', error: expect.stringContaining('still queued') });
  });

  it('refuses a job that is not dead, a delivery without a job, an unknown id and a body that is not an object', async () => {
    store = createMemoryStore({ outbox: true });
    await build();
    await receive(store, hub, { id: 'done1' });
    const seq = (await store.getDelivery('done1'))!.seq;
    await store.recordRelay({ deliverySeq: seq, startedAt: 1, finishedAt: 2, status: 204, error: null, replay: false, target: 'http://127.0.0.1:3000/hooks', try: 1, next: { state: 'done' } });
    const done = await call('POST', '/api/deliveries/done1/retry', {});
    expect(done.status).toBe(409);
    expect(done.json().error).toContain('already handed on');
    expect((await call('POST', '/api/deliveries/nope/retry', {})).status).toBe(404);
    expect((await call('POST', '/api/deliveries/done1/retry', [1])).status).toBe(400);
    expect((await store.relayHistory('done1')).jobs.map((j) => j.state)).toEqual(['done']);

    await app.close();
    store = createMemoryStore();
    await build();
    await receive(store, hub, { id: 'nojob' });
    expect((await call('GET', '/api/deliveries/nojob')).json().data).toMatchObject({ relayJobs: [], relayJob: null });
    const none = await call('POST', '/api/deliveries/nojob/retry', {});
    expect(none.status).toBe(409);
    expect(none.json().error).toContain('no relay job');
  });

  it('is a state-changing request: a foreign Origin is refused and the job stays dead', async () => {
    store = createMemoryStore({ outbox: true });
    await build();
    await deadJob('dead2');
    const res = await call('POST', '/api/deliveries/dead2/retry', {}, { origin: 'https://attacker.example' });
    expect(res.status).toBe(403);
    expect((await store.relayHistory('dead2')).jobs.map((j) => j.state)).toEqual(['dead']);
  });

  describe('a delivery handed to several targets (fan-out)', () => {
    const APP = 'http://127.0.0.1:3000/hooks';
    const AUDIT = 'http://audit:pw-audit-77@127.0.0.1:3001/audit';
    const SHOWN_AUDIT = 'http://[redacted]@127.0.0.1:3001/audit';

    /** A delivery with a job for APP (done) and one for AUDIT (dead after one try that leaked nothing but its status). */
    async function fanOut(id: string) {
      store = createMemoryStore({ outbox: { to: APP, routes: [{ glob: '*', urls: [AUDIT], also: true }] } });
      await build();
      await receive(store, hub, { id });
      const seq = (await store.getDelivery(id))!.seq;
      await store.recordRelay({ deliverySeq: seq, startedAt: 1, finishedAt: 2, status: 204, error: null, replay: false, target: APP, try: 1, next: { state: 'done' } });
      await store.recordRelay({ deliverySeq: seq, startedAt: 3, finishedAt: 4, status: 500, error: '<img src=x onerror=alert(1)>', replay: false, target: SHOWN_AUDIT, jobTarget: AUDIT, try: 1, next: { state: 'dead' } });
    }

    it('lists one job per target in the list and the detail, their targets without credentials', async () => {
      await fanOut('fan1');
      const jobs = [
        { job: 1, state: 'done', tries: 1, nextAt: null, target: APP, lastResponseStatus: 204, lastStatus: 204, lastError: null },
        { job: 2, state: 'dead', tries: 1, nextAt: null, target: SHOWN_AUDIT, lastResponseStatus: 500, lastStatus: 500, lastError: '<img src=x onerror=alert(1)>' },
      ];
      const detail = (await call('GET', '/api/deliveries/fan1')).json().data;
      expect(detail.relayJobs).toEqual(jobs);
      expect(detail.relayJob).toEqual(jobs[0]);
      const [item] = (await call('GET', '/api/deliveries')).json().data;
      expect(item.relayJobs).toEqual(jobs);
      expect(JSON.stringify(detail) + JSON.stringify(item)).not.toContain('pw-audit-77');
    });

    it('retries one target (named as queued or as shown), refuses a target the delivery has not, and says per target why not', async () => {
      await fanOut('fan2');
      const unknown = await call('POST', '/api/deliveries/fan2/retry', { target: 'http://127.0.0.1:9/elsewhere' });
      expect(unknown.status).toBe(400);
      expect(unknown.json().error).toContain(SHOWN_AUDIT);
      expect(unknown.json().error).not.toContain('pw-audit-77');
      expect((await call('POST', '/api/deliveries/fan2/retry', { target: 42 })).status).toBe(400);

      const done = await call('POST', '/api/deliveries/fan2/retry', { target: APP });
      expect(done.status).toBe(409);
      expect(done.json().error).toMatch(/has no dead relay job for http:\/\/127\.0\.0\.1:3000\/hooks; .*By target: http:\/\/127\.0\.0\.1:3000\/hooks was already handed on; http:\/\/\[redacted\]@127\.0\.0\.1:3001\/audit is dead/);

      const res = await call('POST', '/api/deliveries/fan2/retry', { target: SHOWN_AUDIT });
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ id: 'fan2', requeued: true, requeuedTargets: [SHOWN_AUDIT] });
      expect((await store.relayHistory('fan2')).jobs.map((j) => [j.target, j.state])).toEqual([[APP, 'done'], [AUDIT, 'pending']]);

      const again = await call('POST', '/api/deliveries/fan2/retry', {});
      expect(again.status).toBe(409);
      expect(again.json().error).toContain(`${SHOWN_AUDIT} is still queued for the relay`);
    });

    it('retries by the job\'s number when two targets show alike once their secrets are hidden', async () => {
      const A = 'http://127.0.0.1:3001/hook?token=TENANT-A';
      const B = 'http://127.0.0.1:3001/hook?token=TENANT-B';
      store = createMemoryStore({ outbox: { to: A, routes: [{ glob: '*', urls: [B], also: true }] } });
      await build();
      await receive(store, hub, { id: 'twins' });
      const seq = (await store.getDelivery('twins'))!.seq;
      const shown = 'http://127.0.0.1:3001/hook?token=[redacted]';
      await store.recordRelay({ deliverySeq: seq, startedAt: 1, finishedAt: 2, status: 204, error: null, replay: false, target: shown, jobTarget: A, try: 1, next: { state: 'done' } });
      await store.recordRelay({ deliverySeq: seq, startedAt: 3, finishedAt: 4, status: 500, error: 'no', replay: false, target: shown, jobTarget: B, try: 1, next: { state: 'dead' } });
      const listed = (await call('GET', '/api/deliveries/twins')).json().data.relayJobs as Array<{ job: number; target: string; state: string }>;
      expect(listed.map((j) => [j.job, j.target, j.state])).toEqual([[1, shown, 'done'], [2, shown, 'dead']]);
      // By the shown URL it cannot tell them apart; by number it can.
      expect((await call('POST', '/api/deliveries/twins/retry', { target: shown })).status).toBe(400);
      for (const bad of [0, 3, 1.5, '2']) expect((await call('POST', '/api/deliveries/twins/retry', { job: bad })).status).toBe(400);
      expect((await call('POST', '/api/deliveries/twins/retry', { job: 2, target: shown })).status).toBe(400);
      const res = await call('POST', '/api/deliveries/twins/retry', { job: 2 });
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ id: 'twins', requeued: true, requeuedTargets: [shown] });
      expect((await store.relayHistory('twins')).jobs.map((j) => [j.target, j.state])).toEqual([[A, 'done'], [B, 'pending']]);
      expect(JSON.stringify(listed) + JSON.stringify(res.json())).not.toMatch(/TENANT-[AB]/);
    });
  });
});

describe('DELETE /api/deliveries/:id', () => {
  it('is 501 without a remove adapter, 404 for unknown ids, and deletes through the adapter', async () => {
    await build();
    expect((await call('DELETE', '/api/deliveries/x')).status).toBe(501);
    await app.close();
    const remove = vi.fn(async (id: string) => id === 'x');
    await build({ remove });
    expect((await call('DELETE', '/api/deliveries/x')).json()).toMatchObject({ success: true, data: { id: 'x', deleted: true } });
    expect((await call('DELETE', '/api/deliveries/y')).status).toBe(404);
  });
});

describe('/api/faults', () => {
  it('is 501 without a faults adapter', async () => {
    await build();
    expect((await call('GET', '/api/faults')).json()).toMatchObject({ success: false, code: 'NOT_IMPLEMENTED' });
  });

  it('lists, adds (line and JSON forms), validates, replaces, removes and clears', async () => {
    const faults = createFakeFaults();
    await build({ faults });
    const added = await call('POST', '/api/faults', { line: 'attempt=1 503' });
    expect(added.status).toBe(201);
    expect(added.json().data).toEqual({ id: 'r1', line: 'attempt=1 503' });
    expect((await call('POST', '/api/faults', { answer: { kind: 'reset' } })).status).toBe(201);
    expect((await call('POST', '/api/faults', 'hang')).status).toBe(201);
    expect((await call('GET', '/api/faults')).json().data).toHaveLength(3);

    const bad = await call('POST', '/api/faults', { line: 'attempt=1 <503>' });
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR', details: { column: 11 } });
    expect(faults.rules).toHaveLength(3);

    expect((await call('POST', '/api/faults/validate', { line: 'x' })).json().data).toEqual({ valid: false, message: expect.any(String), column: 2 });
    expect((await call('POST', '/api/faults/validate', { line: '410' })).json().data).toMatchObject({ valid: true });
    expect(faults.rules).toHaveLength(3);

    expect((await call('PUT', '/api/faults/r1', { line: '429' })).json().data).toEqual({ id: 'r1', line: '429' });
    expect((await call('PUT', '/api/faults/zz', { line: '429' })).status).toBe(404);
    expect((await call('DELETE', '/api/faults/r1')).status).toBe(200);
    expect((await call('DELETE', '/api/faults/r1')).status).toBe(404);
    expect((await call('DELETE', '/api/faults')).json().data).toEqual({ cleared: true });
    expect(faults.rules).toHaveLength(0);
  });

  it('moves a rule (POST /api/faults/:id/move {position}): the order decides which rule answers; a shadowed rule is marked until it moves up', async () => {
    await build({ faults: createFaultRules({ seed: 1 }) });
    await call('POST', '/api/faults', { line: '503 trigger=vendor.*' });
    await call('POST', '/api/faults', { line: '500 trigger=vendor.rating_dropped' });
    expect((await call('GET', '/api/faults')).json().data.map((r: { id: string; shadowedBy?: string }) => [r.id, r.shadowedBy ?? null])).toEqual([['r1', null], ['r2', 'r1']]);
    expect((await call('POST', '/api/faults/r2/move', { position: 1 })).status).toBe(200);
    expect((await call('GET', '/api/faults')).json().data.map((r: { id: string; shadowedBy?: string }) => [r.id, r.shadowedBy ?? null])).toEqual([['r2', null], ['r1', null]]);
    expect((await call('POST', '/api/faults/r2/move', { position: 3 })).json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect((await call('POST', '/api/faults/r2/move', { position: '1' })).status).toBe(400);
    expect((await call('POST', '/api/faults/zz/move', { position: 1 })).status).toBe(404);
  });

  it('says which name a mistyped key meant, as the CLI does for its own names (issue 36, item 24)', async () => {
    await build({ faults: createFaultRules({ seed: 1 }) });
    const validated = (await call('POST', '/api/faults/validate', { line: '503 atempt=1' })).json().data;
    expect(validated).toMatchObject({ valid: false, column: 5 });
    expect(validated.message).toMatch(/^unknown key 'atempt' \(did you mean 'attempt'\?\): known keys are /);
    const added = await call('POST', '/api/faults', { line: '503 atempt=1' });
    expect(added.status).toBe(422);
    expect(added.json().error).toContain("did you mean 'attempt'?");
    expect((await call('POST', '/api/faults', { answer: { kind: 'status', status: 503 }, limt: { times: 1 } })).json().error).toMatch(/^limt is not allowed, did you mean 'limit'\? \(allowed: /);
    // Nothing close: no guess.
    expect((await call('POST', '/api/faults', { line: '503 zzzzzz=1' })).json().error).not.toContain('did you mean');
  });

  it.each([
    ['text/plain', 'attempt=1 503', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/x-www-form-urlencoded', 'line=503', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/json', '{"line":', 400, 'BAD_REQUEST'],
    ['application/json', '{"__proto__":{"x":1},"answer":{}}', 400, 'BAD_REQUEST'],
    ['application/json', '[1,2]', 400, 'BAD_REQUEST'],
    ['application/json', '', 400, 'BAD_REQUEST'],
  ])('takes JSON only: %s %j → %i %s', async (type, payload, status, code) => {
    const faults = createFakeFaults();
    await build({ faults });
    const res = await app.inject({ method: 'POST', url: '/api/faults', headers: { host: HOST, origin: ORIGIN, 'content-type': type }, payload });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ success: false, code });
    expect(faults.rules).toHaveLength(0);
  });

  it('refuses bodies over 64 KiB with 413', async () => {
    await build({ faults: createFakeFaults() });
    const res = await call('POST', '/api/faults', { line: 'x'.repeat(70_000) });
    expect(res.status).toBe(413);
    expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('the page files', () => {
  it('answers 503 with the build command when web/dist is missing, and 404 JSON for unknown API paths', async () => {
    await build();
    const page = await app.inject({ method: 'GET', url: '/', headers: { host: HOST } });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npx vite build --config web/vite.config.ts');
    const api = await app.inject({ method: 'GET', url: '/api/nope', headers: { host: HOST } });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('serves the built files from memory with their types, ETags, and nothing outside them', async () => {
    const dir = tempDir();
    try {
      mkdirSync(join(dir.dir, 'assets'));
      writeFileSync(join(dir.dir, 'index.html'), '<!doctype html><p>console</p>');
      writeFileSync(join(dir.dir, 'assets', 'main-abc.js'), 'console.log(1)');
      await build({ webRoot: dir.dir });
      const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers: { host: HOST, ...headers } });
      const index = await get('/');
      expect(index.statusCode).toBe(200);
      expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(index.headers['cache-control']).toBe('no-cache');
      expect((await get('/index.html?token=abc')).body).toBe('<!doctype html><p>console</p>');
      const js = await get('/assets/main-abc.js');
      expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(js.headers['cache-control']).toContain('immutable');
      expect((await get('/assets/main-abc.js', { 'if-none-match': String(js.headers.etag) })).statusCode).toBe(304);
      for (const url of ['/../package.json', '/assets/../../package.json', '/%2e%2e/package.json', '/assets', '/nope.js']) {
        expect((await get(url)).statusCode, url).toBe(404);
      }
    } finally {
      dir.remove();
    }
  });
});

describe('configuration', () => {
  it.each(['0.0.0.0', '::', '192.168.1.20', 'example.lan'])('refuses to serve on %s without a token', async (listenHost) => {
    await expect(createConsoleServer({ store, hub, status: cleanStatus, listenHost, listenPort: 4001, token: null, webRoot: '/x' })).rejects.toBeInstanceOf(ConsoleConfigError);
  });

  it('refuses a token shorter than 8 characters', async () => {
    await expect(createConsoleServer({ store, hub, status: cleanStatus, listenHost: '0.0.0.0', listenPort: 4001, token: 'short', webRoot: '/x' })).rejects.toBeInstanceOf(ConsoleConfigError);
  });
});
