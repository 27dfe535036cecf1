/** `backoff`: each retry waited `initialDelaySeconds × 4^(n-1)` ±20%, capped (fixed: the initial delay ±20%) (spec 6.4 rule 4). */
import { policySeconds, seconds } from '../numbers.js';
import type { Finding, RuleVerdict, TimelineEntry } from '../types.js';
import { backoffWindow, retryAfterWindow } from '../windows.js';
import { attemptList, fromFindings, retriesToJudge, type DeliveryContext } from './context.js';

/**
 * Judges every retry that followed a retried class with no Retry-After in effect: the gap from the
 * previous attempt's end to this arrival must lie in `delayBounds` × timeScale, less `slack.earlyMs`
 * below, plus `slack.lateMs` above. Gaps after a final answer, after an honoured Retry-After, or
 * beyond the allowed attempts belong to other rules. n/a when no gap is left to judge.
 */
export function judgeBackoff(timeline: readonly TimelineEntry[], { options }: DeliveryContext): RuleVerdict {
  const { policy, timeScale } = options;
  const findings: Finding[] = [];
  for (const { prev, retry: a } of retriesToJudge(timeline, policy)) {
    if (retryAfterWindow(options, prev, a.position - 1)) continue;
    const w = backoffWindow(options, a.position - 1);
    if (!w) continue;
    const basis = policy.backoff === 'fixed'
      ? `${policySeconds(policy.initialDelaySeconds)} fixed`
      : `${policySeconds(w.nominalSeconds)} nominal`;
    const cap = w.capped ? `, capped at ${policySeconds(policy.maxDelaySeconds)}` : '';
    const scale = timeScale === 1 ? '' : ` × time scale ${timeScale}`;
    findings.push({
      attempt: a.position,
      ok: a.gapMs !== null && a.gapMs >= w.lowMs && a.gapMs <= w.highMs,
      expected: `retry ${a.position - 1}: ${policySeconds(w.minSeconds)}–${policySeconds(w.maxSeconds)} (${basis} ±20%${cap})${scale}; accepted ${seconds(w.lowMs)}–${seconds(w.highMs)} with slack`,
      observed: `waited ${seconds(a.gapMs)} after attempt ${prev.position} ended`,
      bounds: { min: w.lowMs / 1000, max: w.highMs / 1000 },
      value: a.gapMs === null ? null : a.gapMs / 1000,
    });
  }
  const bad = findings.filter((f) => !f.ok);
  return fromFindings('backoff', findings, {
    expected: `${policy.backoff} backoff from ${policySeconds(policy.initialDelaySeconds)}, ±20%, capped at ${policySeconds(policy.maxDelaySeconds)}${timeScale === 1 ? '' : `, × ${timeScale}`}`,
    observed: findings.length === 0 ? 'no backoff wait to judge' : `${findings.length - bad.length} of ${findings.length} waits inside`,
    pass: `every wait was inside its backoff window (${findings.map((f) => `${f.value?.toFixed(3)} s`).join(', ')})`,
    fail: `${attemptList(bad)}: ${bad.map((f) => `${f.observed}, expected ${f.expected}`).join('; ')}`,
    none: 'no retry followed a retried failure without Retry-After',
  });
}
