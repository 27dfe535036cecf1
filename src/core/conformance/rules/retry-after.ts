/** `retry-after`: a Retry-After on 429/503 was honoured, clamped to [10 s, maxDelaySeconds] (spec 6.4 rule 1). */
import { policySeconds, seconds } from '../numbers.js';
import type { Finding, RuleVerdict, TimelineEntry } from '../types.js';
import { retryAfterWindow } from '../windows.js';
import { attemptList, fromFindings, retriesToJudge, type DeliveryContext } from './context.js';

/**
 * Judges each retry that followed a 429 or 503 carrying a readable Retry-After: it waited at least
 * the clamped value × timeScale (less `slack.earlyMs`; an HTTP date counts from hookrelay's answer),
 * and no longer than the longer of that and the backoff's upper bound (plus `slack.lateMs`).
 * n/a when no Retry-After was followed by a retry.
 */
export function judgeRetryAfter(timeline: readonly TimelineEntry[], { options }: DeliveryContext): RuleVerdict {
  const { policy, timeScale } = options;
  const findings: Finding[] = [];
  for (const { prev, retry: a } of retriesToJudge(timeline, policy)) {
    const w = retryAfterWindow(options, prev, a.position - 1);
    if (!w) continue;
    const asked = /^\s*\d+\s*$/.test(prev.retryAfter ?? '')
      ? `Retry-After ${prev.retryAfter!.trim()}`
      : `Retry-After "${prev.retryAfter}" (${w.requestedSeconds.toFixed(3)} s after the answer)`;
    const clamp = w.clampedSeconds === w.requestedSeconds ? '' : ` clamped to ${policySeconds(w.clampedSeconds)}`;
    const scale = timeScale === 1 ? '' : ` × time scale ${timeScale}`;
    const early = a.gapMs !== null && a.gapMs < w.lowMs;
    const late = a.gapMs !== null && a.gapMs > w.highMs;
    // The upper bound is the longer of the Retry-After and the backoff's: a sender that waits
    // past both has not honoured either, which is why a wait can fail above the "at least".
    const upper = w.maxSeconds === w.minSeconds ? 'the Retry-After' : `the backoff's upper bound ${policySeconds(w.maxSeconds)}${timeScale === 1 ? '' : ` × ${timeScale}`}`;
    findings.push({
      attempt: a.position,
      ok: a.gapMs !== null && !early && !late,
      expected: `${asked}${clamp}${scale}: at least ${seconds(w.lowMs + options.slack.earlyMs)} and at most ${seconds(w.highMs - options.slack.lateMs)}, ${upper} (accepted ${seconds(w.lowMs)}–${seconds(w.highMs)} with slack)`,
      observed: `waited ${seconds(a.gapMs)} after attempt ${prev.position}'s ${prev.status}${early ? ', too early' : late ? ', too late' : ''}`,
      bounds: { min: w.lowMs / 1000, max: w.highMs / 1000 },
      value: a.gapMs === null ? null : a.gapMs / 1000,
    });
  }
  const bad = findings.filter((f) => !f.ok);
  return fromFindings('retry-after', findings, {
    expected: `Retry-After honoured between 10 s and ${policySeconds(policy.maxDelaySeconds)}${timeScale === 1 ? '' : `, × ${timeScale}`}`,
    observed: findings.length === 0 ? 'no retry after a Retry-After' : `${findings.length - bad.length} of ${findings.length} honoured`,
    pass: 'every Retry-After was honoured',
    fail: `${attemptList(bad)}: ${bad.map((f) => `${f.observed}, expected ${f.expected}`).join('; ')}`,
    none: 'no retry followed a 429 or 503 with Retry-After',
  });
}
