/** passthrough-step.ts: sync mode hands a delivery to the app unless stored; only a 2xx lets it be accepted; copies take turns. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { NewDelivery } from '../../src/core/records.js';
import type { HandOffDelivery } from '../../src/handoff/hand-off.js';
import type { Passthrough, PassthroughResult } from '../../src/handoff/passthrough.js';
import type { TargetAnswer } from '../../src/handoff/post-to-target.js';
import { attemptOf, readFacts, type Arrival } from '../../src/ingest/arrival.js';
import { createPassthroughStep } from '../../src/ingest/passthrough-step.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore, RelayOutcome } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { arrivalOf, deferred, NOW_MS } from './step-helpers.js';

let store: DeliveryStore;
let hub: EventHub;
let relays: Array<HubEvents['relay']>;
let forwarded: HandOffDelivery[];

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
  relays = [];
  forwarded = [];
  hub.on('relay', (e) => relays.push(e));
});

/** An app that answers every hand-off with `answer`, after `gate` when given. */
function app(answer: TargetAnswer, gate?: Promise<void>): Passthrough {
  return {
    async forward(delivery) {
      forwarded.push(delivery);
      if (gate) await gate;
      return { answer, startedAt: NOW_MS, finishedAt: NOW_MS + answer.latencyMs, target: 'http://app.local/hook' };
    },
    close: async () => {},
  };
}

const ok = (status = 200): TargetAnswer => ({ status, error: null, latencyMs: 2.4 });

async function storeArrival(arrival: Arrival, id: string): Promise<void> {
  const delivery: NewDelivery = {
    id, trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: arrival.receivedAt,
    rawBody: arrival.rawBody, rawHeaders: arrival.rawHeaders, signature: 'valid', secretIndex: 0, signatureTimestamp: null,
  };
  await store.accept(delivery, attemptOf(readFacts(arrival), { finishedAt: NOW_MS, signatureTimestamp: null, outcome: 'accepted', status: 200, reason: null, retryAfter: null }));
}

describe('handOn', () => {
  it('hands the exact bytes and headers, in order, to the app, and lets a 2xx through', async () => {
    const req = signedRequest();
    const arrival = arrivalOf(req);
    const step = createPassthroughStep(app(ok(201)), store, hub);
    const result = await step.handOn(arrival, req.id);
    expect(result).toEqual({ kind: 'handed-on', handedOn: { answer: ok(201), startedAt: NOW_MS, finishedAt: NOW_MS + 2.4, target: 'http://app.local/hook' } });
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]!.id).toBe(req.id);
    expect(forwarded[0]!.rawBody).toBe(arrival.rawBody);
    expect(forwarded[0]!.receivedAt).toBe(NOW_MS);
    expect(forwarded[0]!.headers).toEqual(Object.entries(req.headers));
    // A hand-off that will be accepted is announced only after the commit (recordHandOff).
    expect(relays).toEqual([]);
  });

  it.each([200, 204, 299])('%d is a 2xx', async (status) => {
    const step = createPassthroughStep(app(ok(status)), store, hub);
    expect((await step.handOn(arrivalOf(signedRequest()), 'd')).kind).toBe('handed-on');
  });

  it('does not hand a stored id on again', async () => {
    const req = signedRequest();
    await storeArrival(arrivalOf(req), req.id);
    const step = createPassthroughStep(app(ok()), store, hub);
    expect(await step.handOn(arrivalOf(req), req.id)).toEqual({ kind: 'skipped' });
    expect(forwarded).toEqual([]);
    expect(relays).toEqual([]);
  });

  it.each<[string, TargetAnswer, number, string, string[]]>([
    ['a 500', { status: 500, error: 'responded 500', latencyMs: 7.5 }, 500, 'TARGET_STATUS_500', []],
    ['a 429', { status: 429, error: 'responded 429', latencyMs: 1 }, 429, 'TARGET_STATUS_429', []],
    ['a redirect (not followed)', { status: 302, error: 'redirect not followed', latencyMs: 1 }, 502, 'TARGET_STATUS_302', []],
    ['a 199', { status: 199, error: null, latencyMs: 1 }, 502, 'TARGET_STATUS_199', []],
    ['a 300', { status: 300, error: null, latencyMs: 1 }, 502, 'TARGET_STATUS_300', []],
    ['a timeout', { status: null, error: 'timeout after 10000 ms', latencyMs: 10_000.4 }, 504, 'TARGET_TIMEOUT', ['timeout after 10000 ms']],
    ['a refused connection', { status: null, error: 'connect ECONNREFUSED 127.0.0.1:9', latencyMs: 0.2 }, 502, 'TARGET_UNREACHABLE', ['connect ECONNREFUSED 127.0.0.1:9']],
  ])('refuses the sender on %s, with why no answer came as hints; no relay try is announced, none being recorded', async (_name, answer, status, code, hints) => {
    const step = createPassthroughStep(app(answer), store, hub);
    const result = await step.handOn(arrivalOf(signedRequest()), 'd-9');
    expect(result).toMatchObject({ kind: 'refused', rejection: { status, code }, hints });
    expect(result.kind === 'refused' && result.rejection.message.length).toBeGreaterThan(0);
    expect(relays).toEqual([]);
    expect(await store.getDelivery('d-9')).toBeUndefined();
  });
});

describe('recordHandOff', () => {
  const handedOn: PassthroughResult = { answer: { status: 200, error: null, latencyMs: 12.5 }, startedAt: NOW_MS + 1, finishedAt: NOW_MS + 13, target: 'http://app.local/hook' };

  it('adds the hand-off to the relay history as a first, finished try, and then announces it', async () => {
    const order: string[] = [];
    const writes: RelayOutcome[] = [];
    const memory = store;
    store = { ...memory, recordRelay: async (o) => (writes.push(o), order.push('recorded'), memory.recordRelay(o)) };
    hub.on('relay', () => order.push('announced'));
    const step = createPassthroughStep(app(ok()), store, hub);
    await step.recordHandOff('d-1', 7, handedOn);
    expect(writes).toEqual([{ deliverySeq: 7, startedAt: NOW_MS + 1, finishedAt: NOW_MS + 13, status: 200, error: null, replay: false, target: 'http://app.local/hook', try: 1, answer: null, next: null }]);
    expect(relays).toEqual([{ deliveryId: 'd-1', status: 200, ok: true, latencyMs: 13, replay: false, target: 'http://app.local/hook' }]);
    expect(order).toEqual(['recorded', 'announced']);
  });

  it('keeps what the app answered with the try (issue 13, item 13)', async () => {
    const reply = { headers: [['X-App', 'took it']] as Array<[string, string]>, headerLines: 1, body: Buffer.from('{"ok":true}'), bodyBytes: 11, complete: true };
    const step = createPassthroughStep(app(ok()), store, hub);
    const d = makeDelivery({ id: 'd-1' });
    const { deliverySeq } = await store.accept(d, attemptFor(d));
    await step.recordHandOff('d-1', deliverySeq, { ...handedOn, answer: { ...handedOn.answer, reply } });
    const [tried] = (await store.relayHistory('d-1', { withAnswers: true })).attempts;
    expect(tried).toMatchObject({ status: 200, try: 1, answer: { headers: [['X-App', 'took it']], headerLines: 1, bodyBytes: 11, complete: true } });
    expect(Buffer.from(tried!.answer!.body).toString()).toBe('{"ok":true}');
  });

  it('a relay history the store cannot write is dropped quietly, and not announced (the sender has its answer)', async () => {
    store = { ...createMemoryStore(), recordRelay: () => Promise.reject(new Error('disk full')) };
    const step = createPassthroughStep(app(ok()), store, hub);
    await expect(step.recordHandOff('d-1', 1, handedOn)).resolves.toBeUndefined();
    expect(relays).toEqual([]);
  });
});

describe('inTurn', () => {
  it('copies of one id take turns: only the first reaches the app, the next sees it stored', async () => {
    const gate = deferred();
    const reached = deferred();
    const slowApp = app(ok(), gate.promise);
    const step = createPassthroughStep({ ...slowApp, forward: (d) => (reached.resolve(), slowApp.forward(d)) }, store, hub);
    const req = signedRequest();
    const copy = (attempt: number) =>
      step.inTurn(req.id, async () => {
        const arrival = arrivalOf(signedRequest({ id: req.id, attempt }));
        const handOn = await step.handOn(arrival, req.id);
        if (handOn.kind === 'handed-on') await storeArrival(arrival, req.id);
        return handOn.kind;
      });
    const runs = [copy(1), copy(2), copy(3)];
    await reached.promise;
    expect(forwarded.map((d) => d.id)).toEqual([req.id]);
    gate.resolve();
    expect(await Promise.all(runs)).toEqual(['handed-on', 'skipped', 'skipped']);
    expect(forwarded).toHaveLength(1);
  });

  it('different ids do not wait for each other', async () => {
    const gate = deferred();
    const step = createPassthroughStep(app(ok()), store, hub);
    const slow = step.inTurn('a', () => gate.promise.then(() => 'a'));
    expect(await step.inTurn('b', async () => 'b')).toBe('b');
    gate.resolve();
    expect(await slow).toBe('a');
  });

  it('a failed turn lets the next copy of the id run', async () => {
    const step = createPassthroughStep(app(ok()), store, hub);
    const failed = step.inTurn('a', async () => {
      throw new Error('boom');
    });
    const next = step.inTurn('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });
});
