import { describe, expect, it } from 'vitest';
import { createRowStore, relayText, verdictText } from '../../../web/src/rows.js';
import type { AttemptView, DeliverySummary } from '../../../web/src/types.js';

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
    rows.applyAttempt(attempt(1, { outcome: 'faulted', status: 503, reason: 'rule r1: 503' }), true);
    expect(verdictText(rows.list(all, null)[0]!)).toBe('faulted: rule r1: 503');
    rows.applyAttempt(attempt(2), true);
    rows.applyDelivery(summary({ lastAttemptAt: 2000 }));
    rows.applyAttempt(attempt(3, { outcome: 'duplicate' }), true);
    rows.applyAttempt(attempt(4, { outcome: 'duplicate' }), true);
    const [row] = rows.list(all, null);
    expect(rows.size()).toBe(1);
    expect(verdictText(row!)).toBe('duplicate ×2');
  });

  it('counts an attempt seen twice (backlog and live) once', () => {
    const rows = createRowStore();
    rows.applyDelivery(summary());
    rows.applyAttempt(attempt(3, { outcome: 'duplicate' }), true);
    rows.applyAttempt(attempt(3, { outcome: 'duplicate' }), true);
    expect(rows.list(all, null)[0]!.duplicateCount).toBe(1);
  });

  it('does not let an older arrival overwrite a newer verdict', () => {
    const rows = createRowStore();
    rows.applyAttempt(attempt(5), true);
    rows.applyAttempt(attempt(2, { outcome: 'rejected', reason: 'timestamp_too_old' }), false);
    expect(verdictText(rows.list(all, null)[0]!)).toBe('accepted');
  });

  it('keeps arrivals without a delivery id apart, newest first', () => {
    const rows = createRowStore();
    rows.applyAttempt(attempt(1, { deliveryId: null, outcome: 'rejected', reason: 'missing_signature' }), true);
    rows.applyAttempt(attempt(2, { deliveryId: null, outcome: 'rejected', reason: 'malformed_header' }), true);
    expect(rows.list(all, null).map((r) => r.key)).toEqual(['a:2', 'a:1']);
  });

  it('filters by trigger, status and text, with the server’s body matches', () => {
    const rows = createRowStore();
    rows.applyDelivery(summary({ id: 'a', seq: 1, trigger: 'vendor.rating_dropped' }));
    rows.applyDelivery(summary({ id: 'b', seq: 2, duplicateCount: 2 }));
    rows.applyAttempt(attempt(9, { deliveryId: 'c', outcome: 'faulted', reason: 'hang' }), true);
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
