import { describe, expect, it } from 'vitest';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { buildApp } from '../../src/app/build-app.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { formatRetainDuration, parseRetainDuration, startRetention } from '../../src/store/retention.js';
import type { PruneResult } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { testListenConfig } from '../helpers/listen-config.js';

const DAY = 86_400_000;

describe('--retain durations', () => {
  it.each([
    ['30d', 30 * DAY],
    ['72h', 72 * 3_600_000],
    ['90m', 90 * 60_000],
    ['3600s', 3_600_000],
    ['2w', 14 * DAY],
    [' 7D ', 7 * DAY],
    ['0', null],
    ['off', null],
  ])('%j → %s ms', (text, ms) => {
    expect(parseRetainDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['', '30', 'd', '-1d', '1.5d', '30 days', '10s', '1e9d', 'forever'])('refuses %j', (text) => {
    const parsed = parseRetainDuration(text);
    expect(parsed.ok).toBe(false);
  });

  it.each([
    [30 * DAY, '30d'],
    [72 * 3_600_000, '3d'],
    [5 * 3_600_000, '5h'],
    [14 * DAY, '2w'],
    [90_000, '90s'],
  ])('formats %s as %s', (ms, text) => {
    expect(formatRetainDuration(ms)).toBe(text);
  });
});

describe('retention', () => {
  it('prunes at start with the injected clock; a retry 72 h later is still deduped', async () => {
    const store = createMemoryStore();
    const T = 1_763_719_200_000;
    const old = makeDelivery({ receivedAt: T - 31 * DAY });
    const kept = makeDelivery({ receivedAt: T });
    await store.accept(old, attemptFor(old, { receivedAt: old.receivedAt }));
    await store.accept(kept, attemptFor(kept, { receivedAt: T }));
    const results: PruneResult[] = [];
    let now = T;
    const retention = startRetention({ store, retainMs: 30 * DAY, clock: () => now, onPrune: (r) => results.push(r) });
    await retention.runNow(); // joins the prune made at start
    now = T + 72 * 3_600_000;
    await retention.runNow();
    await retention.stop();
    expect(results[0]).toMatchObject({ before: T - 30 * DAY, deliveries: 1 });
    expect(results[1]).toMatchObject({ deliveries: 0 });
    expect((await store.accept(kept, attemptFor(kept, { receivedAt: now }))).outcome).toBe('duplicate');
    expect(await retention.runNow()).toBeNull();
  });

  it('is announced as a hub notice by listen (buildApp)', async () => {
    const hub = createEventHub();
    const store = createMemoryStore();
    const T = 1_763_719_200_000;
    const old = makeDelivery({ receivedAt: T - 40 * DAY });
    await store.accept(old, attemptFor(old, { receivedAt: old.receivedAt }));
    const notice = new Promise<string>((resolve) => hub.on('notice', ({ message }) => message.startsWith('retention') && resolve(message)));
    const app = await buildApp(
      testListenConfig('unused.db', { retainMs: 30 * DAY }),
      { store, hub, clock: () => T },
    );
    try {
      expect(await notice).toMatch(/^retention \(30d\): pruned 1 deliveries, 1 attempts/);
      expect(await store.getDelivery(old.id)).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
