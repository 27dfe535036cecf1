/**
 * The attempt and relay log lines are written as text, field by field: for any record they must be
 * exactly what JSON.stringify of the same fields as an object gives (undefined fields left out),
 * whatever the hostile sender put in an id, a trigger or a hint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../src/core/records.js';
import { attemptLine, relayLine } from '../../src/reporter/json-logger.js';

// Lone surrogates inside other text too ('binary' units leave them out).
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('a', '\ud800', '\udc00', '"', '\\', '\n', '\u2028') }),
  fc.constantFrom('"', '\\', '\u2028', '\u0000', '</script>', '\ud800'),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(Number.NaN, Infinity));

const attempt: fc.Arbitrary<AttemptRecord> = fc.record(
  {
    seq: fc.nat(),
    deliveryId: maybe(text),
    trigger: maybe(text),
    receivedAt: number,
    finishedAt: number,
    attemptHeader: maybe(fc.nat()),
    signatureTimestamp: maybe(fc.integer()),
    bodySha256: fc.string(),
    bodyBytes: fc.nat(),
    outcome: fc.constantFrom('accepted', 'duplicate', 'rejected', 'faulted', 'unavailable' as const),
    status: maybe(fc.integer({ min: 100, max: 599 })),
    reason: maybe(text),
    retryAfter: maybe(text),
    hints: fc.array(text, { maxLength: 3 }),
  },
  { requiredKeys: ['seq', 'deliveryId', 'trigger', 'receivedAt', 'finishedAt', 'attemptHeader', 'signatureTimestamp', 'bodySha256', 'bodyBytes', 'outcome', 'status', 'reason', 'retryAfter'] },
);

/** Both lines carry the time of writing: compared with it taken out. */
const withoutTime = (line: string) => {
  const parsed = JSON.parse(line) as Record<string, unknown>;
  expect(typeof parsed.time).toBe('string');
  return line.replace(/"time":"[^"]*"/, '"time":""');
};

describe('JSON log lines written as text', () => {
  it('an attempt line is JSON.stringify of its fields, byte for byte', () => {
    fc.assert(
      fc.property(attempt, fc.option(text, { nil: undefined }), fc.boolean(), (a, requestId, skipVerify) => {
        const expected = JSON.stringify({
          level: { accepted: 'info', duplicate: 'info', faulted: 'info', rejected: 'warn', unavailable: 'error' }[a.outcome],
          time: '',
          pid: process.pid,
          event: 'attempt',
          requestId,
          deliveryId: a.deliveryId,
          trigger: a.trigger,
          receivedAt: a.receivedAt,
          finishedAt: a.finishedAt,
          attemptHeader: a.attemptHeader,
          signatureTimestamp: a.signatureTimestamp,
          bodySha256: a.bodySha256,
          bodyBytes: a.bodyBytes,
          outcome: a.outcome,
          status: a.status,
          reason: a.reason,
          retryAfter: a.retryAfter,
          hints: a.hints,
          verified: skipVerify ? false : undefined,
          msg: `${a.status ?? '---'} ${a.outcome}`,
        });
        expect(withoutTime(attemptLine(a, requestId, skipVerify))).toBe(expected);
      }),
    );
  });

  it('a relay line is JSON.stringify of its fields, byte for byte', () => {
    const relay = fc.record(
      { deliveryId: text, status: maybe(fc.integer()), ok: fc.boolean(), latencyMs: number, replay: fc.boolean(), target: text, error: text, nextRetryAt: maybe(number) },
      { requiredKeys: ['deliveryId', 'status', 'ok', 'latencyMs', 'replay', 'target'] },
    );
    fc.assert(
      fc.property(relay, (r) => {
        const expected = JSON.stringify({
          level: r.ok ? 'info' : 'warn', time: '', pid: process.pid, event: 'relay',
          deliveryId: r.deliveryId, status: r.status, ok: r.ok, latencyMs: r.latencyMs, replay: r.replay, target: r.target, error: r.error, nextRetryAt: r.nextRetryAt,
          msg: `relay ${r.ok ? 'forwarded' : 'failed'}`,
        });
        expect(withoutTime(relayLine(r))).toBe(expected);
      }),
    );
  });
});
