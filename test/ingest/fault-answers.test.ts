/**
 * One test per fault answer, over real sockets: the built-in sender (the judge) against
 * hookrelay with a rule, and what the sender classified and decided (spec 6.4).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FailureClass } from '../../src/core/retry-policy/policy.js';
import { makeDelivery, rules, send, startFaultApp, type SendOptions } from './fault-helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('retryable answers: the sender retries, and the retry is accepted normally', () => {
  it.each<[rule: string, failureClass: FailureClass, status: number | null, why: 'backoff' | 'retry_after', options?: SendOptions]>([
    ['408 attempt=1', 'http_408', 408, 'backoff'],
    ['429 attempt=1', 'http_429', 429, 'backoff'],
    ['429 retry-after=120 attempt=1', 'http_429', 429, 'retry_after'],
    ['429 retry-after=+120s attempt=1', 'http_429', 429, 'retry_after'],
    ["429 retry-after='Wed, 21 Oct 2099 07:28:00 GMT' attempt=1", 'http_429', 429, 'retry_after', { policy: { maxDelaySeconds: 600 } }],
    ['500 attempt=1', 'http_5xx', 500, 'backoff'],
    ['502 attempt=1', 'http_5xx', 502, 'backoff'],
    ['503 attempt=1', 'http_5xx', 503, 'backoff'],
    ['503 retry-after=120 attempt=1', 'http_5xx', 503, 'retry_after'],
    ['503 retry-after=+120s attempt=1', 'http_5xx', 503, 'retry_after'],
    ['504 attempt=1', 'http_5xx', 504, 'backoff'],
    ['reset attempt=1', 'network', null, 'backoff'],
    ['close attempt=1', 'network', null, 'backoff'],
  ])('%s → %s, retried (%s)', async (rule, failureClass, status, why, options = {}) => {
    const fa = await startFaultApp(cleanups, { faultRules: rules(rule) });
    const run = await send(fa.app.receiverUrl, options);

    const [first, second] = run.finished;
    expect(first!.outcome).toMatchObject({ delivered: false, failureClass, responseStatus: status });
    expect(first!.decision).toMatchObject({ action: 'retry', why });
    expect(second!.outcome.delivered).toBe(true);
    expect(run.deliveries[0]!.status).toBe('succeeded');

    const id = run.sent[0]!.id;
    const records = (await fa.app.store.listAttempts({ deliveryId: id, limit: 10 })).reverse();
    expect(records.map((r) => [r.outcome, r.status, r.attemptHeader])).toEqual([
      ['faulted', status, 1],
      ['accepted', 200, 2],
    ]);
    expect(records[0]!.reason).toBe(`fault:${rule}`);
    expect((await fa.app.store.listDeliveries({ limit: 10 })).items.map((d) => d.id)).toEqual([id]);
  });

  it('honours Retry-After as seconds: the sender waits exactly what was asked (before the time scale)', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('503 retry-after=120 attempt=1') });
    const run = await send(fa.app.receiverUrl);
    expect(run.finished[0]!.decision).toMatchObject({ action: 'retry', why: 'retry_after', waitSeconds: 120, retryAfterRequestedSeconds: 120 });
    const [faulted] = await fa.app.store.listAttempts({ deliveryId: run.sent[0]!.id, outcomes: ['faulted'], limit: 1 });
    expect(faulted!.retryAfter).toBe('120');
  });

  it('sends Retry-After as an HTTP date two minutes ahead for retry-after=+120s', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('429 retry-after=+120s attempt=1') });
    const run = await send(fa.app.receiverUrl);
    const decision = run.finished[0]!.decision;
    if (decision.action !== 'retry') throw new Error(`expected a retry, got ${decision.action}`);
    // The date is rounded up to the whole second, and read back against the sender's clock.
    expect(decision.retryAfterRequestedSeconds).toBeGreaterThanOrEqual(118);
    expect(decision.retryAfterRequestedSeconds).toBeLessThanOrEqual(121);
    const [faulted] = await fa.app.store.listAttempts({ deliveryId: run.sent[0]!.id, outcomes: ['faulted'], limit: 1 });
    expect(faulted!.retryAfter).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  });
});

describe('answers that fail at once: no retry', () => {
  it.each<[rule: string, failureClass: FailureClass, status: number, why: string]>([
    ['404', 'http_4xx', 404, 'not_in_retry_on'],
    ['422', 'http_4xx', 422, 'not_in_retry_on'],
    ['501', 'http_unsupported', 501, 'never_retried'],
    ['505', 'http_unsupported', 505, 'never_retried'],
    ['redirect', 'redirect', 307, 'never_retried'],
    ['redirect status=308 no-location', 'redirect', 308, 'never_retried'],
    ["302 header=location:''", 'redirect', 302, 'never_retried'],
  ])('%s → %s, not retried', async (rule, failureClass, status, why) => {
    const fa = await startFaultApp(cleanups, { faultRules: rules(rule) });
    const run = await send(fa.app.receiverUrl);
    expect(run.finished).toHaveLength(1);
    expect(run.finished[0]!.outcome).toMatchObject({ delivered: false, failureClass, responseStatus: status });
    expect(run.finished[0]!.decision).toEqual({ action: 'fail', why });
    expect(run.deliveries[0]!.status).toBe('failed');
    expect(run.webhook.status).toBe('active');
    // Faulted, recorded, and not a delivery: no dedupe entry was made.
    const records = await fa.app.store.listAttempts({ deliveryId: run.sent[0]!.id, limit: 10 });
    expect(records.map((r) => [r.outcome, r.status])).toEqual([['faulted', status]]);
    expect(await fa.app.store.getDelivery(run.sent[0]!.id)).toBeUndefined();
  });

  it('410 fails the delivery and suspends the webhook: the next delivery closes as webhook_inactive, never sent', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('410 trigger=trustcenter.access_approved') });
    const run = await send(fa.app.receiverUrl, { deliveries: [makeDelivery('trustcenter.access_approved'), makeDelivery('trustcenter.access_approved')] });
    expect(run.finished).toHaveLength(1);
    expect(run.finished[0]!.outcome).toMatchObject({ failureClass: 'http_410', responseStatus: 410 });
    expect(run.finished[0]!.decision).toEqual({ action: 'fail', why: 'never_retried' });
    expect(run.webhook.status).toBe('suspended');
    expect(run.events.filter((e) => e.type === 'webhook_suspended')).toMatchObject([{ reason: 'endpoint_gone' }]);
    expect(run.deliveries.map((d) => [d.status, d.lastFailureClass])).toEqual([
      ['failed', 'http_410'],
      ['failed', 'webhook_inactive'],
    ]);
    expect(fa.attempts).toHaveLength(1);
  });

  it('410 with disableOnGone false fails the delivery but leaves the webhook active', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('410 times=1') });
    const run = await send(fa.app.receiverUrl, { deliveries: [makeDelivery(), makeDelivery()], failureHandling: { disableOnGone: false } });
    expect(run.webhook.status).toBe('active');
    expect(run.deliveries.map((d) => [d.status, d.lastFailureClass])).toEqual([
      ['failed', 'http_410'],
      ['succeeded', null],
    ]);
  });

  it('a 4xx is retried when http_4xx is in retryOn', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('404 attempt=1') });
    const run = await send(fa.app.receiverUrl, { policy: { retryOn: ['http_4xx', 'http_5xx'] } });
    expect(run.finished.map((f) => f.outcome.failureClass)).toEqual(['http_4xx', null]);
    expect(run.deliveries[0]!.status).toBe('succeeded');
  });
});

describe('timeouts: hang and slow headers', () => {
  it.each(['hang attempt=1', 'hang slow-headers attempt=1'])('%s is cut by the sender timeout, retried, and the socket is released', async (rule) => {
    const fa = await startFaultApp(cleanups, { faultRules: rules(rule) });
    const run = await send(fa.app.receiverUrl, { timeoutMs: 300 });
    expect(run.finished[0]!.outcome).toMatchObject({ failureClass: 'timeout', responseStatus: null });
    expect(run.finished[0]!.decision).toMatchObject({ action: 'retry', why: 'backoff' });
    expect(run.finished[1]!.outcome.delivered).toBe(true);

    // Recorded when the client gave up: no status, the rule as the reason.
    const hung = await fa.attempt((a) => a.outcome === 'faulted');
    expect(hung).toMatchObject({ status: null, reason: `fault:${rule}`, attemptHeader: 1 });
    expect(hung.finishedAt).toBeGreaterThan(hung.receivedAt);
    expect(await fa.connectionsAfterClose()).toBe(0);
    expect((await fa.app.store.listDeliveries({ limit: 10 })).items).toHaveLength(1);
  });
});

describe('redirects served by hookrelay', () => {
  it('a chain of 3 hops ends delivered, the POST and its body kept on every hop', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('redirect hops=3') });
    const run = await send(fa.app.receiverUrl);
    expect(run.finished).toHaveLength(1);
    expect(run.finished[0]!.outcome.delivered).toBe(true);
    const id = run.sent[0]!.id;
    const stored = await fa.app.store.getDelivery(id);
    expect(Buffer.from(stored!.rawBody).equals(run.sent[0]!.body)).toBe(true);
    const records = (await fa.app.store.listAttempts({ deliveryId: id, limit: 10 })).reverse();
    expect(records.map((r) => [r.outcome, r.status, r.reason])).toEqual([
      ['faulted', 307, 'fault:redirect hops=3'],
      ['faulted', 307, 'fault-hop:1/3'],
      ['faulted', 307, 'fault-hop:2/3'],
      ['accepted', 200, 'fault-hop:3/3'],
    ]);
    // One attempt of the sender: the same attempt header and signature on every hop.
    expect(new Set(records.map((r) => `${r.attemptHeader}/${r.signatureTimestamp}/${r.bodySha256}`)).size).toBe(1);
  });

  it('a chain of 4 hops fails as redirect, not retried, and stores nothing', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('redirect status=308 hops=4') });
    const run = await send(fa.app.receiverUrl);
    expect(run.finished).toHaveLength(1);
    expect(run.finished[0]!.outcome).toMatchObject({ failureClass: 'redirect', responseStatus: 308, errorMessage: 'more than 3 redirect hops' });
    expect(run.finished[0]!.decision).toEqual({ action: 'fail', why: 'never_retried' });
    const records = (await fa.app.store.listAttempts({ deliveryId: run.sent[0]!.id, limit: 10 })).reverse();
    expect(records.map((r) => r.reason)).toEqual(['fault:redirect status=308 hops=4', 'fault-hop:1/4', 'fault-hop:2/4', 'fault-hop:3/4']);
    expect(await fa.app.store.getDelivery(run.sent[0]!.id)).toBeUndefined();
  });
});

describe('delay', () => {
  it('a delay below the timeout ends delivered on the first attempt', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('delay=50') });
    const run = await send(fa.app.receiverUrl, { timeoutMs: 5000 });
    expect(run.finished).toHaveLength(1);
    expect(run.finished[0]!.outcome.delivered).toBe(true);
    const [record] = await fa.app.store.listAttempts({ deliveryId: run.sent[0]!.id, limit: 10 });
    expect(record).toMatchObject({ outcome: 'accepted', status: 200, reason: 'fault:delay=50' });
  });

  it('a delay beyond the timeout is a timeout; the attempt is recorded as faulted with no answer', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('delay=60000 attempt=1') });
    const run = await send(fa.app.receiverUrl, { timeoutMs: 300 });
    expect(run.finished.map((f) => f.outcome.failureClass)).toEqual(['timeout', null]);
    const cut = await fa.attempt((a) => a.outcome === 'faulted');
    expect(cut).toMatchObject({ status: null, reason: 'fault:delay=60000 attempt=1' });
    expect((await fa.app.store.listDeliveries({ limit: 10 })).items).toHaveLength(1);
  });
});
