import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinHeaderPairs, joinHeaders } from '../../../src/core/limits.js';
import type { AttemptInput } from '../../../src/core/records.js';
import { decodeBatch, encodeBatch, type PackedAttempt, type WriteRequest } from '../../../src/store/sqlite/batch-codec.js';
import { attemptFor, makeDelivery } from '../../helpers/fixtures.js';

/** An attempt as the writer is given it: hints and kept header lines as their columns' text (an accepted one keeps no request). */
function packed({ hints, request, ...rest }: AttemptInput): PackedAttempt {
  const kept = rest.outcome === 'accepted' ? undefined : request;
  return {
    ...rest,
    hintsJson: hints && hints.length > 0 ? JSON.stringify(hints) : null,
    requestLines: kept ? joinHeaderPairs(kept.headers) : null,
    requestBody: kept?.body ?? null,
  };
}

describe('batch codec', () => {
  it('round-trips accepts and attempts, bodies byte for byte, nulls as nulls', () => {
    const delivery = makeDelivery({ rawBody: Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff, 0x00, 0x7d]), secretIndex: null, signatureTimestamp: null });
    const requests: WriteRequest[] = [
      { kind: 'accept', ticket: 7, delivery, attempt: attemptFor(delivery) },
      { kind: 'attempt', ticket: 8, attempt: attemptFor(null, { outcome: 'rejected', status: null, reason: 'x', retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT', attemptHeader: null }) },
    ];
    const [accept, attempt] = decodeBatch(encodeBatch(requests));
    expect(accept).toMatchObject({ kind: 'accept', ticket: 7, attempt: packed((requests[0] as { attempt: AttemptInput }).attempt) });
    if (accept!.kind !== 'accept') throw new Error('kind');
    const { rawHeaders, rawBody, ...rest } = delivery;
    expect(accept!.delivery).toMatchObject(rest);
    expect(accept!.delivery.rawBody.equals(rawBody)).toBe(true);
    expect(accept!.delivery.headerLines).toBe(joinHeaders(rawHeaders));
    expect(attempt).toEqual({ ...requests[1], attempt: packed((requests[1] as { attempt: AttemptInput }).attempt) });
  });

  it('round-trips a named operation with JSON arguments', () => {
    const [op] = decodeBatch(encodeBatch([{ kind: 'op', ticket: 3, name: 'requeueRelay', args: ['id-\u00e9', 42] }]));
    expect(op).toEqual({ kind: 'op', ticket: 3, name: 'requeueRelay', args: ['id-\u00e9', 42] });
  });

  it('carries a relay try\'s kept answer as bytes: its body exact, its header pairs as their column\'s JSON', () => {
    const body = Buffer.from([0x3c, 0x73, 0xff, 0x00, 0xfe]);
    const outcome = { deliverySeq: 4, startedAt: 1, finishedAt: 2, status: 502, error: 'responded 502', replay: false, target: 'http://127.0.0.1:1/h', try: 3, next: { state: 'pending' as const, nextAt: 9 } };
    const answer = { headers: [['X-Evil', '<script>\u00ff\t']] as Array<[string, string]>, headerLines: 7, body, bodyBytes: 70_000, complete: false };
    const [withAnswer, without] = decodeBatch(encodeBatch([
      { kind: 'op', ticket: 5, name: 'recordRelay', args: [{ ...outcome, answer }] },
      { kind: 'op', ticket: 6, name: 'recordRelay', args: [{ ...outcome, answer: null }] },
    ]));
    if (withAnswer?.kind !== 'relay' || without?.kind !== 'relay') throw new Error('kind');
    expect(withAnswer).toMatchObject({ ticket: 5, outcome, answer: { headerLines: 7, bodyBytes: 70_000, complete: false } });
    expect(withAnswer.answer!.body.equals(body)).toBe(true);
    expect(JSON.parse(withAnswer.answer!.headersJson)).toEqual(answer.headers);
    expect(without).toEqual({ kind: 'relay', ticket: 6, outcome, answer: null });
  });

  it('round-trips any relay outcome field by field: each next state, nulls, any strings and header pairs', () => {
    const next = fc.oneof(
      fc.constant(null),
      fc.constant({ state: 'done' as const }),
      fc.constant({ state: 'dead' as const }),
      fc.record({ state: fc.constant('pending' as const), nextAt: fc.nat() }),
    );
    const answer = fc.option(fc.record({
      headers: fc.array(fc.tuple(fc.string({ unit: 'grapheme', maxLength: 120 }), fc.string({ maxLength: 200 })), { maxLength: 5 }),
      headerLines: fc.nat(),
      body: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      bodyBytes: fc.nat(),
      complete: fc.boolean(),
    }));
    fc.assert(
      fc.property(
        fc.record({
          deliverySeq: fc.nat(), startedAt: fc.nat(), finishedAt: fc.nat(), status: fc.option(fc.integer({ min: 100, max: 599 })),
          error: fc.option(fc.string({ unit: 'grapheme', maxLength: 150 })), replay: fc.boolean(), target: fc.string({ unit: 'grapheme' }), try: fc.nat(), next, answer,
          jobTarget: fc.option(fc.string({ unit: 'grapheme' }), { nil: undefined }),
        }, { requiredKeys: ['deliverySeq', 'startedAt', 'finishedAt', 'status', 'error', 'replay', 'target', 'try', 'next', 'answer'] }),
        (o) => {
          const [decoded] = decodeBatch(encodeBatch([{ kind: 'op', ticket: 9, name: 'recordRelay', args: [o] }]));
          if (decoded?.kind !== 'relay') return false;
          const { answer: a, ...outcome } = o;
          expect(decoded.outcome).toEqual(outcome);
          if (a === null) return decoded.answer === null;
          expect(decoded.answer).toMatchObject({ headerLines: a.headerLines, bodyBytes: a.bodyBytes, complete: a.complete });
          expect(JSON.parse(decoded.answer!.headersJson)).toEqual(a.headers);
          return decoded.answer!.body.equals(a.body);
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });

  it('round-trips any strings and bodies', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), fc.uint8Array({ maxLength: 2000 }), (id, reason, body) => {
        const delivery = makeDelivery({ id, rawBody: Buffer.from(body) });
        const [decoded] = decodeBatch(encodeBatch([{ kind: 'accept', ticket: 1, delivery, attempt: attemptFor(delivery, { reason }) }]));
        if (decoded!.kind !== 'accept') return false;
        return decoded!.delivery.id === id && decoded!.attempt.reason === reason && decoded!.delivery.rawBody.equals(Buffer.from(body));
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('sends only what an accepted attempt adds to its delivery, and still gives back every attempt exactly', () => {
    const base = makeDelivery({ id: 'd'.repeat(300), trigger: 'vendor.created' });
    // As the receiver makes it: the attempt repeats the delivery's fields (id and trigger capped at 256); its finishing time travels.
    const matching = attemptFor(null, {
      deliveryId: base.id.slice(0, 256), trigger: base.trigger, receivedAt: base.receivedAt, finishedAt: base.receivedAt,
      signatureTimestamp: base.signatureTimestamp, bodySha256: 'ab'.repeat(32), bodyBytes: base.rawBody.length, attemptHeader: 3, status: 204, reason: 'rule 2 passed',
    });
    const slim = encodeBatch([{ kind: 'accept', ticket: 1, delivery: base, attempt: matching }]);
    const full = encodeBatch([{ kind: 'accept', ticket: 1, delivery: base, attempt: { ...matching, trigger: 'other.trigger' } }]);
    expect(slim.length).toBeLessThan(full.length - 256);
    fc.assert(
      fc.property(
        fc.record({
          deliveryId: fc.constantFrom(base.id.slice(0, 256), base.id, 'other'),
          trigger: fc.constantFrom(base.trigger, 'other.trigger'),
          finishedAt: fc.constantFrom(base.receivedAt, base.receivedAt + 5),
          signatureTimestamp: fc.constantFrom(base.signatureTimestamp, null, 7),
          bodyBytes: fc.constantFrom(base.rawBody.length, 1),
          outcome: fc.constantFrom('accepted' as const, 'duplicate' as const),
          retryAfter: fc.constantFrom(null, '5'),
          attemptHeader: fc.option(fc.integer({ min: 1, max: 99 })),
          reason: fc.option(fc.string()),
        }),
        (overrides) => {
          const attempt = { ...matching, ...overrides };
          const [decoded] = decodeBatch(encodeBatch([{ kind: 'accept', ticket: 2, delivery: base, attempt }]));
          expect(decoded!.kind === 'accept' && decoded!.attempt).toEqual(packed(attempt));
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it("gives the writer an attempt's hints and kept request as their columns' text, the body byte for byte", () => {
    const body = Buffer.from([0x7b, 0xff, 0x00]);
    const attempt = attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', hints: ['secret #1 has "quotes"', 'two'], request: { headers: [['X-A', 'a: b'], ['x-b', '']], body } });
    const [decoded] = decodeBatch(encodeBatch([{ kind: 'attempt', ticket: 1, attempt }]));
    if (decoded?.kind !== 'attempt') throw new Error('kind');
    expect(decoded.attempt.hintsJson).toBe('["secret #1 has \\"quotes\\"","two"]');
    expect(decoded.attempt.requestLines).toBe('X-A: a: b\nx-b: \n');
    expect(decoded.attempt.requestBody!.equals(body)).toBe(true);
  });

  it('grows past its first buffer for a large batch', () => {
    const requests: WriteRequest[] = Array.from({ length: 100 }, (_, i) => {
      const d = makeDelivery({ rawBody: Buffer.alloc(1000, i) });
      return { kind: 'accept', ticket: i, delivery: d, attempt: attemptFor(d) };
    });
    expect(decodeBatch(encodeBatch(requests)).map((r) => r.ticket)).toEqual(requests.map((r) => r.ticket));
  });
});
