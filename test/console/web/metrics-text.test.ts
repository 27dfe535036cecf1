/** The page's reading of /metrics for the lag and backlog line (issue 39, item 3): label escapes, the series it keeps, ages. */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics/metrics.js';
import { createEventHub } from '../../../src/runtime/event-hub.js';
import { formatAge, lagFromMetrics, parseSampleLine } from '../../../web/src/metrics-text.js';

describe('parseSampleLine', () => {
  it('reads escaped label values (backslash, quote, newline) and skips other series', () => {
    expect(parseSampleLine('hookrelay_relay_dead_jobs{target="a\\\\b\\"c\\nd",x="y"} 3')).toEqual({ name: 'hookrelay_relay_dead_jobs', labels: { target: 'a\\b"c\nd', x: 'y' }, value: 3 });
    expect(parseSampleLine('hookrelay_relay_total{outcome="ok"} 1')).toBeNull();
    expect(parseSampleLine('hookrelay_relay_dead_jobs{target="unterminated} 3')).toBeNull();
    expect(parseSampleLine('hookrelay_relay_dead_jobs{target="a"} NaN')).toBeNull();
  });
});

describe('lagFromMetrics', () => {
  it('reads what createMetrics serves, hostile targets included, the most owed first', async () => {
    const hostile = 'x"}\n<img src=x>\\';
    const metrics = createMetrics({
      hub: createEventHub(),
      processMetrics: false,
      now: () => 100_000,
      lagReads: {
        relayBacklog: async () => [
          { target: 'http://a.example/', pending: 1, held: 0, dead: 0, oldestOwedAt: 40_000, retrying: 1 },
          { target: hostile, pending: 2, held: 1, dead: 4, oldestOwedAt: 10_000, retrying: 0 },
        ],
        deliveriesAfter: async () => [{ receivedAt: 70_000 }] as never,
      },
    });
    metrics.setBridgeSubscribers(async () => [{ subscriber: 'lap"top', ackedSeq: 1, lag: 2, connected: true }]);
    const snapshot = lagFromMetrics(await metrics.render());
    metrics.close();
    expect(snapshot.served).toBe(true);
    expect(snapshot.targets).toEqual([
      { target: hostile, pending: 2, held: 1, oldestSeconds: 90, retrying: 0, dead: 4 },
      { target: 'http://a.example/', pending: 1, held: 0, oldestSeconds: 60, retrying: 1, dead: 0 },
    ]);
    expect([...snapshot.subscriberSeconds]).toEqual([['lap"top', 30]]);
  });

  it('says when the series are not served', () => {
    expect(lagFromMetrics('# TYPE hookrelay_relay_jobs gauge\nhookrelay_relay_jobs{state="pending"} 0\n').served).toBe(false);
  });
});

describe('formatAge', () => {
  it.each([
    [0, '0 s'],
    [59.9, '59 s'],
    [60, '1m 00s'],
    [605, '10m 05s'],
    [3600 + 180, '1h 03m'],
    [2 * 86_400 + 3 * 3600, '2d 3h'],
    [-5, '0 s'],
  ])('%s s reads %s', (seconds, text) => {
    expect(formatAge(seconds)).toBe(text);
  });
});
