/** handoff/relay-log.ts: a relay try is recorded, then announced; an observer can neither skip the record nor throw into the caller. */
import { describe, expect, it } from 'vitest';
import type { HandOffResult } from '../../src/handoff/hand-off.js';
import { createRelayLog, type RelayTry } from '../../src/handoff/relay-log.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore, RelayOutcome } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

const NOW = 1_763_719_200_000;

async function stored(store: DeliveryStore, id: string): Promise<number> {
  const d = makeDelivery({ id });
  return (await store.accept(d, attemptFor(d))).deliverySeq;
}

const failed: HandOffResult = { answer: { status: 503, error: 'responded 503', latencyMs: 4.6 }, startedAt: NOW, finishedAt: NOW + 5, target: 'http://bob:hunter2@127.0.0.1:3000/hook' };
const tryOf = (deliverySeq: number, overrides: Partial<RelayTry> = {}): RelayTry => ({ deliveryId: 'd-1', deliverySeq, try: 1, replay: false, handedOff: failed, next: { state: 'pending', nextAt: NOW + 1005 }, ...overrides });

describe('relay log', () => {
  it('records the try (its target redacted), and only then announces it', async () => {
    const memory = createMemoryStore({ outbox: true });
    const order: string[] = [];
    const writes: RelayOutcome[] = [];
    const store = { recordRelay: async (o: RelayOutcome) => (order.push('recorded'), writes.push(o), memory.recordRelay(o)) };
    const hub = createEventHub();
    const relays: Array<HubEvents['relay']> = [];
    hub.on('relay', (e) => (order.push('announced'), relays.push(e)));
    const seq = await stored(memory, 'd-1');
    await createRelayLog(store, hub).record(tryOf(seq));
    expect(order).toEqual(['recorded', 'announced']);
    expect(writes).toEqual([{ deliverySeq: seq, startedAt: NOW, finishedAt: NOW + 5, status: 503, error: 'responded 503', replay: false, target: 'http://[redacted]@127.0.0.1:3000/hook', try: 1, answer: null, next: { state: 'pending', nextAt: NOW + 1005 } }]);
    expect(relays).toEqual([{ deliveryId: 'd-1', status: 503, ok: false, latencyMs: 5, replay: false, target: 'http://[redacted]@127.0.0.1:3000/hook', error: 'responded 503', nextRetryAt: NOW + 1005 }]);
    expect((await memory.relayHistory('d-1')).attempts).toMatchObject([{ status: 503, try: 1, replay: false }]);
  });

  it.each<[string, Partial<RelayTry>, Partial<HubEvents['relay']>]>([
    ['a job that gives up says how to retry it by hand', { try: 15, next: { state: 'dead' } }, { error: 'responded 503; gave up after 15 tries (retry by hand: hookrelay events retry d-1)', nextRetryAt: null }],
    ['a try that moves no job (a replay) has no next retry', { replay: true, next: null }, { error: 'responded 503', replay: true, nextRetryAt: undefined }],
    ['a 2xx is ok', { handedOff: { ...failed, answer: { status: 204, error: null, latencyMs: 1 } }, next: { state: 'done' } }, { ok: true, status: 204, error: undefined, nextRetryAt: null }],
  ])('%s', async (_name, overrides, announced) => {
    const store = createMemoryStore({ outbox: true });
    const hub = createEventHub();
    const relays: Array<HubEvents['relay']> = [];
    hub.on('relay', (e) => relays.push(e));
    await createRelayLog(store, hub).record(tryOf(await stored(store, 'd-1'), overrides));
    expect(relays).toHaveLength(1);
    for (const [key, value] of Object.entries(announced)) expect(relays[0]![key as keyof HubEvents['relay']]).toEqual(value);
  });

  it('a hub that throws neither skips the record nor throws into the caller', async () => {
    const store = createMemoryStore({ outbox: true });
    const broken: EventHub = { listens: () => true, on: () => () => {}, emit: () => { throw new Error('a broken hub'); } };
    const seq = await stored(store, 'd-1');
    await expect(createRelayLog(store, broken).record(tryOf(seq))).resolves.toBeUndefined();
    expect((await store.relayHistory('d-1')).attempts).toHaveLength(1);
  });

  it('a try the store could not record is not announced, and the caller is told', async () => {
    const hub = createEventHub();
    const relays: Array<HubEvents['relay']> = [];
    hub.on('relay', (e) => relays.push(e));
    const store = { recordRelay: () => Promise.reject(new Error('disk full')) };
    await expect(createRelayLog(store, hub).record(tryOf(1))).rejects.toThrow('disk full');
    expect(relays).toEqual([]);
  });

  it('records with no hub at all (the CLI)', async () => {
    const store = createMemoryStore({ outbox: true });
    await createRelayLog(store, null).record(tryOf(await stored(store, 'd-1'), { replay: true, next: null }));
    expect((await store.relayHistory('d-1')).attempts).toMatchObject([{ replay: true }]);
  });
});
