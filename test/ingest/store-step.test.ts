/** store-step.ts: store + dedupe, a 2xx only after the commit, a 503 that does not wait on the failed store. */
import { beforeEach, describe, expect, it } from 'vitest';
import { checkEnvelope, type EnvelopeCheck } from '../../src/core/envelope.js';
import type { AttemptInput } from '../../src/core/records.js';
import type { Passthrough, PassthroughResult } from '../../src/handoff/passthrough.js';
import { type Arrival, attemptOf, type Outcome, readFacts, type SignatureCheck } from '../../src/ingest/arrival.js';
import {
  createAttemptLog,
  createStoreStep,
  keptRequest,
  type StoreStepContext,
  type StoreStepOptions,
} from '../../src/ingest/store-step.js';
import { createPassthroughStep } from '../../src/ingest/passthrough-step.js';
import { relayPort } from '../../src/app/start-relay.js';
import type { RelayWorker } from '../../src/relay/relay-worker.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { outboxPortOf } from '../../src/runtime/outbox-port.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError, type DeliveryStore } from '../../src/store/store.js';
import { envelopeBody, signedRequest, T0 } from '../helpers/signed-delivery.js';
import { arrivalOf, deferred, NOW_MS } from './step-helpers.js';

const CLOCK_MS = NOW_MS + 20;

let store: DeliveryStore;
let hub: EventHub;
let attempts: Array<HubEvents['attempt']>;
let deliveries: Array<HubEvents['delivery']>;
let relays: Array<HubEvents['relay']>;

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
  attempts = [];
  deliveries = [];
  relays = [];
  hub.on('attempt', (e) => attempts.push(e));
  hub.on('delivery', (e) => deliveries.push(e));
  hub.on('relay', (e) => relays.push(e));
});

function step(overrides: Partial<StoreStepOptions> = {}) {
  const skipVerify = overrides.skipVerify ?? false;
  return createStoreStep({ log: createAttemptLog({ store, hub, skipVerify }), hub, clock: () => CLOCK_MS, skipVerify, passthrough: null, ...overrides });
}

const VALID: Extract<SignatureCheck, { ok: true }> = { ok: true, timestamp: T0, secretIndex: 1, notes: [] };

/** A verified arrival and the context the pipeline hands the store step. */
function context(options: { id?: string; attempt?: Partial<AttemptInput>; signature?: Extract<SignatureCheck, { ok: true }>; apiVersion?: string; handedOn?: PassthroughResult } = {}): StoreStepContext {
  const body = options.apiVersion ? envelopeBody(options.id ?? 'd-1', undefined, { apiVersion: options.apiVersion }) : undefined;
  const req = signedRequest({ id: options.id ?? 'd-1', ...(body ? { body } : {}) });
  const arrival: Arrival = arrivalOf(req);
  const facts = readFacts(arrival);
  const checked = checkEnvelope(arrival.rawBody, { deliveryId: facts.deliveryId, event: facts.event }) as Extract<EnvelopeCheck, { ok: true }>;
  expect(checked.ok).toBe(true);
  return {
    arrival,
    checked,
    signature: options.signature ?? VALID,
    attempt: { ...attemptOf(facts, { finishedAt: NOW_MS + 5, signatureTimestamp: T0, outcome: 'accepted', status: 200, reason: null, retryAfter: null }), ...options.attempt },
    handedOn: options.handedOn ?? null,
  };
}

const bodyOf = (outcome: Outcome) => {
  expect(outcome.action.kind).toBe('answer');
  return JSON.parse((outcome.action as { body: string }).body);
};

describe('store step: accepted', () => {
  it('answers 200 with the id, stores the delivery as verified, and announces it once', async () => {
    const ctx = context();
    const outcome = await step()(ctx);
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 200 });
    expect(bodyOf(outcome)).toEqual({ success: true, data: { deliveryId: 'd-1', duplicate: false }, timestamp: new Date(CLOCK_MS).toISOString() });
    const recorded = await outcome.recorded;
    expect(recorded).toEqual({ ...ctx.attempt, seq: 1 });
    expect(attempts.map((a) => a.attempt)).toEqual([recorded]);
    const stored = await store.getDelivery('d-1');
    expect(stored).toMatchObject({ seq: 1, signature: 'valid', secretIndex: 1, signatureTimestamp: T0, apiVersionKnown: true, receivedAt: NOW_MS });
    expect(stored!.rawBody.equals(ctx.arrival.rawBody)).toBe(true);
    expect(stored!.headers).toContainEqual(['x-service-delivery', 'd-1']);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.delivery).toMatchObject({
      seq: 1, id: 'd-1', trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01', apiVersionKnown: true,
      signature: 'valid', secretIndex: 1, signatureTimestamp: T0, duplicateCount: 0, bodyBytes: ctx.arrival.rawBody.length,
    });
  });

  it('answers only after the commit', async () => {
    const commit = deferred();
    const memory = store;
    store = {
      ...memory,
      accept: async (d, a) => {
        await commit.promise;
        return memory.accept(d, a);
      },
    };
    let answered = false;
    const pending = step()(context()).then((o) => ((answered = true), o));
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(answered).toBe(false);
    expect(deliveries).toEqual([]);
    commit.resolve();
    expect((await pending).action).toMatchObject({ status: 200 });
  });

  it('marks an unknown apiVersion in the answer, and stores it as unknown', async () => {
    const outcome = await step()(context({ apiVersion: '2099-01-01' }));
    expect(bodyOf(outcome).data).toEqual({ deliveryId: 'd-1', duplicate: false, apiVersionUnknown: '2099-01-01' });
    expect(await store.getDelivery('d-1')).toMatchObject({ apiVersion: '2099-01-01', apiVersionKnown: false });
  });

  it('stores a --skip-verify receiver\'s delivery as skipped', async () => {
    await step({ skipVerify: true })(context({ signature: { ok: true, timestamp: null, secretIndex: null, notes: [] } }));
    expect(await store.getDelivery('d-1')).toMatchObject({ signature: 'skipped', secretIndex: null, signatureTimestamp: null });
    expect(deliveries[0]!.delivery.signature).toBe('skipped');
  });

  it('a bridged verdict decides the stored state, whatever this side\'s --skip-verify', async () => {
    await step({ skipVerify: true })(context({ id: 'd-v', signature: { ...VALID, state: 'valid' } }));
    await step({ skipVerify: false })(context({ id: 'd-s', signature: { ok: true, timestamp: null, secretIndex: null, notes: [], state: 'skipped' } }));
    expect((await store.getDelivery('d-v'))!.signature).toBe('valid');
    expect((await store.getDelivery('d-s'))!.signature).toBe('skipped');
  });
});

describe('store step: duplicate', () => {
  it('answers a stored id 200 as a duplicate, recorded as one, with no second delivery event', async () => {
    const s = step();
    await s(context());
    const again = await s(context({ attempt: { attemptHeader: 2 } }));
    expect(bodyOf(again).data).toEqual({ deliveryId: 'd-1', duplicate: true });
    expect(await again.recorded).toMatchObject({ outcome: 'duplicate', attemptHeader: 2, status: 200 });
    expect(deliveries).toHaveLength(1);
    expect((await store.getDelivery('d-1'))!.duplicateCount).toBe(1);
  });
});

describe('store step: the status answered', () => {
  it.each([204, 205])('%d goes out with no body at all', async (status) => {
    const outcome = await step()(context({ attempt: { status } }));
    expect(outcome.action).toEqual({ kind: 'answer', status, body: null });
    expect(await outcome.recorded).toMatchObject({ status, outcome: 'accepted' });
  });

  it.each([201, 202, 226])('%d carries the success envelope', async (status) => {
    const outcome = await step()(context({ attempt: { status } }));
    expect(outcome.action).toMatchObject({ kind: 'answer', status });
    expect(bodyOf(outcome)).toMatchObject({ success: true, data: { deliveryId: 'd-1' } });
  });

  it('a null status (none decided) answers 200', async () => {
    const outcome = await step()(context({ attempt: { status: null } }));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 200 });
  });
});

describe('store step: a store that cannot write', () => {
  it('answers 503 at once, without waiting on the record into the failed store', async () => {
    const recordWrite = deferred();
    const writes: AttemptInput[] = [];
    store = {
      ...createMemoryStore(),
      accept: async () => {
        throw new StoreUnavailableError('SQLITE_BUSY: database is locked');
      },
      recordAttempt: async (a) => {
        writes.push(a);
        await recordWrite.promise;
        return writes.length;
      },
    };
    const ctx = context();
    const outcome = await step()(ctx);
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 503 });
    expect(bodyOf(outcome)).toEqual({
      success: false,
      code: 'STORE_UNAVAILABLE',
      error: 'the delivery could not be stored; nothing was acknowledged — retry later',
      timestamp: new Date(CLOCK_MS).toISOString(),
    });
    // The record was asked for but is still being written: nothing announced yet.
    expect(writes).toHaveLength(1);
    expect(attempts).toEqual([]);
    expect(deliveries).toEqual([]);
    recordWrite.resolve();
    const recorded = await outcome.recorded;
    expect(recorded).toEqual({ ...ctx.attempt, seq: 1, finishedAt: CLOCK_MS, outcome: 'unavailable', status: 503, reason: 'STORE_UNAVAILABLE' });
    expect(attempts.map((a) => a.attempt)).toEqual([recorded]);
    // The store keeps what was sent (the announcement leaves it out, as every list of attempts does).
    expect(writes[0]).toEqual({ ...ctx.attempt, finishedAt: CLOCK_MS, outcome: 'unavailable', status: 503, reason: 'STORE_UNAVAILABLE', request: keptRequest(ctx.arrival) });
    expect(writes[0]!.request!.body!.equals(ctx.arrival.rawBody)).toBe(true);
  });

  it('a 503 is never a 2xx even in sync mode with a 204 from the app', async () => {
    store = { ...createMemoryStore(), accept: async () => Promise.reject(new StoreUnavailableError('disk full')) };
    const outcome = await step()(context({ attempt: { status: 204 } }));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 503 });
    expect(await outcome.recorded).toMatchObject({ status: 503, outcome: 'unavailable' });
  });

  it('any other failure is a bug: it propagates, and nothing is recorded', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    store = { ...createMemoryStore(), accept: async () => Promise.reject(bug) };
    await expect(step()(context())).rejects.toBe(bug);
    expect(attempts).toEqual([]);
    expect(await store.listAttempts({ limit: 10 })).toEqual([]);
  });
});

describe('store step: sync passthrough', () => {
  const handedOn: PassthroughResult = { answer: { status: 202, error: null, latencyMs: 3.6 }, startedAt: NOW_MS + 1, finishedAt: NOW_MS + 5, target: 'http://app.local/hook' };
  const app: Passthrough = { forward: async () => handedOn, close: async () => {} };

  it("answers the app's status and records the hand-off in the delivery's relay history after the commit", async () => {
    const passthrough = createPassthroughStep(app, store, hub);
    const relayed = new Promise<void>((resolve) => hub.on('relay', () => resolve()));
    const outcome = await step({ passthrough })(context({ attempt: { status: 202 }, handedOn }));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 202 });
    // Announced once the try is recorded: the history holds what was announced.
    await relayed;
    const history = await store.relayHistory('d-1');
    expect(history.attempts).toEqual([{ seq: 1, deliverySeq: 1, startedAt: NOW_MS + 1, finishedAt: NOW_MS + 5, status: 202, error: null, replay: false, target: 'http://app.local/hook', try: 1 }]);
    expect(relays).toEqual([{ deliveryId: 'd-1', status: 202, ok: true, latencyMs: 4, replay: false, target: 'http://app.local/hook' }]);
  });

  it('records no hand-off when the app was not asked', async () => {
    const passthrough = createPassthroughStep(app, store, hub);
    await step({ passthrough })(context());
    expect((await store.relayHistory('d-1')).attempts).toEqual([]);
    expect(relays).toEqual([]);
  });
});

describe('the outbox port: durable work is told directly, never through an observer', () => {
  it('tells the port of each delivery it stores (not of a duplicate), even when every observer of the hub throws', async () => {
    const told: string[] = [];
    const throwing = createEventHub();
    for (const name of ['attempt', 'delivery', 'relay', 'notice'] as const) throwing.on(name, () => {
      throw new Error(`${name} observer failed`);
    });
    const run = createStoreStep({ log: createAttemptLog({ store, hub: throwing, skipVerify: false }), hub: throwing, clock: () => CLOCK_MS, skipVerify: false, passthrough: null, outbox: { stored: (d) => told.push(`${d.seq}:${d.id}`) } });
    const first = await run(context({ id: 'port-1' }));
    const again = await run(context({ id: 'port-1' }));
    const second = await run(context({ id: 'port-2' }));
    expect([first, again, second].map((o) => (o.action.kind === 'answer' ? o.action.status : o.action.kind))).toEqual([200, 200, 200]);
    expect(told).toEqual([`1:port-1`, `2:port-2`]);
  });

  it('a consumer that throws is reported by exactly one notice, naming the delivery; the 2xx is still answered, and the next consumer is still told', async () => {
    const notices: Array<HubEvents['notice']> = [];
    hub.on('notice', (n) => notices.push(n));
    const told: string[] = [];
    const gone: RelayWorker = { offer: () => { throw new Error('relay gone'); }, poke: () => {}, forget: () => {}, targets: () => [], setPaused: () => false, stop: async () => {} };
    // As the node wires it: the relay's port (relayPort), then another consumer behind it.
    const relay = relayPort(gone, hub);
    const port = outboxPortOf([relay, { stored: (d) => void told.push(d.id) }], (err) => hub.emit('notice', { level: 'error', message: `unexpected: ${String(err)}` }));
    const outcome = await step({ outbox: port })(context({ id: 'port-3' }));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 200 });
    expect(await store.getDelivery('port-3')).toBeDefined();
    expect(notices).toEqual([{ level: 'error', message: 'the relay was not told of delivery port-3 (relay gone); its poll hands it on' }]);
    expect(told).toEqual(['port-3']);
  });
});
