import { describe, expect, it } from 'vitest';
import { faultAnswerLabel, reasonLabel, statusClass, statusLabel } from '../../src/metrics/labels.js';
import type { AttemptRecord } from '../../src/store/store.js';

const attempt = (over: Partial<AttemptRecord>): AttemptRecord => ({
  seq: 0, deliveryId: 'd', trigger: 't', receivedAt: 0, finishedAt: 0, attemptHeader: 1, signatureTimestamp: null,
  bodySha256: '', bodyBytes: 0, outcome: 'accepted', status: 200, reason: null, retryAfter: null, ...over,
});

describe('metric labels stay bounded', () => {
  it.each([
    [null, 'none'],
    ['', 'none'],
    ['SIGNATURE_MISMATCH', 'SIGNATURE_MISMATCH'],
    ['STORE_UNAVAILABLE', 'STORE_UNAVAILABLE'],
    ['fault:503 retry-after=120 attempt=1', 'fault'],
    ['app answered 500', 'other'],
    ['<script>', 'other'],
    [`A${'B'.repeat(100)}`, 'other'],
  ])('reason %j → %s', (reason, label) => {
    expect(reasonLabel(reason)).toBe(label);
  });

  it.each([
    [attempt({ outcome: 'faulted', status: 503, reason: 'fault:503' }), '503'],
    [attempt({ outcome: 'faulted', status: null, reason: 'fault:hang' }), 'no_response'],
    [attempt({ outcome: 'accepted', status: 200, reason: 'fault:delay=100' }), 'pass'],
    [attempt({ outcome: 'accepted', status: 200, reason: null }), null],
    [attempt({ outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' }), null],
  ])('fault answer of %o → %s', (a, label) => {
    expect(faultAnswerLabel(a)).toBe(label);
  });

  it.each([
    [200, '200', '2xx'],
    [503, '503', '5xx'],
    [null, 'none', 'none'],
    [42, 'other', 'none'],
    [1000, 'other', 'none'],
  ])('status %s → %s, %s', (status, label, cls) => {
    expect(statusLabel(status)).toBe(label);
    expect(statusClass(status)).toBe(cls);
  });
});
