/**
 * Deliberately broken senders (a few lines each) against the real receiver: each must fail exactly
 * the rule it breaks, judged by `hookrelay check` from what the receiver recorded (issue 7).
 *
 * Time scale 0.01 unless a case says otherwise: the first backoff window 48–72 s becomes
 * 480–720 ms, accepted 380–1220 ms with the local slack, so a right wait (600 ms) and a wrong one
 * (none, or 1600 ms) are far apart.
 *
 * No test here sleeps. The receiver and the sender double share a manual clock: a "wait" moves it,
 * and every record is stamped with it, so each gap `check` measures is exactly the wait the script
 * chose (and real sockets, the store and `check` itself run as in production). Whether real timing
 * noise stays inside the slack is the built-in sender's test (built-in-sender.test.ts), which runs
 * on the system clock.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDelivery } from '../../src/sender/build-request.js';
import { check, failedRules, manualClock, newDelivery, startReceiver, type Cleanups, type ManualClock, type Receiver } from './harness.js';
import { senderDouble, type SenderDouble } from './sender-double.js';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The first retry's right wait at time scale 0.01 (60 s nominal). */
const RIGHT_WAIT_MS = 600;

/** A whole second an hour ago: `check` judges at the real now, after everything recorded. */
const START_MS = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

async function setUp(faults: string[]): Promise<{ receiver: Receiver; sender: SenderDouble; clock: ManualClock }> {
  const clock = manualClock(START_MS);
  const receiver = await startReceiver(cleanups, faults, { clock });
  const sender = senderDouble(receiver.url, clock);
  cleanups.push(() => sender.close());
  return { receiver, sender, clock };
}

/** Lets the receiver finish its records, then checks; returns the failed rules and the run. */
async function judge(receiver: Receiver, ...flags: string[]) {
  await receiver.finish();
  const run = await check(receiver, '--time-scale', '0.01', ...flags);
  return { ...run, failed: failedRules(run.verdict) };
}

describe('a broken sender fails exactly the rule it breaks', () => {
  it('control: the same double, sending right, passes every rule', async () => {
    const { receiver, sender } = await setUp(['500 attempt=1']);
    const d = newDelivery();
    expect(await sender.attempt({ delivery: d, n: 1 })).toBe(500);
    await sender.wait(RIGHT_WAIT_MS);
    expect(await sender.attempt({ delivery: d, n: 2 })).toBe(200);
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual([]);
    expect(run.exitCode).toBe(0);
  });

  it('reused timestamp → fresh-signature', async () => {
    // Time scale 0.03: the right wait is 1.8 s, long enough that a second t is owed (1 s + 500 ms slack).
    const { receiver, sender, clock } = await setUp(['500 attempt=1']);
    const d = newDelivery();
    const t = Math.floor(clock.now() / 1000);
    await sender.attempt({ delivery: d, n: 1, t });
    await sender.wait(1800);
    expect(await sender.attempt({ delivery: d, n: 2, t })).toBe(200);
    await receiver.finish();
    const run = await check(receiver, '--time-scale', '0.03');
    expect(failedRules(run.verdict), run.report).toEqual(['fresh-signature']);
    expect(run.exitCode).toBe(1);
    expect(run.verdict.deliveries[0]!.rules.find((r) => r.rule === 'fresh-signature')!.message).toContain(`t ${t} reused`);
  });

  it('no backoff → backoff', async () => {
    const { receiver, sender } = await setUp(['500 attempt=1']);
    const d = newDelivery();
    await sender.attempt({ delivery: d, n: 1 });
    await sender.attempt({ delivery: d, n: 2 });
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['backoff']);
    expect(run.verdict.deliveries[0]!.rules.find((r) => r.rule === 'backoff')!.findings[0]!.value).toBeLessThan(0.38);
  });

  it('too long a wait → backoff', async () => {
    const { receiver, sender } = await setUp(['500 attempt=1']);
    const d = newDelivery();
    await sender.attempt({ delivery: d, n: 1 });
    await sender.wait(1600);
    await sender.attempt({ delivery: d, n: 2 });
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['backoff']);
    expect(run.verdict.deliveries[0]!.rules.find((r) => r.rule === 'backoff')!.findings[0]!.value).toBeGreaterThan(1.22);
  });

  it('ignoring Retry-After (waits its backoff instead) → retry-after', async () => {
    const { receiver, sender } = await setUp(['503 retry-after=120 attempt=1']);
    const d = newDelivery();
    expect(await sender.attempt({ delivery: d, n: 1 })).toBe(503);
    await sender.wait(RIGHT_WAIT_MS);
    await sender.attempt({ delivery: d, n: 2 });
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['retry-after']);
    expect(run.report).toContain('expected Retry-After 120 × time scale 0.01: at least 1.200 s');
  });

  it('a retry after 410 → no-retry-after-final', async () => {
    const { receiver, sender } = await setUp(['410 attempt=1']);
    const d = newDelivery();
    expect(await sender.attempt({ delivery: d, n: 1 })).toBe(410);
    await sender.wait(RIGHT_WAIT_MS);
    await sender.attempt({ delivery: d, n: 2 });
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['no-retry-after-final']);
  });

  it('a retry after 404 (http_4xx not in retryOn) → no-retry-after-final', async () => {
    const { receiver, sender } = await setUp(['404 attempt=1']);
    const d = newDelivery();
    expect(await sender.attempt({ delivery: d, n: 1 })).toBe(404);
    await sender.wait(RIGHT_WAIT_MS);
    await sender.attempt({ delivery: d, n: 2 });
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['no-retry-after-final']);
    // With http_4xx in retryOn the same retry is right.
    const retried = await check(receiver, '--time-scale', '0.01', '--retry-on', 'http_4xx,http_5xx');
    expect(failedRules(retried.verdict), retried.report).toEqual([]);
  });

  it('one attempt too many → max-attempts', async () => {
    const { receiver, sender } = await setUp(['500']);
    const d = newDelivery();
    for (const n of [1, 2, 3]) {
      if (n > 1) await sender.wait(RIGHT_WAIT_MS);
      expect(await sender.attempt({ delivery: d, n })).toBe(500);
    }
    const run = await judge(receiver, '--max-attempts', '2');
    expect(run.failed, run.report).toEqual(['max-attempts']);
    expect(run.report).toContain('3 attempts arrived; the policy allows 2');
  });

  it('attempt header skipping a number → attempt-sequence', async () => {
    const { receiver, sender } = await setUp(['500 arrival=1']);
    const d = newDelivery();
    await sender.attempt({ delivery: d, n: 1 });
    await sender.wait(RIGHT_WAIT_MS);
    expect(await sender.attempt({ delivery: d, n: 3 })).toBe(200);
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['attempt-sequence']);
    expect(run.verdict.deliveries[0]!.timeline.map((a) => a.attemptHeader)).toEqual([1, 3]);
  });

  it('body changed between attempts → same-delivery', async () => {
    const { receiver, sender } = await setUp(['500 attempt=1']);
    const d = newDelivery();
    const changed = buildDelivery({ id: d.id, trigger: d.trigger, organizationId: '11111111-1111-4111-8111-111111111111', createdAtMs: Date.now() + 1000, data: { accessRequestId: 'changed' } });
    await sender.attempt({ delivery: d, n: 1 });
    await sender.wait(RIGHT_WAIT_MS);
    expect(await sender.attempt({ delivery: d, n: 2, body: changed.body })).toBe(200);
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['same-delivery']);
    expect(run.verdict.deliveries).toHaveLength(1);
    expect(run.verdict.deliveries[0]!.rules.find((r) => r.rule === 'same-delivery')!.message).toContain('body sha256');
  });

  it('delivery id changed between attempts → same-delivery', async () => {
    const { receiver, sender } = await setUp(['500 attempt=1']);
    const d = newDelivery();
    const other = randomUUID();
    await sender.attempt({ delivery: d, n: 1 });
    await sender.wait(RIGHT_WAIT_MS);
    // The body still says the first id: hookrelay refuses the mismatch (400 DELIVERY_ID_MISMATCH).
    expect(await sender.attempt({ delivery: d, n: 2, id: other })).toBe(400);
    const run = await judge(receiver);
    expect(run.failed, run.report).toEqual(['same-delivery']);
    expect(run.verdict.deliveries).toHaveLength(1);
    expect(run.verdict.deliveries[0]).toMatchObject({ deliveryId: d.id, otherDeliveryIds: [other] });
  });

  it('sending after the webhook should be suspended → suspension', async () => {
    // maxAttempts 1, autoDisableAfter 2: the second failed delivery suspends the webhook.
    const { receiver, sender } = await setUp(['500']);
    for (const [i, d] of [newDelivery(), newDelivery(), newDelivery()].entries()) {
      // Well past the 500 ms late slack: not a request already on its way.
      if (i === 2) await sender.wait(800);
      expect(await sender.attempt({ delivery: d, n: 1 })).toBe(500);
    }
    const run = await judge(receiver, '--max-attempts', '1', '--auto-disable-after', '2');
    expect(run.failed, run.report).toEqual(['suspension']);
    expect(run.verdict.suspension).toMatchObject({ status: 'fail', cause: 'consecutive-failures' });
    expect(run.verdict.suspension.findings).toHaveLength(1);
  });
});
