/**
 * Whole retry stories over real sockets: the built-in sender against hookrelay with rules,
 * across a restart, and with rules changed while it runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HubEvents } from '../../src/runtime/event-hub.js';
import { makeDelivery, rules, send, startFaultApp } from './fault-helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the three-step story', () => {
  it.each([
    ['by the attempt header', ['503 retry-after=120 attempt=1', 'hang attempt=2']],
    ["by hookrelay's own count", ['503 retry-after=120 arrival=1', 'hang arrival=2']],
  ])('503 with Retry-After 120, then a hang, then accepted on attempt 3 (%s)', async (_how, lines) => {
    const fa = await startFaultApp(cleanups, { faultRules: rules(...lines) });
    const run = await send(fa.app.receiverUrl, { policy: { maxAttempts: 6 }, timeoutMs: 300 });

    expect(run.finished.map((f) => [f.attempt.attemptNumber, f.outcome.failureClass, f.decision.action])).toEqual([
      [1, 'http_5xx', 'retry'],
      [2, 'timeout', 'retry'],
      [3, null, 'succeed'],
    ]);
    expect(run.finished[0]!.decision).toMatchObject({ why: 'retry_after', waitSeconds: 120 });
    expect(run.deliveries[0]!.status).toBe('succeeded');

    await fa.attempt((a) => a.reason === `fault:${lines[1]}`);
    const id = run.sent[0]!.id;
    const records = (await fa.app.store.listAttempts({ deliveryId: id, limit: 10 })).reverse();
    expect(records.map((r) => [r.attemptHeader, r.outcome, r.status, r.retryAfter, r.reason])).toEqual([
      [1, 'faulted', 503, '120', `fault:${lines[0]}`],
      [2, 'faulted', null, null, `fault:${lines[1]}`],
      [3, 'accepted', 200, null, null],
    ]);
    const stored = await fa.app.store.listDeliveries({ limit: 10 });
    expect(stored.items.map((d) => [d.id, d.duplicateCount])).toEqual([[id, 0]]);
  });
});

describe('restart between attempts', () => {
  it("keeps hookrelay's own arrival count per delivery id in the store", async () => {
    const faultRules = rules('503 arrival=1', '500 arrival=2');
    const first = await startFaultApp(cleanups, { faultRules });
    const delivery = makeDelivery();
    const before = await send(first.app.receiverUrl, { deliveries: [delivery], policy: { maxAttempts: 1 } });
    expect(before.finished.map((f) => f.outcome.responseStatus)).toEqual([503]);
    await first.app.close();

    // The same file, a new process state: the sender starts its count again at 1, hookrelay does not.
    const second = await startFaultApp(cleanups, { faultRules, dbPath: first.dbPath });
    const after = await send(second.app.receiverUrl, { deliveries: [delivery], policy: { maxAttempts: 2 } });
    expect(after.finished.map((f) => f.outcome.responseStatus)).toEqual([500, 200]);

    const records = (await second.app.store.listAttempts({ deliveryId: delivery.id, limit: 10 })).reverse();
    expect(records.map((r) => [r.attemptHeader, r.outcome, r.status])).toEqual([
      [1, 'faulted', 503],
      [1, 'faulted', 500],
      [2, 'accepted', 200],
    ]);
  });
});

describe('signature checks come first', () => {
  it('an unsigned request gets its 400, not the fault', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('503') });
    const run = await send(fa.app.receiverUrl, { secret: null });
    expect(run.finished).toHaveLength(1);
    expect(run.finished[0]!.outcome).toMatchObject({ failureClass: 'http_4xx', responseStatus: 400 });
    expect(fa.attempts.map((a) => [a.outcome, a.status, a.reason])).toEqual([['rejected', 400, 'SIGNATURE_MISSING']]);
  });

  it('a pre-verify rule faults the unsigned request before its signature is checked', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('503 pre-verify attempt=1') });
    const run = await send(fa.app.receiverUrl, { secret: null });
    expect(run.finished.map((f) => [f.outcome.failureClass, f.outcome.responseStatus])).toEqual([
      ['http_5xx', 503],
      ['http_4xx', 400],
    ]);
    expect(fa.attempts.map((a) => [a.outcome, a.status, a.reason])).toEqual([
      ['faulted', 503, 'fault:503 attempt=1 pre-verify'],
      ['rejected', 400, 'SIGNATURE_MISSING'],
    ]);
  });
});

describe('rules changed while the receiver runs', () => {
  it('take effect on the next request and are announced', async () => {
    const fa = await startFaultApp(cleanups);
    const changes: Array<HubEvents['rules']> = [];
    fa.app.hub.on('rules', (e) => changes.push(e));

    expect((await send(fa.app.receiverUrl)).deliveries[0]!.status).toBe('succeeded');

    const added = fa.app.faults.add('410');
    expect(added).toMatchObject({ ok: true, rule: { id: 'r1', line: '410', fired: 0 } });
    const gone = await send(fa.app.receiverUrl);
    expect(gone.finished[0]!.outcome.failureClass).toBe('http_410');

    expect(fa.app.faults.replace('r1', { answer: { kind: 'status', status: 501 } })).toMatchObject({ ok: true, rule: { id: 'r1', line: '501' } });
    const unsupported = await send(fa.app.receiverUrl);
    expect(unsupported.finished[0]!.outcome.failureClass).toBe('http_unsupported');

    expect(fa.app.faults.remove('r1')).toBe(true);
    expect((await send(fa.app.receiverUrl)).deliveries[0]!.status).toBe('succeeded');

    expect(changes.map((c) => c.change)).toEqual(['added r1: 410', 'replaced r1: 501 (was 410)', 'removed r1: 501']);
    expect(changes.map((c) => c.rules.length)).toEqual([1, 1, 0]);
  });
});
