/**
 * The console reads a delivery's relay history (its tries and its jobs: one `relayHistory` call
 * gives both) once a listed row and once a detail, as the composition root wires it. On PostgreSQL
 * each read is a query: a second one a row was up to 50 more a page.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startConsole } from '../../src/app/start-console.js';
import { createFaultRules } from '../../src/faults/rules-controller.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

const APP = 'http://127.0.0.1:3000/hooks';
const AUDIT = 'http://127.0.0.1:3001/audit';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `store` with its `relayHistory` calls counted by delivery id. */
function countingHistory(store: DeliveryStore) {
  const calls = new Map<string, number>();
  const counted: DeliveryStore = Object.assign(Object.create(store) as DeliveryStore, {
    relayHistory: (...args: Parameters<DeliveryStore['relayHistory']>) => {
      calls.set(args[0], (calls.get(args[0]) ?? 0) + 1);
      return store.relayHistory(...args);
    },
  });
  return { store: counted, calls };
}

/** Three deliveries fanned out to two targets, each with a try recorded; a console as the composition root starts it. */
async function consoleOverCountedStore() {
  const memory = createMemoryStore({ outbox: { to: APP, routes: [{ glob: '*', urls: [AUDIT], also: true }] } });
  const ids = ['evt-1', 'evt-2', 'evt-3'];
  for (const [n, id] of ids.entries()) {
    const d = makeDelivery({ id, receivedAt: 1_000 + n });
    const { deliverySeq } = await memory.accept(d, attemptFor(d));
    await memory.recordRelay({ deliverySeq, startedAt: 2_000, finishedAt: 2_010, status: 204, error: null, replay: false, target: APP, try: 1, next: { state: 'done' } });
    await memory.recordRelay({ deliverySeq, startedAt: 2_020, finishedAt: 2_030, status: 500, error: 'responded 500', replay: false, target: AUDIT, try: 1, next: { state: 'dead' } });
  }
  const { store, calls } = countingHistory(memory);
  const hub = createEventHub();
  const started = await startConsole({
    settings: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null },
    store,
    hub,
    faults: createFaultRules({ rules: [], seed: 1, hub }),
    receiverUrl: () => 'http://127.0.0.1:4000/webhooks',
    path: '/webhooks',
    secrets: [],
    skipVerify: true,
    toleranceSeconds: 300,
    forward: null,
    replay: async () => null,
    forget: () => undefined,
    clock: Date.now,
    webRoot: '/nonexistent-web-root',
  });
  cleanups.push(async () => {
    await started.server.close();
    started.metrics.close();
  });
  const { port } = started.server.server.address() as AddressInfo;
  const get = async (path: string) => {
    const res = await started.server.inject({ method: 'GET', url: path, headers: { host: `127.0.0.1:${port}` } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  return { ids, calls, get };
}

describe('the console reads a delivery\'s relay history once', () => {
  it('a listed row: one relayHistory call gives its newest try and its jobs', async () => {
    const { ids, calls, get } = await consoleOverCountedStore();
    const rows = (await get('/api/deliveries')) as Array<{ id: string; relay: { status: number } | null; relayJobs: Array<{ job: number; state: string }> }>;
    expect(rows.map((r) => r.id)).toEqual([...ids].reverse());
    for (const row of rows) {
      expect(row.relay).toMatchObject({ status: 500, target: AUDIT });
      expect(row.relayJobs.map((j) => [j.job, j.state])).toEqual([[1, 'done'], [2, 'dead']]);
    }
    expect(Object.fromEntries(calls)).toEqual({ 'evt-1': 1, 'evt-2': 1, 'evt-3': 1 });
  });

  it('a detail: one relayHistory call gives its tries with their answers and its jobs', async () => {
    const { calls, get } = await consoleOverCountedStore();
    const detail = await get('/api/deliveries/evt-2');
    expect(detail.relay.map((r: { status: number }) => r.status)).toEqual([204, 500]);
    expect(detail.relayJobs.map((j: { state: string }) => j.state)).toEqual(['done', 'dead']);
    expect(Object.fromEntries(calls)).toEqual({ 'evt-2': 1 });
  });
});
