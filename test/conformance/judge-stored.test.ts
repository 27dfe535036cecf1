import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { judgeStoredDelivery } from '../../src/conformance/judge-stored.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { AttemptInput, DeliveryStore } from '../../src/store/store.js';

const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);
const body = (id: string) => JSON.stringify({ id, type: 'trustcenter.access_requested' });

function attempt(id: string, header: number, receivedAt: number, status: number | null, extra: Partial<AttemptInput> = {}): AttemptInput {
  return {
    deliveryId: id, trigger: 'trustcenter.access_requested', receivedAt, finishedAt: receivedAt + 20, attemptHeader: header,
    signatureTimestamp: Math.floor(receivedAt / 1000), bodySha256: createHash('sha256').update(body(id)).digest('hex'), bodyBytes: body(id).length,
    outcome: 'faulted', status, reason: status === null ? 'fault:reset' : `fault:status ${status}`, retryAfter: null, ...extra,
  };
}

async function storeWith(...attempts: AttemptInput[]): Promise<DeliveryStore> {
  const store = createMemoryStore();
  for (const a of attempts) await store.recordAttempt(a);
  return store;
}

describe('judgeStoredDelivery', () => {
  it('judges every stored attempt of the id, and nothing of other deliveries', async () => {
    const store = await storeWith(
      attempt('evt_a', 1, T0, 500),
      attempt('evt_b', 1, T0 + 10, 200, { outcome: 'accepted', reason: null }),
      attempt('evt_a', 2, T0 + 60_020, 200, { outcome: 'accepted', reason: null }),
    );
    const verdict = await judgeStoredDelivery(store, 'evt_a');
    expect(verdict).toMatchObject({ deliveryId: 'evt_a', state: 'succeeded', status: 'pass' });
    expect(verdict!.timeline.map((a) => a.status)).toEqual([500, 200]);
    expect(verdict!.rules.find((r) => r.rule === 'backoff')).toMatchObject({ status: 'pass' });
  });

  it('resolves null for an id no attempt carries', async () => {
    expect(await judgeStoredDelivery(await storeWith(attempt('evt_a', 1, T0, 200)), 'evt_zzz')).toBeNull();
  });

  it('judges against the options given (policy, time scale)', async () => {
    const store = await storeWith(attempt('evt_s', 1, T0, 500), attempt('evt_s', 2, T0 + 620, 200, { outcome: 'accepted', reason: null }));
    const real = await judgeStoredDelivery(store, 'evt_s');
    expect(real!.rules.find((r) => r.rule === 'backoff')!.status).toBe('fail');
    const scaled = await judgeStoredDelivery(store, 'evt_s', { timeScale: 0.01 });
    expect(scaled!.rules.find((r) => r.rule === 'backoff')!.status).toBe('pass');
    const fixed = await judgeStoredDelivery(store, 'evt_s', { timeScale: 0.01, policy: { enabled: true, maxAttempts: 1, backoff: 'fixed', initialDelaySeconds: 60, maxDelaySeconds: 60, retryOn: ['http_5xx'] } });
    expect(fixed!.rules.find((r) => r.rule === 'max-attempts')!.status).toBe('fail');
  });

  it('shows a delivery whose retry is not yet due as retrying, judged at `now` (default: the current time)', async () => {
    const store = await storeWith(attempt('evt_w', 1, T0, 503));
    expect(await judgeStoredDelivery(store, 'evt_w', { now: T0 + 1000 })).toMatchObject({ state: 'retrying', status: 'pass' });
    expect(await judgeStoredDelivery(store, 'evt_w')).toMatchObject({ state: 'failed', status: 'fail' });
    const recent = await storeWith(attempt('evt_r', 1, Date.now() - 1000, 503));
    expect(await judgeStoredDelivery(recent, 'evt_r')).toMatchObject({ state: 'retrying' });
  });

  it('throws a RangeError naming every bad option', async () => {
    const store = await storeWith(attempt('evt_a', 1, T0, 200));
    await expect(judgeStoredDelivery(store, 'evt_a', { timeScale: 0, toleranceSeconds: -1 })).rejects.toThrow(
      /^invalid conformance options: timeScale must be a number > 0, got 0; toleranceSeconds must be a number >= 0, got -1$/,
    );
  });
});
