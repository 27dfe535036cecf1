/** /api/replay-jobs: many deliveries replayed as one journaled job, chosen by id or by the list's filter; bad bodies refused. */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleServer } from '../../src/console/console-server.js';
import { createBulkReplays, type BulkReplays } from '../../src/relay/bulk-replays.js';
import { createEventHub, type EventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { startTarget, type Target } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';
import { cleanStatus } from './helpers/console-fixture.js';

let store: DeliveryStore;
let hub: EventHub;
let app: FastifyInstance;
let target: Target;
let bulk: BulkReplays;
let dataDir: string;
let removeDir: () => void;

async function call(method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await app.inject({
    method,
    url,
    headers: { host: 'localhost:4001', ...(method === 'GET' ? {} : { origin: 'http://localhost:4001', 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, json: () => res.json() as { data: Record<string, unknown>; error?: string; code?: string } };
}

beforeEach(async () => {
  store = createMemoryStore();
  hub = createEventHub();
  target = await startTarget();
  ({ dir: dataDir, remove: removeDir } = tempDir());
  bulk = createBulkReplays({ dataDir, store, hub, clock: Date.now, settings: { secret: 'whsec_console_bulk', timeoutMs: 5000, headers: [], targets: { to: target.url, routes: [] } } });
  app = await createConsoleServer({
    store,
    hub,
    status: () => ({ ...cleanStatus(), forwardTo: target.url }),
    listenHost: '127.0.0.1',
    listenPort: 4001,
    token: null,
    webRoot: '/nonexistent-web-root',
    bulkReplays: bulk,
  });
  for (let i = 0; i < 12; i++) {
    const d = makeDelivery({ id: `evt-${i}`, trigger: i % 2 === 0 ? 'vendor.rating_dropped' : 'trustcenter.access_requested' });
    await store.accept(d, attemptFor(d));
  }
});
afterEach(async () => {
  await bulk.close();
  await app.close();
  await target.close();
  removeDir();
});

// Four at a time: they arrive in about the order sent, not exactly.
const ids = () => target.received.map((r) => String(r.headers['x-service-delivery'])).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));

describe('/api/replay-jobs', () => {
  it('replays the chosen ids oldest first, marked with the job, and announces its progress on the hub', async () => {
    const announced: string[] = [];
    hub.on('replayJob', (j) => announced.push(`${j.state} ${j.done}/${j.total}`));
    const started = await call('POST', '/api/replay-jobs', { ids: ['evt-5', 'evt-1', 'nope', 'evt-3'] });
    expect(started.status).toBe(202);
    const job = started.json().data;
    expect(job).toMatchObject({ total: 3, state: 'running', selection: '3 chosen in the console' });
    await until(() => announced.includes('finished 3/3'), 'the job to finish');
    expect(ids()).toEqual(['evt-1', 'evt-3', 'evt-5']);
    expect(new Set(target.received.map((r) => r.headers['x-hookrelay-replay-job']))).toEqual(new Set([job.id]));
    const list = (await call('GET', '/api/replay-jobs')).json().data as unknown as Array<Record<string, unknown>>;
    expect(list).toEqual([expect.objectContaining({ id: job.id, state: 'finished', done: 3, ok: 3, failed: 0 })]);
  });

  it("replays everything the list's filter matches, not only a page", async () => {
    const started = await call('POST', '/api/replay-jobs', { filter: { trigger: 'vendor.rating_dropped' } });
    expect(started.status).toBe(202);
    expect(started.json().data).toMatchObject({ total: 6 });
    await until(() => target.received.length === 6, 'six copies');
    expect(ids()).toEqual(['evt-0', 'evt-2', 'evt-4', 'evt-6', 'evt-8', 'evt-10']);
  });

  it('stops a running job, which resumes where it stopped', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await target.close();
    // An app that holds every answer until released: the job stops with copies in flight.
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const slow = createServer((req, res) => {
      seen.push(String(req.headers['x-service-delivery']));
      req.resume();
      void gate.then(() => res.end('ok'));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as { port: number }).port}/hook`;
    const job = (await call('POST', '/api/replay-jobs', { filter: {}, to: url })).json().data;
    await until(() => seen.length === 4, 'four copies in flight');
    expect((await call('POST', `/api/replay-jobs/${String(job.id)}/stop`, {})).status).toBe(200);
    release();
    await until(() => (bulk.list()[0]?.state ?? '') === 'stopped', 'the job to stop');
    expect(bulk.list()[0]).toMatchObject({ done: 4, total: 12 });
    expect((await call('POST', `/api/replay-jobs/${String(job.id)}/resume`, {})).status).toBe(200);
    await until(() => (bulk.list()[0]?.state ?? '') === 'finished', 'the job to finish');
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);
    slow.close();
    target = await startTarget();
  });

  it('refuses bad bodies, naming the cause, and starts nothing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /must be a JSON object/],
      [{}, /exactly one of "ids"/],
      [{ ids: ['a'], filter: {} }, /exactly one of "ids"/],
      [{ ids: [] }, /"ids" must be a list of 1 to 1000/],
      [{ ids: [1, 2] }, /"ids" must be a list/],
      [{ ids: ['evt-1'], to: 'http://example.com/hook' }, /loopback/],
      [{ filter: { trigger: 'x'.repeat(300) } }, /filter.trigger/],
      [{ filter: { status: 'rejected' } }, /accepted or duplicate/],
      [{ filter: [] }, /"filter" must be an object/],
      [{ ids: ['evt-1'], sendEmail: true }, /unknown field "sendEmail"/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/api/replay-jobs', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatch(message);
    }
    expect((await call('POST', '/api/replay-jobs', { ids: ['missing'] })).status).toBe(404);
    expect((await call('POST', '/api/replay-jobs', { filter: { trigger: 'none' } })).status).toBe(404);
    expect((await call('POST', '/api/replay-jobs/rj_000000000000/stop', {})).status).toBe(404);
    expect((await call('POST', '/api/replay-jobs/..%2F..%2Fetc/resume', {})).status).toBe(404);
    expect(bulk.list()).toEqual([]);
    expect(target.received).toHaveLength(0);
  });
});
