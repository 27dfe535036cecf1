/** The attempt log (store-step.ts): the one place that records an attempt and announces it; the announced record is the stored one. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AttemptInput, NewDelivery } from '../../src/core/records.js';
import { createAttemptLog } from '../../src/ingest/store-step.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError, type AttemptRecord, type DeliveryStore } from '../../src/store/store.js';
import { deferred, NOW_MS } from './step-helpers.js';


function delivery(id: string): NewDelivery {
  return {
    id,
    trigger: 'trustcenter.access_requested',
    apiVersion: '2026-06-01',
    apiVersionKnown: true,
    receivedAt: NOW_MS,
    rawBody: Buffer.from(`{"id":"${id}"}`),
    rawHeaders: ['X-Service-Delivery', id],
    signature: 'valid',
    secretIndex: 0,
    signatureTimestamp: 1_763_719_200,
  };
}

function attempt(id: string, overrides: Partial<AttemptInput> = {}): AttemptInput {
  return {
    deliveryId: id,
    trigger: 'trustcenter.access_requested',
    receivedAt: NOW_MS,
    finishedAt: NOW_MS + 4,
    attemptHeader: 1,
    signatureTimestamp: 1_763_719_200,
    bodySha256: 'ab'.repeat(32),
    bodyBytes: 12,
    outcome: 'accepted',
    status: 200,
    reason: null,
    retryAfter: null,
    ...overrides,
  };
}

let store: DeliveryStore;
let hub: EventHub;
let announced: Array<HubEvents['attempt']>;

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
  announced = [];
  hub.on('attempt', (event) => announced.push(event));
});

/** The newest stored attempt. */
const lastStored = async () => (await store.listAttempts({ limit: 1 }))[0]!;

describe('accept', () => {
  it('stores the delivery and announces the very record it returns, equal to the stored one', async () => {
    const log = createAttemptLog({ store, hub, skipVerify: false });
    const { result, recorded } = await log.accept(delivery('d-1'), attempt('d-1'), 'req-7');
    expect(result).toEqual({ outcome: 'accepted', deliverySeq: 1, attemptSeq: 1 });
    expect(announced).toHaveLength(1);
    expect(announced[0]!.attempt).toBe(recorded);
    expect(announced[0]).toMatchObject({ skipVerify: false, requestId: 'req-7' });
    expect(recorded).toEqual({ ...attempt('d-1'), seq: 1 });
    expect(await lastStored()).toEqual(recorded);
    expect((await store.getDelivery('d-1'))?.rawBody.toString()).toBe('{"id":"d-1"}');
  });

  it('a stored id is recorded and announced as a duplicate, though the caller passed accepted', async () => {
    const log = createAttemptLog({ store, hub, skipVerify: false });
    await log.accept(delivery('d-1'), attempt('d-1'));
    const { result, recorded } = await log.accept(delivery('d-1'), attempt('d-1', { attemptHeader: 2, finishedAt: NOW_MS + 9 }));
    expect(result).toEqual({ outcome: 'duplicate', deliverySeq: 1, attemptSeq: 2 });
    expect(recorded).toMatchObject({ outcome: 'duplicate', attemptHeader: 2, finishedAt: NOW_MS + 9 });
    expect(announced.map((a) => a.attempt.outcome)).toEqual(['accepted', 'duplicate']);
    expect(announced[1]!.attempt).toBe(recorded);
    expect(await lastStored()).toEqual(recorded);
  });

  it('announces only after the commit', async () => {
    const commit = deferred();
    const memory = createMemoryStore();
    store = {
      ...memory,
      accept: async (d, a) => {
        await commit.promise;
        return memory.accept(d, a);
      },
    };
    const log = createAttemptLog({ store, hub, skipVerify: false });
    const pending = log.accept(delivery('d-2'), attempt('d-2'));
    await Promise.resolve();
    expect(announced).toEqual([]);
    commit.resolve();
    await pending;
    expect(announced).toHaveLength(1);
  });

  it('flags every announcement of a --skip-verify receiver', async () => {
    const log = createAttemptLog({ store, hub, skipVerify: true });
    await log.accept(delivery('d-3'), attempt('d-3'));
    await log.record(attempt('d-3b', { outcome: 'rejected', status: 400 }));
    expect(announced.map((a) => a.skipVerify)).toEqual([true, true]);
  });

  it('rejects with the store failure and announces nothing when the store cannot write', async () => {
    const failure = new StoreUnavailableError('SQLITE_FULL: database or disk is full');
    store = { ...createMemoryStore(), accept: async () => Promise.reject(failure) };
    const log = createAttemptLog({ store, hub, skipVerify: false });
    await expect(log.accept(delivery('d-4'), attempt('d-4'))).rejects.toBe(failure);
    expect(announced).toEqual([]);
  });
});

describe('record', () => {
  it('records an attempt that stores no delivery, and announces the same record', async () => {
    const log = createAttemptLog({ store, hub, skipVerify: false });
    const input = attempt('d-5', { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' });
    const recorded = await log.record(input, 'req-9');
    expect(recorded).toEqual({ ...input, seq: 1 });
    expect(announced).toEqual([{ attempt: recorded, skipVerify: false, requestId: 'req-9' }]);
    expect(announced[0]!.attempt).toBe(recorded);
    expect(await lastStored()).toEqual(recorded);
    expect(await store.getDelivery('d-5')).toBeUndefined();
  });

  it('announces only once the record is written', async () => {
    const written = deferred<number>();
    store = { ...createMemoryStore(), recordAttempt: () => written.promise };
    const log = createAttemptLog({ store, hub, skipVerify: false });
    const pending = log.record(attempt('d-6', { outcome: 'faulted', status: 503 }));
    await Promise.resolve();
    expect(announced).toEqual([]);
    written.resolve(41);
    expect(await pending).toMatchObject({ outcome: 'faulted', seq: 41 });
    expect(announced).toHaveLength(1);
  });

  it('a store that cannot write is ignored: the record is still announced and returned', async () => {
    store = { ...createMemoryStore(), recordAttempt: async () => Promise.reject(new StoreUnavailableError('disk I/O error')) };
    const log = createAttemptLog({ store, hub, skipVerify: false });
    const input = attempt('d-7', { outcome: 'unavailable', status: 503, reason: 'STORE_UNAVAILABLE' });
    const recorded = await log.record(input);
    expect(recorded).toEqual({ ...input, seq: 0 });
    expect(announced.map((a) => a.attempt)).toEqual([recorded]);
    expect(announced[0]!.requestId).toBeUndefined();
  });

  it('a subscriber that throws does not fail the record', async () => {
    hub.on('attempt', () => {
      throw new Error('console gone');
    });
    const log = createAttemptLog({ store, hub, skipVerify: false });
    await expect(log.record(attempt('d-8', { outcome: 'rejected', status: 413 }))).resolves.toMatchObject({ status: 413 });
    expect(announced).toHaveLength(1);
  });
});
