/** `no-retry-after-final`: nothing after a 2xx or a class that fails at once (spec 6.4 rule 2, table; section 8 hops). */
import type { RetryPolicy } from '../../retry-policy/policy.js';
import { isRetried } from '../failure-class.js';
import type { AnswerClass, Finding, RuleVerdict, TimelineEntry } from '../types.js';
import { attemptList, fromFindings, type DeliveryContext } from './context.js';

/** Spec section 8: at most 3 redirect hops per attempt. */
export const MAX_REDIRECT_HOPS = 3;

function whyFinal(answerClass: AnswerClass, policy: RetryPolicy): string {
  switch (answerClass) {
    case 'success': return 'a 2xx is final; a later copy is a retry after success, even though hookrelay answers it 2xx as a duplicate (no exceptions)';
    case 'http_410': return '410 fails at once (spec 6.4 rule 2)';
    case 'http_unsupported': return '501/505 fail at once (spec 6.4 rule 2)';
    case 'redirect': return 'a redirect without usable Location or past 3 hops fails at once (spec 6.4 rule 2)';
    case 'blocked': return 'a blocked endpoint fails at once (spec 6.4 rule 2)';
    case 'http_4xx': return `a 4xx fails at once unless http_4xx is in retryOn (${policy.retryOn.join(', ') || 'empty'})`;
    default: return `${answerClass} is not in retryOn (${policy.retryOn.join(', ') || 'empty'})`;
  }
}

const answerText = (a: TimelineEntry): string => (a.status === null ? `no response (${a.answerClass})` : `${a.status} (${a.answerClass})`);

/**
 * One finding per final answer (passes when it ended the delivery) and per attempt that followed
 * redirects (passes up to 3 hops). n/a when the delivery never got a final answer.
 */
export function judgeNoRetryAfterFinal(timeline: readonly TimelineEntry[], { options }: DeliveryContext): RuleVerdict {
  const { policy } = options;
  const findings: Finding[] = [];
  const lastPosition = timeline[timeline.length - 1]?.position ?? 0;
  for (const [index, a] of timeline.entries()) {
    if (a.hops > 0) {
      findings.push({
        attempt: a.position,
        ok: a.hops <= MAX_REDIRECT_HOPS,
        expected: `at most ${MAX_REDIRECT_HOPS} redirect hops followed`,
        observed: `${a.hops} followed`,
        bounds: { min: 0, max: MAX_REDIRECT_HOPS },
        value: a.hops,
      });
    }
    if (isRetried(a.answerClass, policy)) continue;
    const next = timeline[index + 1];
    findings.push({
      attempt: next ? next.position : a.position,
      ok: !next,
      expected: `nothing after attempt ${a.position}'s ${answerText(a)}: ${whyFinal(a.answerClass, policy)}`,
      observed: next
        ? next.position === lastPosition
          ? `attempt ${next.position} followed`
          : `attempts ${next.position}–${lastPosition} followed`
        : 'nothing followed',
    });
  }
  const bad = findings.filter((f) => !f.ok);
  return fromFindings('no-retry-after-final', findings, {
    expected: 'no attempt after a 2xx, 410, 501, 505, redirect failure, or a class not in retryOn',
    observed: bad.length === 0 ? 'nothing followed a final answer' : `${bad.length} violation${bad.length === 1 ? '' : 's'}`,
    pass: 'nothing followed a final answer',
    fail: `${attemptList(bad)}: ${bad.map((f) => `${f.observed}; expected ${f.expected}`).join(' | ')}`,
    none: 'no final answer was given',
  });
}
