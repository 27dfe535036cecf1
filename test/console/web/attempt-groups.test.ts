import { describe, expect, it } from 'vitest';
import { finalArrival, refusedAttempts, senderAttempts } from '../../../web/src/attempt-groups.js';
import type { AttemptView } from '../../../web/src/types.js';

const arrival = (seq: number, overrides: Partial<AttemptView> = {}): AttemptView => ({
  seq,
  deliveryId: 'evt_1',
  trigger: 'trustcenter.access_requested',
  receivedAt: 1000 * seq,
  finishedAt: 1000 * seq + 5,
  attemptHeader: 1,
  signatureTimestamp: 1,
  bodySha256: 'ab',
  bodyBytes: 2,
  outcome: 'faulted',
  status: 307,
  reason: null,
  retryAfter: null,
  ...overrides,
});

describe('senderAttempts', () => {
  it('gathers the arrivals the API numbered as one attempt, hops in order, and numbers each attempt as the API did', () => {
    const list = [
      arrival(1, { senderAttempt: 1, hop: 0 }),
      arrival(2, { senderAttempt: 1, hop: 1 }),
      arrival(3, { senderAttempt: 1, hop: 2, outcome: 'accepted', status: 200 }),
      arrival(4, { senderAttempt: 2, hop: 0, outcome: 'duplicate', status: 200 }),
    ];
    const groups = senderAttempts(list);
    expect(groups.map((g) => [g.number, g.arrivals.map((a) => a.seq)])).toEqual([[1, [1, 2, 3]], [2, [4]]]);
    expect(finalArrival(groups[0]!).outcome).toBe('accepted');
  });

  it('lets an arrival without a number (a lone row, an older API) stand alone', () => {
    expect(senderAttempts([arrival(1), arrival(2)]).map((g) => [g.number, g.arrivals.length])).toEqual([[1, 1], [2, 1]]);
  });
});

describe('refusedAttempts', () => {
  it('counts attempts whose final answer was a refusal, not the hops that led on to an accept', () => {
    const list = [
      arrival(1, { senderAttempt: 1, outcome: 'faulted', status: 503 }),
      arrival(2, { senderAttempt: 2, hop: 0 }),
      arrival(3, { senderAttempt: 2, hop: 1, outcome: 'accepted', status: 200 }),
    ];
    expect(refusedAttempts(list)).toBe(1);
  });
});
