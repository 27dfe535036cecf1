import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryEvent } from '../../src/core/retry-policy/delivery-events.js';
import type { Delivery } from '../../src/core/retry-policy/delivery-state.js';
import { DEFAULT_RETRY_POLICY, type FailureClass } from '../../src/core/retry-policy/policy.js';
import { retryWindow } from '../../src/core/retry-policy/schedule.js';
import { computeSignature } from '../../src/core/signature/sign.js';
import { verify } from '../../src/core/signature/verify.js';
import type { SenderClock } from '../../src/sender/clock.js';
import { SECRET, SHORT_POLICY, run } from './helpers/run.js';
import { closedPort, inTurn, redirectChain, startTestServer, type Answer, type Arrival, type TestServer } from './helpers/test-server.js';

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(answer: (a: Arrival) => Answer, options?: { now?: () => number }): Promise<TestServer> {
  const server = await startTestServer(answer, options);
  servers.push(server);
  return server;
}

const finishedEvents = (events: DeliveryEvent[]) => events.filter((e): e is Extract<DeliveryEvent, { type: 'attempt_finished' }> => e.type === 'attempt_finished');
const ms = (iso: string | null): number => Date.parse(iso!);

interface Expectation {
  status: Delivery['status'];
  attempts: number;
  lastFailureClass: FailureClass | null;
  responseStatus: number | null;
}

const always = (answer: Answer) => () => answer;

describe('the sender against each kind of answer (spec 6.4 table), over loopback', () => {
  it.each<[string, (a: Arrival) => Answer, string, Expectation]>([
    ['2xx', always({ status: 200 }), '/webhooks', { status: 'succeeded', attempts: 1, lastFailureClass: null, responseStatus: 200 }],
    ['408', always({ status: 408 }), '/webhooks', { status: 'failed', attempts: 3, lastFailureClass: 'http_408', responseStatus: 408 }],
    ['429 without Retry-After', always({ status: 429 }), '/webhooks', { status: 'failed', attempts: 3, lastFailureClass: 'http_429', responseStatus: 429 }],
    ['500', always({ status: 500 }), '/webhooks', { status: 'failed', attempts: 3, lastFailureClass: 'http_5xx', responseStatus: 500 }],
    ['501', always({ status: 501 }), '/webhooks', { status: 'failed', attempts: 1, lastFailureClass: 'http_unsupported', responseStatus: 501 }],
    ['505', always({ status: 505 }), '/webhooks', { status: 'failed', attempts: 1, lastFailureClass: 'http_unsupported', responseStatus: 505 }],
    ['410', always({ status: 410 }), '/webhooks', { status: 'failed', attempts: 1, lastFailureClass: 'http_410', responseStatus: 410 }],
    ['404', always({ status: 404 }), '/webhooks', { status: 'failed', attempts: 1, lastFailureClass: 'http_4xx', responseStatus: 404 }],
    ['a hang past the timeout', always({ hang: true }), '/webhooks', { status: 'failed', attempts: 3, lastFailureClass: 'timeout', responseStatus: null }],
    ['a reset', always({ reset: true }), '/webhooks', { status: 'failed', attempts: 3, lastFailureClass: 'network', responseStatus: null }],
    ['1 redirect hop (307)', redirectChain(307), '/hops/1', { status: 'succeeded', attempts: 1, lastFailureClass: null, responseStatus: 200 }],
    ['2 redirect hops (308)', redirectChain(308), '/hops/2', { status: 'succeeded', attempts: 1, lastFailureClass: null, responseStatus: 200 }],
    ['3 redirect hops (307)', redirectChain(307), '/hops/3', { status: 'succeeded', attempts: 1, lastFailureClass: null, responseStatus: 200 }],
    ['4 redirect hops (308)', redirectChain(308), '/hops/4', { status: 'failed', attempts: 1, lastFailureClass: 'redirect', responseStatus: 308 }],
    ['a redirect without Location', always({ status: 302 }), '/webhooks', { status: 'failed', attempts: 1, lastFailureClass: 'redirect', responseStatus: 302 }],
  ])('%s', async (_name, answer, path, expected) => {
    const server = await serve(answer);
    const { deliveries } = await run({ url: server.url(path) });
    const d = deliveries[0]!;
    expect(d).toMatchObject({ status: expected.status, attemptCount: expected.attempts, lastFailureClass: expected.lastFailureClass, responseStatus: expected.responseStatus });
    expect(d.attempts.map((a) => a.attemptNumber)).toEqual(Array.from({ length: expected.attempts }, (_, i) => i + 1));
    const deliveryAttempts = server.arrivals.filter((a) => a.path === path).map((a) => a.headers['x-service-delivery-attempt']);
    expect(deliveryAttempts).toEqual(Array.from({ length: expected.attempts }, (_, i) => String(i + 1)));
    for (const a of d.attempts) {
      expect(a.failureClass).toBe(expected.status === 'succeeded' ? null : expected.lastFailureClass);
      expect(a.finishedAt).not.toBeNull();
      expect(a.durationMs).toBe(ms(a.finishedAt) - ms(a.startedAt));
    }
  });

  it('a refused connection: network, retried', async () => {
    const port = await closedPort();
    const { deliveries } = await run({ url: `http://127.0.0.1:${port}/webhooks` });
    expect(deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 3, lastFailureClass: 'network', errorMessage: 'could not connect' });
  });

  it('404 is retried when http_4xx is in retryOn', async () => {
    const server = await serve(always({ status: 404 }));
    const { deliveries } = await run({ url: server.url(), policy: { ...SHORT_POLICY, retryOn: ['http_4xx'] } });
    expect(deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 3, lastFailureClass: 'http_4xx' });
  });

  it('succeeds on a later attempt after retryable failures', async () => {
    const server = await serve(inTurn({ status: 503 }, { reset: true }, { status: 201 }));
    const { deliveries } = await run({ url: server.url() });
    expect(deliveries[0]!.attempts.map((a) => [a.responseStatus, a.failureClass])).toEqual([
      [503, 'http_5xx'],
      [null, 'network'],
      [201, null],
    ]);
    expect(deliveries[0]).toMatchObject({ status: 'succeeded', lastFailureClass: 'network', nextAttemptAt: null });
  });

  it('makes a single attempt when retries are disabled', async () => {
    const server = await serve(always({ status: 500 }));
    const { deliveries } = await run({ url: server.url(), policy: { ...SHORT_POLICY, enabled: false } });
    expect(deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 1 });
    expect(server.arrivals).toHaveLength(1);
  });
});

describe('waits between attempts, compressed by timeScale', () => {
  it('waits the jittered backoff, scaled: recorded gaps and nextAttemptAt agree with the decisions', async () => {
    const server = await serve(always({ status: 500 }));
    const timeScale = 0.002;
    const { deliveries, events } = await run({ url: server.url(), timeScale, policy: { ...SHORT_POLICY, maxAttempts: 4 } });
    const d = deliveries[0]!;
    const decisions = finishedEvents(events);
    expect(decisions.map((e) => e.decision.action)).toEqual(['retry', 'retry', 'retry', 'fail']);
    decisions.slice(0, 3).forEach((e, i) => {
      if (e.decision.action !== 'retry') throw new Error('expected a retry');
      const window = retryWindow(SHORT_POLICY, i + 1);
      expect(e.decision.why).toBe('backoff');
      expect(e.decision.waitSeconds).toBeGreaterThanOrEqual(window.min);
      expect(e.decision.waitSeconds).toBeLessThanOrEqual(window.max);
      expect(e.scaledWaitMs).toBeCloseTo(e.decision.waitSeconds * 1000 * timeScale, 6);
      // nextAttemptAt is the finish time plus the scaled wait (ms resolution).
      expect(Math.abs(ms(e.delivery.nextAttemptAt) - ms(e.attempt.finishedAt) - e.scaledWaitMs!)).toBeLessThanOrEqual(1);
      // The next attempt did not start before the wait was over.
      const gap = ms(d.attempts[i + 1]!.startedAt) - ms(d.attempts[i]!.finishedAt);
      expect(gap).toBeGreaterThanOrEqual(e.scaledWaitMs! - 2);
    });
  });

  it.each([
    ['seconds', () => '20', 20, 20],
    ['seconds below the 10 s floor', () => '3', 10, 10],
    ['seconds above maxDelaySeconds', () => '86400', 60, 60],
    ['an HTTP date', () => new Date(Date.now() + 30_000).toUTCString(), 28, 31],
    ['a past HTTP date', () => new Date(Date.now() - 30_000).toUTCString(), 10, 10],
    ['garbage (backoff instead)', () => 'later please', 8, 12],
  ])('429 with Retry-After as %s', async (_name, value, low, high) => {
    const server = await serve(() => ({ status: 429, headers: { 'retry-after': value() } }));
    const { events, deliveries } = await run({ url: server.url(), policy: { ...SHORT_POLICY, maxAttempts: 2 } });
    const first = finishedEvents(events)[0]!;
    if (first.decision.action !== 'retry') throw new Error('expected a retry');
    expect(first.decision.waitSeconds).toBeGreaterThanOrEqual(low);
    expect(first.decision.waitSeconds).toBeLessThanOrEqual(high);
    expect(first.decision.why).toBe(value() === 'later please' ? 'backoff' : 'retry_after');
    const gap = ms(deliveries[0]!.attempts[1]!.startedAt) - ms(deliveries[0]!.attempts[0]!.finishedAt);
    expect(gap).toBeGreaterThanOrEqual(first.scaledWaitMs! - 2);
  });

  it('503 with Retry-After is honoured; 500 with Retry-After is not', async () => {
    const s503 = await serve(() => ({ status: 503, headers: { 'retry-after': '45' } }));
    const s500 = await serve(() => ({ status: 500, headers: { 'retry-after': '45' } }));
    const [a, b] = await Promise.all([
      run({ url: s503.url(), policy: { ...SHORT_POLICY, maxAttempts: 2 } }),
      run({ url: s500.url(), policy: { ...SHORT_POLICY, maxAttempts: 2 } }),
    ]);
    expect(finishedEvents(a.events)[0]!.decision).toMatchObject({ why: 'retry_after', waitSeconds: 45 });
    expect(finishedEvents(b.events)[0]!.decision).toMatchObject({ why: 'backoff' });
  });
});

describe('the request and its signature (spec 6.1, 6.3)', () => {
  it('sends the spec 6.1 headers, the same delivery id and the same body bytes on every attempt', async () => {
    const server = await serve(inTurn({ status: 500 }, { status: 500 }, { status: 200 }));
    const { sent } = await run({ url: server.url() });
    expect(server.arrivals).toHaveLength(3);
    const body = JSON.parse(server.arrivals[0]!.body.toString('utf8'));
    expect(Object.keys(body)).toEqual(['id', 'type', 'apiVersion', 'createdAt', 'organizationId', 'data']);
    expect(body).toMatchObject({ id: sent[0]!.id, type: 'trustcenter.access_requested', apiVersion: '2026-06-01' });
    server.arrivals.forEach((a, i) => {
      expect(a.body.equals(sent[0]!.body)).toBe(true);
      expect(a.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'Service-Webhook/1',
        'x-service-event': 'trustcenter.access_requested',
        'x-service-delivery': body.id,
        'x-service-delivery-attempt': String(i + 1),
        'x-service-api-version': '2026-06-01',
      });
    });
  });

  it('signs every attempt so that our verifier accepts it within the tolerance', async () => {
    const server = await serve(inTurn({ status: 500 }, { status: 429 }, { status: 200 }));
    await run({ url: server.url() });
    expect(server.arrivals).toHaveLength(3);
    for (const a of server.arrivals) {
      const header = a.headers['x-service-signature'] as string;
      const result = verify(a.body, header, { secrets: SECRET, nowSeconds: a.receivedAt / 1000 });
      expect(result).toMatchObject({ ok: true });
      const t = Number(/^t=(\d+),/.exec(header)![1]);
      expect(header).toBe(`t=${t},v1=${computeSignature(SECRET, a.body, t)}`);
      expect(Math.abs(t - a.receivedAt / 1000)).toBeLessThanOrEqual(300);
    }
  });

  it('signs each attempt afresh with its own t, following the clock through the waits', async () => {
    // A clock whose sleep moves time on instead of waiting: the full default schedule in no real time.
    let offset = 0;
    const clock: SenderClock = {
      now: () => Date.now() + offset,
      sleep: async (wait) => {
        offset += wait;
      },
    };
    const server = await serve((a) => (a.index < 6 ? { status: 503 } : { status: 200 }), { now: clock.now });
    const { deliveries } = await run({ url: server.url(), policy: DEFAULT_RETRY_POLICY, timeScale: 1, clock });
    expect(deliveries[0]).toMatchObject({ status: 'succeeded', attemptCount: 6 });
    const ts = server.arrivals.map((a) => Number(/^t=(\d+),/.exec(a.headers['x-service-signature'] as string)![1]));
    for (const [i, a] of server.arrivals.entries()) {
      expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: SECRET, nowSeconds: a.receivedAt / 1000 })).toMatchObject({ ok: true });
      if (i > 0) {
        const window = retryWindow(DEFAULT_RETRY_POLICY, i);
        expect(ts[i]! - ts[i - 1]!).toBeGreaterThanOrEqual(Math.floor(window.min) - 1);
        expect(ts[i]! - ts[i - 1]!).toBeLessThanOrEqual(Math.ceil(window.max) + 1);
      }
    }
    expect(new Set(server.arrivals.map((a) => a.headers['x-service-signature'])).size).toBe(6);
    // A signature from attempt 1 is stale by attempt 6: one signature for all would fail the tolerance.
    const last = server.arrivals[5]!;
    expect(verify(last.body, server.arrivals[0]!.headers['x-service-signature'] as string, { secrets: SECRET, nowSeconds: last.receivedAt / 1000 })).toMatchObject({
      ok: false,
      reason: 'timestamp_too_old',
    });
  });

  it('sends no signature header when unsigned', async () => {
    const server = await serve(always({ status: 200 }));
    await run({ url: server.url(), secret: null });
    expect(server.arrivals[0]!.headers['x-service-signature']).toBeUndefined();
  });

  it('emits typed events in order and prints nothing itself', async () => {
    const server = await serve(inTurn({ status: 500 }, { status: 200 }));
    const { events } = await run({ url: server.url() });
    expect(events.map((e) => (e.type === 'attempt_started' || e.type === 'attempt_finished' ? `${e.type}:${e.type === 'attempt_started' ? e.attemptNumber : e.attempt.attemptNumber}` : e.type))).toEqual([
      'attempt_started:1',
      'attempt_finished:1',
      'attempt_started:2',
      'attempt_finished:2',
      'delivery_finished',
    ]);
  });
});

describe('webhook suspension (spec 3)', () => {
  it('suspends after autoDisableAfter failed deliveries; the rest close as webhook_inactive unsent', async () => {
    const server = await serve(always({ status: 404 }));
    const { deliveries, webhook, events } = await run({ url: server.url(), count: 4, failureHandling: { autoDisableAfter: 2 } });
    expect(deliveries.map((d) => [d.status, d.lastFailureClass, d.attemptCount])).toEqual([
      ['failed', 'http_4xx', 1],
      ['failed', 'http_4xx', 1],
      ['failed', 'webhook_inactive', 0],
      ['failed', 'webhook_inactive', 0],
    ]);
    expect(server.arrivals).toHaveLength(2);
    expect(webhook).toMatchObject({ status: 'suspended', consecutiveFailures: 2 });
    expect(events.filter((e) => e.type === 'webhook_suspended')).toEqual([expect.objectContaining({ reason: 'consecutive_failures' })]);
  });

  it('counts a delivery failing after several attempts once', async () => {
    const server = await serve(always({ status: 500 }));
    const { webhook } = await run({ url: server.url(), count: 2, failureHandling: { autoDisableAfter: 3 } });
    expect(server.arrivals).toHaveLength(6);
    expect(webhook).toMatchObject({ status: 'active', consecutiveFailures: 2 });
  });

  it('resets the count on a success', async () => {
    const server = await serve(inTurn({ status: 404 }, { status: 200 }, { status: 404 }));
    const { webhook } = await run({ url: server.url(), count: 3, failureHandling: { autoDisableAfter: 2 } });
    expect(webhook).toMatchObject({ status: 'active', consecutiveFailures: 1 });
  });

  it('a 410 suspends the webhook and wakes a retry waiting an hour, closing it as webhook_inactive', async () => {
    const server = await serve(inTurn({ status: 500 }, { status: 410 }));
    const { deliveries, webhook } = await run({
      url: server.url(),
      count: 2,
      timeScale: 1, // the first delivery's retry would wait a real hour if nothing woke it
      policy: { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 3600 },
    });
    expect(deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'webhook_inactive', nextAttemptAt: null });
    expect(deliveries[1]).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'http_410' });
    expect(webhook).toMatchObject({ status: 'suspended', disabledReason: 'endpoint answered 410 Gone' });
    expect(server.arrivals).toHaveLength(2);
  });

  it('with disableOnGone false a 410 fails only its delivery', async () => {
    const server = await serve(always({ status: 410 }));
    const { deliveries, webhook } = await run({ url: server.url(), count: 2, failureHandling: { disableOnGone: false } });
    expect(deliveries.map((d) => d.lastFailureClass)).toEqual(['http_410', 'http_410']);
    expect(server.arrivals).toHaveLength(2);
    expect(webhook.status).toBe('active');
  });

  it('blocks a private endpoint under --block-private without sending', async () => {
    const server = await serve(always({ status: 200 }));
    const { deliveries } = await run({ url: server.url(), blockPrivate: true });
    expect(deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'blocked' });
    expect(server.arrivals).toHaveLength(0);
  });
});
