/** sender-answer.ts: what the sender is told when the app refuses a sync hand-off, and the words a log line gives it. */
import { describe, expect, it } from 'vitest';
import type { TargetAnswer } from '../../src/handoff/post-to-target.js';
import { senderAnswerFor, targetRefusalWords } from '../../src/handoff/sender-answer.js';

describe('targetRefusalWords', () => {
  it.each<[string, TargetAnswer, string, string]>([
    ['a 500', { status: 500, error: null, latencyMs: 1 }, 'app refused', 'the app answered 500: passed on to the sender, not stored'],
    ['a 429', { status: 429, error: null, latencyMs: 1 }, 'app refused', 'the app answered 429: passed on to the sender, not stored'],
    ['a redirect', { status: 302, error: null, latencyMs: 1 }, 'app refused', 'the app answered 302 (a redirect: not followed): the sender got 502, not stored'],
    ['a 199', { status: 199, error: null, latencyMs: 1 }, 'app refused', 'the app answered 199: the sender got 502, not stored'],
    ['a timeout', { status: null, error: 'timeout after 10000 ms', latencyMs: 10_000 }, 'app failed', 'the app did not answer in time: the sender got 504, not stored'],
    ['no connection', { status: null, error: 'connect ECONNREFUSED 127.0.0.1:9', latencyMs: 0 }, 'app failed', 'the app could not be reached: the sender got 502, not stored'],
  ])('%s: says what the app did and what the sender got', (_name, answer, label, words) => {
    const told = senderAnswerFor(answer);
    expect(targetRefusalWords(told.code, told.status)).toEqual({ label, words });
  });

  it.each(['SIGNATURE_MISMATCH', 'TARGET_STATUS_', 'TARGET_STATUS_5000', 'X_TARGET_TIMEOUT', 'TARGET_TIMEOUT '])('%j is not a refusal by the app', (code) => {
    expect(targetRefusalWords(code, 400)).toBeNull();
  });
});
