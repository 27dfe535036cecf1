import { describe, expect, it } from 'vitest';
import { ATTEMPT_PAGE_SIZE, readAttempts, readWholeDeliveriesSince, type AttemptSource } from '../../src/conformance/read-attempts.js';
import type { AttemptQuery, AttemptRecord } from '../../src/store/store.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

function record(seq: number, deliveryId: string | null, receivedAt: number): AttemptRecord {
  return {
    seq, deliveryId, trigger: 't', receivedAt, finishedAt: receivedAt + 1, attemptHeader: 1, signatureTimestamp: null,
    bodySha256: 'x', bodyBytes: 1, outcome: 'faulted', status: 500, reason: null, retryAfter: null,
  };
}

/** A store reader over `records` that counts its queries (newest first, as the store answers). */
function source(records: AttemptRecord[]): AttemptSource & { queries: AttemptQuery[] } {
  const queries: AttemptQuery[] = [];
  return {
    queries,
    listAttempts(q) {
      queries.push(q);
      return records
        .filter((r) => (q.deliveryId === undefined || r.deliveryId === q.deliveryId) && (q.before === undefined || r.seq < q.before) && (q.since === undefined || r.receivedAt >= q.since))
        .sort((a, b) => b.seq - a.seq)
        .slice(0, q.limit);
    },
  };
}

describe('readAttempts', () => {
  it('pages through more than one page, oldest first, without repeats', async () => {
    const n = ATTEMPT_PAGE_SIZE * 2 + 7;
    const s = source(Array.from({ length: n }, (_, i) => record(i + 1, `d${i % 3}`, 1000 + i)));
    const all = await readAttempts(s);
    expect(all.map((r) => r.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(s.queries).toHaveLength(3);
    expect(s.queries.map((q) => q.before)).toEqual([undefined, n - ATTEMPT_PAGE_SIZE + 1, n - 2 * ATTEMPT_PAGE_SIZE + 1]);
  });

  it('reads an exact multiple of the page size with one empty page at the end', async () => {
    const s = source(Array.from({ length: ATTEMPT_PAGE_SIZE }, (_, i) => record(i + 1, 'd', i)));
    expect(await readAttempts(s)).toHaveLength(ATTEMPT_PAGE_SIZE);
    expect(s.queries).toHaveLength(2);
  });

  it('stops on a store that ignores the cursor instead of looping', async () => {
    const page = Array.from({ length: ATTEMPT_PAGE_SIZE }, (_, i) => record(ATTEMPT_PAGE_SIZE - i, 'd', i));
    let calls = 0;
    const stubborn: AttemptSource = { listAttempts: () => (calls++, page) };
    await readAttempts(stubborn);
    expect(calls).toBe(2);
  });

  it('passes since and deliveryId on, and works with the async store', async () => {
    const store = createMemoryStore();
    for (const [id, at] of [['a', 10], ['b', 20], ['a', 30]] as const) {
      const { seq: _seq, ...input } = record(0, id, at);
      await store.recordAttempt(input);
    }
    expect((await readAttempts(store, { deliveryId: 'a' })).map((r) => r.receivedAt)).toEqual([10, 30]);
    expect((await readAttempts(store, { since: 20 })).map((r) => r.deliveryId)).toEqual(['b', 'a']);
  });
});

describe('readWholeDeliveriesSince', () => {
  it('takes every attempt of each delivery that has one since the moment, and nothing of the others', async () => {
    const s = source([
      record(1, 'old', 100),
      record(2, 'cut', 150),
      record(3, 'old', 160),
      record(4, 'cut', 250),
      record(5, 'new', 300),
      record(6, null, 310),
      record(7, null, 50),
    ]);
    const got = await readWholeDeliveriesSince(s, 200);
    expect(got.map((r) => [r.seq, r.deliveryId])).toEqual([
      [2, 'cut'],
      [4, 'cut'],
      [5, 'new'],
      [6, null],
    ]);
  });

  it('looks back once per delivery, and reads a whole history only when there is one', async () => {
    const s = source([record(1, 'cut', 100), record(2, 'cut', 250), record(3, 'new', 300)]);
    await readWholeDeliveriesSince(s, 200);
    const byId = s.queries.filter((q) => q.deliveryId !== undefined);
    expect(byId.map((q) => [q.deliveryId, q.limit])).toEqual([
      ['cut', 1],
      ['cut', ATTEMPT_PAGE_SIZE],
      ['new', 1],
    ]);
  });
});
