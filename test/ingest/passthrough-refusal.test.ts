/**
 * `--forward-mode sync` through the whole pipeline: what the hub announces of a delivery's hand-offs
 * is what the store keeps, so a live console shows what `events show` and a reloaded console read back.
 * A refusal by the app is the sender's attempt, refused; only the hand-off that lets the delivery in
 * is a relay try.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Passthrough } from '../../src/handoff/passthrough.js';
import type { TargetAnswer } from '../../src/handoff/post-to-target.js';
import { createIngestPipeline } from '../../src/ingest/pipeline.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { arrivalOf, NOW_MS } from './step-helpers.js';

let store: DeliveryStore;
let hub: EventHub;
let attempts: Array<HubEvents['attempt']>;
let relays: Array<HubEvents['relay']>;
let nextRelay: () => Promise<HubEvents['relay']>;

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
  attempts = [];
  relays = [];
  const waiting: Array<(e: HubEvents['relay']) => void> = [];
  hub.on('attempt', (e) => attempts.push(e));
  hub.on('relay', (e) => {
    relays.push(e);
    waiting.splice(0).forEach((resolve) => resolve(e));
  });
  nextRelay = () => new Promise((resolve) => waiting.push(resolve));
});

/** An app that gives each hand-off the next of `answers`. */
function app(answers: TargetAnswer[]): Passthrough {
  return {
    forward: async () => {
      const answer = answers.shift()!;
      return { answer, startedAt: NOW_MS, finishedAt: NOW_MS + answer.latencyMs, target: 'http://app.local/hook' };
    },
    close: async () => {},
  };
}

function pipeline(passthrough: Passthrough) {
  return createIngestPipeline({ path: '/webhooks', secrets: [TEST_SECRET], toleranceSeconds: 1e9, skipVerify: false, bodyLimitBytes: 65_536, store, hub, clock: () => NOW_MS + 2, passthrough });
}

/** The relay tries of `id` as the hub announced them, and as the store keeps them. */
async function announcedAndKept(id: string) {
  const announced = relays.filter((r) => r.deliveryId === id).map(({ status, ok, replay }) => ({ status, ok, replay }));
  const kept = (await store.relayHistory(id)).attempts.map(({ status, replay }) => ({ status, ok: status !== null && status >= 200 && status < 300, replay }));
  return { announced, kept };
}

describe('sync passthrough: announced is recorded', () => {
  it('a refusal by the app announces no relay try the store does not keep; the try that lets the delivery in is announced once kept', async () => {
    const handle = pipeline(app([{ status: 500, error: 'responded 500', latencyMs: 7 }, { status: 200, error: null, latencyMs: 3 }]));
    const req = signedRequest({ attempt: 1 });

    const refused = await handle.handle(arrivalOf(req));
    expect(refused.action).toMatchObject({ kind: 'answer', status: 500 });
    const refusedRecord = await refused.recorded;
    expect(refusedRecord).toMatchObject({ outcome: 'rejected', status: 500, reason: 'TARGET_STATUS_500' });
    // The refusal is the sender's attempt: announced as the record the store keeps.
    expect(attempts.map((a) => a.attempt)).toEqual([refusedRecord]);
    expect(await store.listAttempts({ deliveryId: req.id, limit: 5 })).toMatchObject([{ seq: refusedRecord.seq, outcome: 'rejected', reason: 'TARGET_STATUS_500' }]);
    expect(await announcedAndKept(req.id)).toEqual({ announced: [], kept: [] });

    const relayed = nextRelay();
    const accepted = await handle.handle(arrivalOf(signedRequest({ id: req.id, attempt: 2 })));
    expect(accepted.action).toMatchObject({ kind: 'answer', status: 200 });
    await relayed;
    expect(await announcedAndKept(req.id)).toEqual({ announced: [{ status: 200, ok: true, replay: false }], kept: [{ status: 200, ok: true, replay: false }] });
  });
});
