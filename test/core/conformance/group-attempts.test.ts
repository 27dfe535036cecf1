import { describe, expect, it } from 'vitest';
import { foldAttempts, groupDeliveries, splitSenderAttempts } from '../../../src/core/conformance/group-attempts.js';
import { T0, delivery, records, sha } from './builder.js';

const ids = (groups: ReturnType<typeof groupDeliveries>) => groups.map((g) => g.map((r) => r.deliveryId));

describe('groupDeliveries', () => {
  it('groups by delivery id, each in arrival order, ordered by first arrival', () => {
    const a = delivery({ id: 'a' }).attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 60_000 });
    const b = delivery({ id: 'b', start: T0 + 1000 }).attempt({ answer: 200 });
    const groups = groupDeliveries(records(a, b).reverse());
    expect(ids(groups)).toEqual([['a', 'a'], ['b']]);
    expect(groups[0]!.map((r) => r.receivedAt)).toEqual([T0, T0 + 20 + 60_000]);
  });

  it('joins a record sent under another id (or none) with identical body bytes', () => {
    const a = delivery({ id: 'a' }).attempt({ answer: 503 }).attempt({ answer: 400, gapMs: 60_000, id: 'z', reason: 'DELIVERY_ID_MISMATCH' });
    a.attempt({ answer: 400, gapMs: 60_000, id: null, reason: 'DELIVERY_ID_MISMATCH' });
    expect(ids(groupDeliveries(records(a)))).toEqual([['a', 'z', null]]);
  });

  it('names a joined group by its first arrival, whichever id links last', () => {
    const z = delivery({ id: 'z', body: 'same' }).attempt({ answer: 400 });
    const a = delivery({ id: 'a', body: 'other', start: T0 + 1 }).attempt({ answer: 200 });
    const bridge = delivery({ id: 'a', body: 'same', start: T0 + 2 }).attempt({ answer: 200 });
    expect(ids(groupDeliveries(records(a, bridge, z)))).toEqual([['z', 'a', 'a']]);
  });

  it('does not join empty bodies', () => {
    const list = records(
      delivery({ id: 'a', body: '' }).attempt({ answer: 400 }),
      delivery({ id: 'b', body: '', start: T0 + 5 }).attempt({ answer: 400 }),
    );
    expect(list[0]!.bodySha256).toBe(sha(''));
    expect(ids(groupDeliveries(list))).toEqual([['a'], ['b']]);
  });

  it('keeps records with neither id nor body apart', () => {
    const list = records(
      delivery({ body: '' }).attempt({ answer: 400, id: null }),
      delivery({ body: '', start: T0 + 5 }).attempt({ answer: 400, id: null }),
    );
    expect(groupDeliveries(list)).toHaveLength(2);
  });
});

describe('foldAttempts', () => {
  const options = { attemptTimeoutSeconds: 10 };

  it('computes gaps from the previous end, durations, and classes', () => {
    const t = foldAttempts(records(delivery().attempt({ answer: 'hang' }).attempt({ answer: 200, gapMs: 60_000 })), options);
    expect(t.map((a) => [a.position, a.gapMs, a.durationMs, a.answerClass])).toEqual([[1, null, 10_000, 'timeout'], [2, 60_000, 20, 'success']]);
  });

  it('folds followed redirect hops: same header, t and body, right after the 3xx', () => {
    const t = foldAttempts(records(delivery().attempt({ answer: 'hang', hops: 2 })), options);
    expect(t).toHaveLength(1);
    expect(t[0]).toMatchObject({ hops: 2, status: null, answerClass: 'timeout', receivedAt: T0, lastHopReceivedAt: T0 + 10, finishedAt: T0 + 10_010 });
  });

  it('does not fold a new attempt after a 3xx (new header), nor a late repeat', () => {
    const retried = foldAttempts(records(delivery().attempt({ answer: 307 }).attempt({ answer: 200, gapMs: 60_000 })), options);
    expect(retried.map((a) => a.hops)).toEqual([0, 0]);
    const t = Math.floor(T0 / 1000);
    const late = foldAttempts(records(delivery().attempt({ answer: 307, t }).attempt({ answer: 200, gapMs: 2001, header: 1, t })), options);
    expect(late).toHaveLength(2);
    const prompt = foldAttempts(records(delivery().attempt({ answer: 307, t }).attempt({ answer: 200, gapMs: 2000, header: 1, t })), options);
    expect(prompt).toHaveLength(1);
  });
});

describe('splitSenderAttempts', () => {
  it('is the split the judge folds: the console and events show list the attempts the verdict counts', () => {
    const list = records(
      delivery()
        .attempt({ answer: 200, hops: 3 })
        .attempt({ answer: 503, gapMs: 60_000 })
        .attempt({ answer: 'hang', gapMs: 60_000, hops: 1 })
        .attempt({ answer: 200, gapMs: 60_000, header: null }),
    );
    const split = splitSenderAttempts(list);
    expect(split.map((hops) => hops.length)).toEqual([4, 1, 2, 1]);
    expect(split.map((hops) => hops.map((r) => r.seq))).toEqual(foldAttempts(list, { attemptTimeoutSeconds: 10 }).map((a) => a.seqs));
  });

  it('keeps a 3xx apart from a later arrival that is a new attempt (another attempt header or t, or after 2 s)', () => {
    const list = records(delivery().attempt({ answer: 307 }).attempt({ answer: 200, gapMs: 100, header: 2 }).attempt({ answer: 307, gapMs: 60_000, header: 3, t: 5 }).attempt({ answer: 200, gapMs: 2001, header: 3, t: 5 }));
    expect(splitSenderAttempts(list).map((hops) => hops.length)).toEqual([1, 1, 1, 1]);
  });
});
