/** Retention never prunes what a known bridge subscriber has not acknowledged, until the subscriber is older than --bridge-retain. */
import { describe, expect, it } from 'vitest';
import { startRetentionWithNotices } from '../../src/app/retention-notices.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

const DAY = 86_400_000;

async function storeWithThreeOldDeliveries(now: number) {
  const store = createMemoryStore();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const d = makeDelivery({ receivedAt: now - 40 * DAY });
    await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
    ids.push(d.id);
  }
  return { store, ids };
}

describe('retention with bridge subscribers', () => {
  it('keeps what a recent subscriber has not acknowledged, and prunes it once the subscriber is older than the bridge window', async () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    const { store, ids } = await storeWithThreeOldDeliveries(now);
    const first = (await store.getDelivery(ids[0]!))!.seq;
    await store.registerBridgeSubscriber('ana', 0, now - DAY);
    await store.ackBridge('ana', first, now - DAY);

    const kept = startRetentionWithNotices(store, createEventHub(), 30 * DAY, () => now, 7 * DAY);
    await kept.runNow();
    await kept.stop();
    expect(await Promise.all(ids.map(async (id) => (await store.getDelivery(id)) !== undefined))).toEqual([false, true, true]);

    // Eight days later the subscriber no longer holds the store.
    const later = startRetentionWithNotices(store, createEventHub(), 30 * DAY, () => now + 8 * DAY, 7 * DAY);
    await later.runNow();
    await later.stop();
    expect(await Promise.all(ids.map(async (id) => (await store.getDelivery(id)) !== undefined))).toEqual([false, false, false]);
  });
});
