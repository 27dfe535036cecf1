/** What every per-delivery rule is judged with. */
import { isRetried } from '../failure-class.js';
import { allowedAttempts, type CheckOptions } from '../options.js';
import type { RetryPolicy } from '../../retry-policy/policy.js';
import type { Finding, RuleName, RuleStatus, RuleVerdict, TimelineEntry } from '../types.js';

export interface DeliveryContext {
  options: CheckOptions;
  /**
   * When the webhook should have been suspended by the outcome of ANOTHER delivery (ms since the
   * epoch, from the run's suspension analysis); null if not, or if this delivery caused it.
   */
  suspendedAt: number | null;
}

export type Rule = (timeline: readonly TimelineEntry[], context: DeliveryContext) => RuleVerdict;

/** A verdict from its findings: fail when any finding failed, else pass (n/a when there are none). */
export function fromFindings(
  rule: RuleName,
  findings: Finding[],
  text: { expected: string; observed: string; pass: string; fail: string; none?: string },
): RuleVerdict {
  const failed = findings.filter((f) => !f.ok);
  const status: RuleStatus = failed.length > 0 ? 'fail' : findings.length > 0 ? 'pass' : 'n/a';
  const message = status === 'fail' ? text.fail : status === 'pass' ? text.pass : text.none ?? 'nothing to judge';
  return { rule, status, message, expected: text.expected, observed: text.observed, findings };
}

/** "attempt 3" / "attempts 3, 5". */
export function attemptList(findings: readonly Finding[]): string {
  const numbers = [...new Set(findings.map((f) => f.attempt))];
  return `${numbers.length === 1 ? 'attempt' : 'attempts'} ${numbers.join(', ')}`;
}

/**
 * Each retry the policy called for: an arrival within the allowed attempts that followed an answer
 * of a retried class, with that previous arrival.
 */
export function* retriesToJudge(timeline: readonly TimelineEntry[], policy: RetryPolicy): Generator<{ prev: TimelineEntry; retry: TimelineEntry }> {
  const allowed = allowedAttempts(policy);
  for (let i = 1; i < timeline.length; i++) {
    const retry = timeline[i]!;
    const prev = timeline[i - 1]!;
    if (prev && retry.position <= allowed && isRetried(prev.answerClass, policy)) yield { prev, retry };
  }
}
