/** Lag and backlog in /metrics (issue 39, item 3): per target and per bridge subscriber, read from the store at scrape time. */
import { describe, expect, it } from 'vitest';
import { createMetrics, type BridgeSubscriberSample } from '../../src/metrics/metrics.js';
import { MAX_TARGET_SERIES, targetBacklog } from '../../src/metrics/lag.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore, RelayBacklog } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

const T0 = 1_763_719_200_000;
const APP = 'http://127.0.0.1:3000/hooks';
const VENDOR = 'https://bob:hunter2-password@vendor.example/in?token=tok-secret-123';
const VENDOR_SHOWN = 'https://[redacted]@vendor.example/in?token=[redacted]';

/** `name{labels} value` lines into a map keyed by `name{labels}`. */
function parse(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

/** Deliveries for the app (trustcenter.*) and the vendor (vendor.*): 3 to the app, 2 to the vendor, arriving a minute apart from T0. */
async function seeded(): Promise<{ store: DeliveryStore; seqs: number[] }> {
  const store = createMemoryStore({ outbox: { to: APP, routes: [{ glob: 'vendor.*', urls: [VENDOR] }] } });
  const seqs: number[] = [];
  const triggers = ['trustcenter.access_requested', 'vendor.rating_dropped', 'trustcenter.access_requested', 'vendor.rating_dropped', 'trustcenter.access_requested'];
  for (const [i, trigger] of triggers.entries()) {
    const d = makeDelivery({ trigger, receivedAt: T0 + i * 60_000 });
    seqs.push((await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }))).deliverySeq);
  }
  // The app took the first, failed the third once (still owed, retrying); the vendor's first is dead.
  const tried = (seq: number, next: 'done' | 'pending' | 'dead', target: string) =>
    store.recordRelay({
      deliverySeq: seq, startedAt: T0, finishedAt: T0, status: next === 'done' ? 204 : 503, error: null, replay: false, target, try: 1,
      next: next === 'pending' ? { state: 'pending', nextAt: T0 + 3_600_000 } : { state: next },
    });
  await tried(seqs[0]!, 'done', APP);
  await tried(seqs[2]!, 'pending', APP);
  await tried(seqs[1]!, 'dead', VENDOR);
  return { store, seqs };
}

describe('lag and backlog series', () => {
  it('per target: owed (pending, held), the oldest owed age, retrying and dead, with credentials redacted', async () => {
    const { store } = await seeded();
    const now = T0 + 10 * 60_000;
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false, relayCounts: () => store.relayCounts(), lagReads: store, now: () => now });
    const text = await metrics.render();
    const m = parse(text);
    // The app owes seq 3 (arrived at +2 min, retrying) and seq 5 (+4 min).
    expect(m.get(`hookrelay_relay_owed_jobs{target="${APP}",state="pending"}`)).toBe(2);
    expect(m.get(`hookrelay_relay_owed_jobs{target="${APP}",state="held"}`)).toBe(0);
    expect(m.get(`hookrelay_relay_oldest_owed_age_seconds{target="${APP}"}`)).toBe(8 * 60);
    expect(m.get(`hookrelay_relay_retrying_jobs{target="${APP}"}`)).toBe(1);
    expect(m.get(`hookrelay_relay_dead_jobs{target="${APP}"}`)).toBe(0);
    // The vendor owes seq 4 (+3 min) and gave up on seq 2.
    expect(m.get(`hookrelay_relay_owed_jobs{target="${VENDOR_SHOWN}",state="pending"}`)).toBe(1);
    expect(m.get(`hookrelay_relay_oldest_owed_age_seconds{target="${VENDOR_SHOWN}"}`)).toBe(7 * 60);
    expect(m.get(`hookrelay_relay_retrying_jobs{target="${VENDOR_SHOWN}"}`)).toBe(0);
    expect(m.get(`hookrelay_relay_dead_jobs{target="${VENDOR_SHOWN}"}`)).toBe(1);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('tok-secret-123');
    // Held jobs (another run's target) are owed too, and keep their age.
    await store.holdRelayJobs([APP], now);
    const held = parse(await metrics.render());
    expect(held.get(`hookrelay_relay_owed_jobs{target="${VENDOR_SHOWN}",state="held"}`)).toBe(1);
    expect(held.get(`hookrelay_relay_owed_jobs{target="${VENDOR_SHOWN}",state="pending"}`)).toBe(0);
    expect(held.get(`hookrelay_relay_oldest_owed_age_seconds{target="${VENDOR_SHOWN}"}`)).toBe(7 * 60);
    metrics.close();
  });

  it('a target caught up reads 0 owed and age 0; one with nothing left has no series', async () => {
    const store = createMemoryStore({ outbox: { to: APP, routes: [] } });
    const d = makeDelivery({ receivedAt: T0 });
    const { deliverySeq } = await store.accept(d, attemptFor(d));
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false, lagReads: store, now: () => T0 + 5_000 });
    expect(parse(await metrics.render()).get(`hookrelay_relay_oldest_owed_age_seconds{target="${APP}"}`)).toBe(5);
    await store.recordRelay({ deliverySeq, startedAt: T0, finishedAt: T0, status: 204, error: null, replay: false, target: APP, try: 1, next: { state: 'done' } });
    const text = await metrics.render();
    expect(text).toContain('# TYPE hookrelay_relay_oldest_owed_age_seconds gauge');
    expect(text).not.toContain(`target="${APP}"`);
    metrics.close();
  });

  it('one backlog read per scrape for all the per-target series; a failing read gives no series, not an error', async () => {
    const { store } = await seeded();
    let reads = 0;
    let fail = false;
    const lagReads = {
      relayBacklog: async () => {
        reads++;
        if (fail) throw new Error('database is locked');
        return store.relayBacklog();
      },
      deliveriesAfter: store.deliveriesAfter.bind(store),
    };
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false, lagReads, now: () => T0 });
    await metrics.render();
    expect(reads).toBe(1);
    fail = true;
    const text = await metrics.render();
    expect(reads).toBe(2);
    expect(text).not.toContain('hookrelay_relay_owed_jobs{');
    metrics.close();
  });

  it('bounds the target series: at most MAX_TARGET_SERIES, the most owed first', () => {
    const rows: RelayBacklog[] = Array.from({ length: MAX_TARGET_SERIES + 50 }, (_, i) => ({ target: `http://t${i}.example/`, pending: i, held: 0, dead: 0, oldestOwedAt: T0, retrying: 0 }));
    rows.push({ target: null, pending: 1000, held: 0, dead: 0, oldestOwedAt: T0 - 1000, retrying: 0 });
    // Two stored URLs that differ only in their password are one target shown.
    rows.push({ target: 'http://u:one@same.example/', pending: 500, held: 0, dead: 1, oldestOwedAt: T0, retrying: 2 }, { target: 'http://u:two@same.example/', pending: 500, held: 3, dead: 0, oldestOwedAt: T0 - 60_000, retrying: 0 });
    const { targets, total } = targetBacklog(rows, T0);
    expect(total).toBe(MAX_TARGET_SERIES + 52);
    expect(targets).toHaveLength(MAX_TARGET_SERIES);
    expect(targets[0]).toEqual({ target: 'http://[redacted]@same.example/', pending: 1000, held: 3, dead: 1, retrying: 2, oldestOwedAt: T0 - 60_000, oldestOwedAgeSeconds: 60 });
    expect(targets[1]!.target).toBe('unknown');
    expect(targets.at(-1)!.target).toBe(`http://t${50 + 2}.example/`);
  });

  it('per bridge subscriber: lag in deliveries and in seconds (the oldest unacknowledged delivery), 0 when caught up', async () => {
    const { store, seqs } = await seeded();
    const now = T0 + 10 * 60_000;
    const latest = seqs.at(-1)!;
    const cursors: Array<[string, number]> = [['laptop', seqs[1]!], ['caught-up', latest], ['never-acked', 0], ['also-laptop', seqs[1]!]];
    const samples = (): BridgeSubscriberSample[] => cursors.map(([subscriber, ackedSeq]) => ({ subscriber, ackedSeq, lag: latest - ackedSeq, connected: subscriber !== 'never-acked' }));
    let deliveryReads = 0;
    const lagReads = {
      relayBacklog: () => store.relayBacklog(),
      deliveriesAfter: (seq: number, limit: number) => {
        deliveryReads++;
        return store.deliveriesAfter(seq, limit);
      },
    };
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false, lagReads, now: () => now });
    metrics.setBridgeSubscribers(async () => samples());
    const m = parse(await metrics.render());
    expect(m.get('hookrelay_bridge_subscriber_lag{subscriber="laptop"}')).toBe(3);
    // The first delivery after seq 2 is seq 3, which arrived at +2 min.
    expect(m.get('hookrelay_bridge_subscriber_lag_seconds{subscriber="laptop"}')).toBe(8 * 60);
    expect(m.get('hookrelay_bridge_subscriber_lag_seconds{subscriber="also-laptop"}')).toBe(8 * 60);
    expect(m.get('hookrelay_bridge_subscriber_lag_seconds{subscriber="never-acked"}')).toBe(10 * 60);
    expect(m.get('hookrelay_bridge_subscriber_lag_seconds{subscriber="caught-up"}')).toBe(0);
    // One read per distinct cursor behind (two subscribers share one), none for the one caught up.
    expect(deliveryReads).toBe(2);
    metrics.close();
  });

  it('without the store reads, the existing series stay and the new ones are not served', async () => {
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false });
    metrics.setBridgeSubscribers(async () => [{ subscriber: 'laptop', ackedSeq: 1, lag: 2, connected: true }]);
    const text = await metrics.render();
    expect(text).toContain('hookrelay_bridge_subscriber_lag{subscriber="laptop"} 2');
    expect(text).not.toContain('hookrelay_bridge_subscriber_lag_seconds');
    expect(text).not.toContain('hookrelay_relay_owed_jobs');
    metrics.close();
  });
});
