/**
 * The built-in sender, compressed with a time scale, against a real receiver whose fault rules
 * provoke every failure class of spec 6.4: `hookrelay check` must pass every rule, for the default,
 * a fixed, a custom and a disabled retry policy (issue 7).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunVerdict } from '../../src/core/conformance/index.js';
import { check, failedRules, newDelivery, sendBuiltIn, startReceiver, statuses, type Cleanups } from './harness.js';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** No rule failed, exit 0; on failure the report says why. */
function expectConforming(run: { verdict: RunVerdict; exitCode: number | undefined; report: string }): void {
  expect(failedRules(run.verdict), run.report).toEqual([]);
  expect(run.exitCode, run.report).toBe(0);
}

describe('the built-in sender passes every rule', () => {
  it('default policy: 503 + Retry-After, hang, reset, 429 with an HTTP date, then success', async () => {
    const r = await startReceiver(cleanups, ['503 retry-after=120 attempt=1', 'hang attempt=2', 'reset attempt=3', '429 retry-after=+60s attempt=4']);
    const sent = await sendBuiltIn(r.url, { timeScale: 0.001 });
    expect(sent.deliveries[0]!.status).toBe('succeeded');
    await r.finish();
    const run = await check(r, '--time-scale', '0.001');
    expectConforming(run);
    const d = run.verdict.deliveries[0]!;
    expect(d.timeline.map((a) => a.answerClass)).toEqual(['http_5xx', 'timeout', 'network', 'http_429', 'success']);
    expect(d.state).toBe('succeeded');
    expect(statuses(run.verdict)).toMatchObject({
      'attempt-sequence': ['pass'],
      'same-delivery': ['pass'],
      'fresh-signature': ['pass'],
      backoff: ['pass'],
      'retry-after': ['pass'],
      'no-retry-after-final': ['pass'],
      'max-attempts': ['pass'],
      timeout: ['pass'],
    });
    expect(d.rules.find((x) => x.rule === 'retry-after')!.findings).toHaveLength(2);
    // The sender marked its delivery with its time scale (x-hookrelay-time-scale): check judges it
    // at that scale with no flag (issue 13 item 5).
    const bare = await check(r);
    expect(failedRules(bare.verdict), bare.report).toEqual([]);
    expect(bare.verdict.deliveries[0]!.timeScaleMark).toBe(0.001);
  });

  it('default policy: 500, 408, close, then success', async () => {
    const r = await startReceiver(cleanups, ['500 attempt=1', '408 attempt=2', 'close attempt=3']);
    await sendBuiltIn(r.url, { timeScale: 0.001 });
    await r.finish();
    const run = await check(r, '--time-scale', '0.001');
    expectConforming(run);
    expect(run.verdict.deliveries[0]!.timeline.map((a) => a.answerClass)).toEqual(['http_5xx', 'http_408', 'network', 'success']);
    expect(run.verdict.deliveries[0]!.rules.find((x) => x.rule === 'backoff')!.findings).toHaveLength(3);
  });

  it('default policy: the classes that fail at once (404, 501, redirect without Location, 4 hops) and 3 hops followed', async () => {
    const [notFound, unsupported, noLocation, fourHops, threeHops] = [0, 1, 2, 3, 4].map(() => newDelivery());
    const r = await startReceiver(cleanups, [
      `404 delivery=${notFound!.id}`,
      `501 delivery=${unsupported!.id}`,
      `redirect delivery=${noLocation!.id}`,
      `redirect hops=4 delivery=${fourHops!.id}`,
      `redirect hops=3 delivery=${threeHops!.id}`,
    ]);
    const sent = await sendBuiltIn(r.url, { timeScale: 0.001, deliveries: [notFound!, unsupported!, noLocation!, fourHops!, threeHops!], concurrency: 5 });
    expect(sent.deliveries.map((d) => d.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'succeeded']);
    await r.finish();
    const run = await check(r, '--time-scale', '0.001');
    expectConforming(run);
    const byId = new Map(run.verdict.deliveries.map((d) => [d.deliveryId, d]));
    expect(byId.get(notFound!.id)!.timeline.map((a) => a.answerClass)).toEqual(['http_4xx']);
    expect(byId.get(unsupported!.id)!.timeline.map((a) => a.answerClass)).toEqual(['http_unsupported']);
    expect(byId.get(noLocation!.id)!.timeline.map((a) => [a.answerClass, a.hops])).toEqual([['redirect', 0]]);
    expect(byId.get(fourHops!.id)!.timeline.map((a) => [a.answerClass, a.hops])).toEqual([['redirect', 3]]);
    expect(byId.get(threeHops!.id)!.timeline.map((a) => [a.answerClass, a.hops])).toEqual([['success', 3]]);
    expect(statuses(run.verdict)['no-retry-after-final']).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
  });

  it('default policy: a 410 suspends the webhook and nothing more is sent', async () => {
    const r = await startReceiver(cleanups, ['410']);
    const sent = await sendBuiltIn(r.url, { timeScale: 0.001, deliveries: [newDelivery(), newDelivery()] });
    expect(sent.webhook.status).not.toBe('active');
    await r.finish();
    const run = await check(r, '--time-scale', '0.001');
    expectConforming(run);
    expect(run.verdict.deliveries).toHaveLength(1);
    expect(run.verdict.suspension).toMatchObject({ status: 'pass', cause: 'gone' });
  });

  it('fixed backoff (--backoff fixed --initial-delay 30)', async () => {
    const r = await startReceiver(cleanups, ['500 attempt=1-3']);
    await sendBuiltIn(r.url, { timeScale: 0.01, policy: { backoff: 'fixed', initialDelaySeconds: 30 } });
    await r.finish();
    const run = await check(r, '--time-scale', '0.01', '--backoff', 'fixed', '--initial-delay', '30');
    expectConforming(run);
    const backoff = run.verdict.deliveries[0]!.rules.find((x) => x.rule === 'backoff')!;
    expect(backoff.findings.map((f) => f.bounds)).toEqual([0, 1, 2].map(() => ({ min: 0.14, max: 0.86 })));
    // The same run judged as exponential fails: the fixed waits are far too short for retries 2 and 3.
    expect(failedRules((await check(r, '--time-scale', '0.01')).verdict)).toEqual(['backoff']);
  });

  it('a custom policy: 4xx retried, Retry-After capped at maxDelaySeconds, exhausted; a class left out of retryOn not retried', async () => {
    const policy = { maxAttempts: 4, initialDelaySeconds: 10, maxDelaySeconds: 60, retryOn: ['http_4xx', 'http_5xx', 'timeout'] as const };
    const [exhausted, network] = [newDelivery(), newDelivery()];
    const r = await startReceiver(cleanups, [
      `404 attempt=1 delivery=${exhausted.id}`,
      `503 retry-after=120 attempt=2 delivery=${exhausted.id}`,
      `500 delivery=${exhausted.id}`,
      `reset delivery=${network.id}`,
    ]);
    const sent = await sendBuiltIn(r.url, { timeScale: 0.01, policy: { ...policy, retryOn: [...policy.retryOn] }, deliveries: [exhausted, network], concurrency: 2 });
    expect(sent.deliveries.map((d) => [d.status, d.attempts.length])).toEqual([['failed', 4], ['failed', 1]]);
    await r.finish();
    const run = await check(r, '--time-scale', '0.01', '--policy', JSON.stringify(policy));
    expectConforming(run);
    const d = run.verdict.deliveries.find((x) => x.deliveryId === exhausted.id)!;
    expect(d.timeline.map((a) => a.answerClass)).toEqual(['http_4xx', 'http_5xx', 'http_5xx', 'http_5xx']);
    expect(d.rules.find((x) => x.rule === 'retry-after')!.findings[0]!.bounds!.min).toBeCloseTo(0.5, 6); // 60 s × 0.01 − 100 ms
    expect(d.rules.find((x) => x.rule === 'max-attempts')).toMatchObject({ status: 'pass', message: expect.stringContaining('4 of at most 4') });
    expect(run.verdict.deliveries.find((x) => x.deliveryId === network.id)!.rules.find((x) => x.rule === 'no-retry-after-final')!.status).toBe('pass');
    // Judged with the default policy instead, the run fails: the 404 was retried, the first wait far too short.
    expect(failedRules((await check(r, '--time-scale', '0.01')).verdict)).toEqual(expect.arrayContaining(['no-retry-after-final']));
  });

  it('retries disabled: one attempt per delivery, whatever the answer', async () => {
    const [a, b, c] = [newDelivery(), newDelivery(), newDelivery()];
    const r = await startReceiver(cleanups, [`500 delivery=${a.id}`, `503 retry-after=120 delivery=${b.id}`, `hang delivery=${c.id}`]);
    await sendBuiltIn(r.url, { timeScale: 0.01, policy: { enabled: false }, deliveries: [a, b, c], concurrency: 3 });
    await r.finish();
    const run = await check(r, '--time-scale', '0.01', '--retry-policy', '{"enabled":false}');
    expectConforming(run);
    expect(run.verdict.deliveries.map((d) => d.timeline.length)).toEqual([1, 1, 1]);
    expect(statuses(run.verdict)['max-attempts']).toEqual(['pass', 'pass', 'pass']);
  });

  it('auto-disable: after 3 failed deliveries in a row nothing more arrives', async () => {
    const r = await startReceiver(cleanups, ['500']);
    const deliveries = [0, 1, 2, 3, 4].map(() => newDelivery());
    const sent = await sendBuiltIn(r.url, { timeScale: 0.01, policy: { maxAttempts: 2 }, failureHandling: { autoDisableAfter: 3 }, deliveries });
    expect(sent.webhook.status).not.toBe('active');
    await r.finish();
    const run = await check(r, '--time-scale', '0.01', '--max-attempts', '2', '--auto-disable-after', '3');
    expectConforming(run);
    expect(run.verdict.suspension).toMatchObject({ status: 'pass', cause: 'consecutive-failures' });
  });
});
