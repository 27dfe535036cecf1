import { describe, expect, it } from 'vitest';
import { attemptsText, createRowStore, historyText, lastAnswerOf, movedJobs, queuedDeliveries, relayJobsLines, relayJobsText, relayLines, relayText, verdictChipText, verdictClass, verdictText } from '../../../web/src/rows.js';
import type { AttemptTally, AttemptView, DeliverySummary, FeedMessage, RelayJobView } from '../../../web/src/types.js';

const attempt = (seq: number, overrides: Partial<AttemptView> = {}): AttemptView => ({
  seq,
  deliveryId: 'evt_1',
  trigger: 'trustcenter.access_requested',
  receivedAt: 1000 * seq,
  finishedAt: 1000 * seq + 5,
  attemptHeader: seq,
  signatureTimestamp: seq,
  bodySha256: 'ab',
  bodyBytes: 2,
  outcome: 'accepted',
  status: 200,
  reason: null,
  retryAfter: null,
  ...overrides,
});

const summary = (overrides: Partial<DeliverySummary> = {}): DeliverySummary => ({
  seq: 1,
  id: 'evt_1',
  trigger: 'trustcenter.access_requested',
  apiVersion: '2026-06-01',
  apiVersionKnown: true,
  receivedAt: 2000,
  lastAttemptAt: 2000,
  duplicateCount: 0,
  bodyBytes: 2,
  signature: 'valid',
  secretHint: 'whsec…ab',
  signatureTimestamp: 1,
  ...overrides,
});

const all = { trigger: '', status: '' as const, text: '' };

describe('row store', () => {
  it('folds the arrivals of one delivery into one row whose chip follows the latest', () => {
    const rows = createRowStore();
    rows.applyAttempt(attempt(1, { outcome: 'faulted', status: 503, reason: 'rule r1: 503' }));
    expect(verdictText(rows.list(all, null)[0]!)).toBe('faulted: rule r1: 503');
    rows.applyAttempt(attempt(2));
    rows.applyDelivery(summary({ lastAttemptAt: 2000 }));
    rows.applyAttempt(attempt(3, { outcome: 'duplicate' }));
    rows.applyAttempt(attempt(4, { outcome: 'duplicate' }));
    const [row] = rows.list(all, null);
    expect(rows.size()).toBe(1);
    expect(verdictText(row!)).toBe('duplicate ×2');
  });

  it('leads a stored delivery whose latest arrival was refused with what it is, in the text and the colour: the refusal changed nothing stored', () => {
    const rows = createRowStore();
    rows.applyDelivery(summary());
    rows.applyAttempt(attempt(2));
    rows.applyAttempt(attempt(3, { outcome: 'duplicate' }));
    rows.applyAttempt(attempt(4, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' }));
    const [row] = rows.list(all, null);
    expect(verdictText(row!)).toBe('duplicate ×1, then rejected: SIGNATURE_MISMATCH');
    expect(verdictClass(row!)).toBe('duplicate');
    rows.applyAttempt(attempt(5, { outcome: 'faulted', status: 503, reason: 'fault: 503 on attempt 5' }));
    expect(verdictChipText(rows.list(all, null)[0]!)).toBe('duplicate ×1, then faulted: 503 (rule)');
    // The store failing is hookrelay's own trouble: it keeps its colour on a stored row too.
    rows.applyAttempt(attempt(6, { outcome: 'unavailable', status: 503, reason: 'STORE_UNAVAILABLE' }));
    expect(verdictText(rows.list(all, null)[0]!)).toBe('duplicate ×1, then unavailable: store could not write (503)');
    expect(verdictClass(rows.list(all, null)[0]!)).toBe('unavailable');
    // Refused and never stored: the refusal is the verdict, in its own colour.
    const lone = createRowStore();
    lone.applyAttempt(attempt(1, { deliveryId: 'never-stored', outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' }));
    expect(verdictText(lone.list(all, null)[0]!)).toBe('rejected: SIGNATURE_MISMATCH');
    expect(verdictClass(lone.list(all, null)[0]!)).toBe('rejected');
  });

  it('counts an attempt seen twice (backlog and live) once', () => {
    const rows = createRowStore();
    rows.applyDelivery(summary());
    rows.applyAttempt(attempt(3, { outcome: 'duplicate' }));
    rows.applyAttempt(attempt(3, { outcome: 'duplicate' }));
    expect(rows.list(all, null)[0]!.duplicateCount).toBe(1);
  });

  it('does not let an older arrival overwrite a newer verdict', () => {
    const rows = createRowStore();
    rows.applyAttempt(attempt(5));
    rows.applyAttempt(attempt(2, { outcome: 'rejected', reason: 'timestamp_too_old' }));
    expect(verdictText(rows.list(all, null)[0]!)).toBe('accepted');
  });

  it('keeps arrivals without a delivery id apart, newest first', () => {
    const rows = createRowStore();
    rows.applyAttempt(attempt(1, { deliveryId: null, outcome: 'rejected', reason: 'missing_signature' }));
    rows.applyAttempt(attempt(2, { deliveryId: null, outcome: 'rejected', reason: 'malformed_header' }));
    expect(rows.list(all, null).map((r) => r.key)).toEqual(['a:2', 'a:1']);
  });

  it('filters by trigger, status and text, with the server’s body matches', () => {
    const rows = createRowStore();
    rows.applyDelivery(summary({ id: 'a', seq: 1, trigger: 'vendor.rating_dropped' }));
    rows.applyDelivery(summary({ id: 'b', seq: 2, duplicateCount: 2 }));
    rows.applyAttempt(attempt(9, { deliveryId: 'c', outcome: 'faulted', reason: 'hang' }));
    const keys = (f: Partial<typeof all>, server: Set<string> | null = null) => rows.list({ ...all, ...f } as typeof all, server).map((r) => r.key).sort();
    expect(keys({ trigger: 'vendor.rating_dropped' })).toEqual(['d:a']);
    expect(keys({ status: 'duplicate' } as never)).toEqual(['d:b']);
    expect(keys({ status: 'faulted' } as never)).toEqual(['d:c']);
    expect(keys({ status: 'accepted' } as never)).toEqual(['d:a', 'd:b']);
    expect(keys({ text: 'HANG' })).toEqual(['d:c']);
    expect(keys({ text: 'body-only' }, new Set(['d:a']))).toEqual(['d:a']);
  });

  it('removes a deleted delivery and keeps the newest relay try', () => {
    const rows = createRowStore();
    rows.applyDelivery(summary());
    rows.applyRelay('evt_1', { at: 5, ok: true, status: 200, latencyMs: 1, replay: false });
    rows.applyRelay('evt_1', { at: 3, ok: false, status: 500, latencyMs: 1, replay: false });
    expect(relayText(rows.list(all, null)[0]!.relay)).toBe('relayed 200');
    rows.remove('evt_1');
    expect(rows.size()).toBe(0);
  });

  it('keeps a fan-out\'s jobs from the list, and moves the job of a feed try\'s target (never for a replay, nor an older try)', () => {
    const A = 'http://127.0.0.1:3000/hooks';
    const B = 'http://[redacted]@127.0.0.1:3001/audit';
    const job = (target: string, state: RelayJobView['state']): RelayJobView => ({ state, tries: 1, nextAt: state === 'pending' ? 9 : null, target, lastStatus: null, lastError: null });
    const rows = createRowStore();
    rows.applyDelivery(summary({ relay: { at: 5, ok: true, status: 204, latencyMs: 1, replay: false, target: A }, relayJobs: [job(A, 'done'), job(B, 'pending')] }));
    const row = () => rows.list(all, null)[0]!;
    expect(relayJobsText(row().relayJobs)).toBe('1 pending, 1 done (2 targets)');
    rows.applyRelay('evt_1', { at: 6, ok: false, status: 503, latencyMs: 1, replay: true, target: B });
    expect(relayJobsText(row().relayJobs)).toBe('1 pending, 1 done (2 targets)');
    rows.applyRelay('evt_1', { at: 7, ok: false, status: 503, latencyMs: 1, replay: false, target: B, error: 'responded 503', nextRetryAt: null });
    expect(relayJobsText(row().relayJobs)).toBe('1 dead, 1 done (2 targets)');
    expect(relayJobsLines(row().relayJobs)).toEqual([`${A}: done`, `${B}: dead (503)`]);
    rows.applyRelay('evt_1', { at: 4, ok: true, status: 204, latencyMs: 1, replay: false, target: B, nextRetryAt: null });
    expect(row().relayJobs![1]!.state).toBe('dead');
    // A list read older than the newest try the row saw keeps the row's jobs.
    rows.applyDelivery(summary({ relay: { at: 5, ok: true, status: 204, latencyMs: 1, replay: false, target: A }, relayJobs: [job(A, 'done'), job(B, 'pending')] }));
    expect(row().relayJobs![1]!.state).toBe('dead');
    // One job says nothing more than the relay cell.
    expect(relayJobsText([job(A, 'dead')])).toBeNull();
    expect(movedJobs([job(A, 'pending')], { at: 1, ok: true, status: 200, latencyMs: 1, replay: false, target: A })).toEqual([job(A, 'pending')]);
  });

  it("reads a job's last answer by its name, or by the old name an older server sends", () => {
    const job = { state: 'dead', tries: 1, nextAt: null, target: 'http://127.0.0.1:3000/hooks', lastError: null } as const;
    expect(lastAnswerOf({ ...job, lastResponseStatus: 502, lastStatus: 502 })).toBe(502);
    expect(lastAnswerOf({ ...job, lastStatus: 503 })).toBe(503);
    expect(lastAnswerOf({ ...job, lastResponseStatus: null, lastStatus: null })).toBeNull();
    expect(lastAnswerOf(job)).toBeNull();
    expect(relayJobsLines([{ ...job, lastResponseStatus: 500 }, { ...job, state: 'done', lastStatus: 204 }])).toEqual([`${job.target}: dead (500)`, `${job.target}: done (204)`]);
  });
});

const tally = (throughSeq: number, byOutcome: Partial<AttemptTally['byOutcome']>): AttemptTally => {
  const counts = { accepted: 0, duplicate: 0, rejected: 0, faulted: 0, unavailable: 0, ...byOutcome };
  return { throughSeq, total: Object.values(counts).reduce((a, b) => a + b, 0), truncated: false, byOutcome: counts };
};

/** Every order of `items` (small arrays only). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('duplicate count merged by version (issue 13, item 10)', () => {
  // The delivery was accepted (seq 1) and received twice more (seqs 2 and 3). The page loads the API
  // (which counted all three) while the feed replays its backlog: the stored-for-the-first-time
  // message (count 0) and the three arrivals.
  type Step = (rows: ReturnType<typeof createRowStore>) => void;
  const steps: Record<string, Step> = {
    api: (rows) => rows.applyDelivery(summary({ duplicateCount: 2, lastAttemptAt: 3000, latestAttempt: attempt(3, { outcome: 'duplicate' }), attempts: tally(3, { accepted: 1, duplicate: 2 }) })),
    storedMessage: (rows) => rows.applyDelivery(summary({ duplicateCount: 0, lastAttemptAt: 1000 })),
    a1: (rows) => rows.applyAttempt(attempt(1)),
    a2: (rows) => rows.applyAttempt(attempt(2, { outcome: 'duplicate' })),
    a3: (rows) => rows.applyAttempt(attempt(3, { outcome: 'duplicate' })),
  };

  it.each(permutations(Object.keys(steps)).map((order) => [order.join(' → '), order]))('%s gives ×2', (_name, order) => {
    const rows = createRowStore();
    for (const name of order as string[]) steps[name]!(rows);
    const row = rows.list(all, null)[0]!;
    expect(verdictText(row)).toBe('duplicate ×2');
    expect(attemptsText(row)).toBe('3');
    // A later arrival adds; the same one replayed again does not.
    rows.applyAttempt(attempt(4, { outcome: 'duplicate' }));
    rows.applyAttempt(attempt(4, { outcome: 'duplicate' }));
    expect(verdictText(rows.list(all, null)[0]!)).toBe('duplicate ×3');
  });

  it('keeps the newer tally when an older API page answers last', () => {
    const rows = createRowStore();
    rows.applyDelivery(summary({ duplicateCount: 3, attempts: tally(7, { accepted: 1, duplicate: 3 }) }));
    rows.applyDelivery(summary({ duplicateCount: 1, attempts: tally(4, { accepted: 1, duplicate: 1 }) }));
    expect(rows.list(all, null)[0]!.duplicateCount).toBe(3);
  });
});

describe('row history (issue 13, items 12 and 14)', () => {
  it('shows a delivery faulted five times and then accepted', () => {
    const rows = createRowStore();
    for (let seq = 1; seq <= 5; seq++) rows.applyAttempt(attempt(seq, { outcome: 'faulted', status: 503, reason: 'rule r1: 503' }));
    rows.applyAttempt(attempt(6));
    const row = rows.list(all, null)[0]!;
    expect(verdictText(row)).toBe('accepted');
    expect(historyText(row)).toBe('after 5 faulted');
    expect(attemptsText(row)).toBe('6');
    // The same from the API's tally alone.
    const loaded = createRowStore();
    loaded.applyDelivery(summary({ latestAttempt: attempt(6), attempts: tally(6, { faulted: 5, accepted: 1 }) }));
    expect(historyText(loaded.list(all, null)[0]!)).toBe('after 5 faulted');
    expect(attemptsText(loaded.list(all, null)[0]!)).toBe('6');
  });

  it('says nothing more for a delivery accepted at once, and counts earlier refusals of a refused one', () => {
    const rows = createRowStore();
    rows.applyAttempt(attempt(1));
    expect(historyText(rows.list(all, null)[0]!)).toBeNull();
    rows.applyAttempt(attempt(2, { deliveryId: 'evt_2', outcome: 'rejected', reason: 'timestamp_too_old' }));
    rows.applyAttempt(attempt(3, { deliveryId: 'evt_2', outcome: 'rejected', reason: 'timestamp_too_old' }));
    expect(historyText(rows.get('d:evt_2')!)).toBe('before: 1 rejected');
  });

  it('counts queued deliveries, not feed messages, for "Resume (N new)"', () => {
    const messages: FeedMessage[] = [
      { n: 1, type: 'attempt', data: attempt(1, { deliveryId: 'evt_a' }) },
      { n: 2, type: 'delivery', data: summary({ id: 'evt_a' }) },
      { n: 3, type: 'relay', data: { deliveryId: 'evt_a', at: 1, ok: true, status: 200, latencyMs: 1, replay: false } },
      { n: 4, type: 'attempt', data: attempt(2, { deliveryId: 'evt_a', outcome: 'duplicate' }) },
      { n: 5, type: 'attempt', data: attempt(3, { deliveryId: 'evt_b', outcome: 'faulted' }) },
      { n: 6, type: 'attempt', data: attempt(4, { deliveryId: null, outcome: 'rejected' }) },
      { n: 7, type: 'attempt', data: attempt(5, { deliveryId: null, outcome: 'rejected' }) },
    ];
    expect(queuedDeliveries(messages)).toBe(4);
  });
});

describe('relayText', () => {
  it.each([
    [null, '—'],
    [{ at: 1, ok: true, status: 204, latencyMs: 1, replay: true }, 'replay relayed 204'],
    [{ at: 1, ok: false, status: 503, latencyMs: 1, replay: false, nextRetryAt: 9 }, 'relay failed: HTTP 503, retrying'],
    [{ at: 1, ok: false, status: null, latencyMs: 1, replay: false, error: 'ECONNREFUSED' }, 'relay failed: ECONNREFUSED'],
  ])('%j → %s', (relay, text) => {
    expect(relayText(relay)).toBe(text);
  });
});

describe('relayLines (issue 36, item 9)', () => {
  it.each([
    [null, ['—', null]],
    [{ at: 1, ok: true, status: 204, latencyMs: 1, replay: false }, ['relayed 204', null]],
    [{ at: 1, ok: false, status: 503, latencyMs: 1, replay: false, nextRetryAt: 9 }, ['relay failed', 'HTTP 503, retrying']],
    [{ at: 1, ok: false, status: null, latencyMs: 1, replay: true, error: 'connect ECONNREFUSED 127.0.0.1:3999; gave up after 3 tries' }, ['replay relay failed', 'connect ECONNREFUSED 127.0.0.1:3999; gave up after 3 tries']],
    [{ at: 1, ok: false, status: null, latencyMs: 1, replay: false }, ['relay failed', 'no answer']],
  ])('%j → %j: what happened, then why (each line cut to the column)', (relay, lines) => {
    expect(relayLines(relay)).toEqual(lines);
  });
});

describe('verdictChipText', () => {
  it('shortens a fault rule to its answer in the chip; the title (verdictText) keeps it whole', () => {
    const row = { outcome: 'faulted' as const, duplicateCount: 0, reason: 'fault:503 retry-after=10 trigger=control.drift_detected attempt=1-2', status: 503, stored: false };
    expect(verdictChipText(row)).toBe('faulted: 503 (rule)');
    expect(verdictText(row)).toBe('faulted: fault:503 retry-after=10 trigger=control.drift_detected attempt=1-2');
    expect(verdictChipText({ ...row, outcome: 'rejected', reason: 'SIGNATURE_MISMATCH', status: 400 })).toBe('rejected: SIGNATURE_MISMATCH');
    expect(verdictChipText({ ...row, reason: null, status: null })).toBe('faulted: HTTP no answer');
  });
});

