/** `max-attempts`: no more than maxAttempts (1 when retries are off), and all of them while failures were retried-class (spec 6.4, 2.11). */
import { isoTime as iso } from '../numbers.js';
import { allowedAttempts } from '../options.js';
import type { DeliveryProgress } from '../delivery-progress.js';
import type { RuleVerdict, TimelineEntry } from '../types.js';
import type { DeliveryContext } from './context.js';


/**
 * Fails too many attempts, and a sender that stopped while every answer was retried-class and
 * attempts remained. n/a while the delivery is still retrying, or when the webhook was suspended
 * (by another delivery) before the owed retry was due (spec 3: waiting retries are closed).
 */
export function judgeMaxAttempts(
  timeline: readonly TimelineEntry[],
  { options, suspendedAt }: DeliveryContext,
  progress: DeliveryProgress,
): RuleVerdict {
  const allowed = allowedAttempts(options.policy);
  // The sender's count: attempts before the first seen here count too (TimelineEntry.position).
  const count = timeline[timeline.length - 1]?.position ?? 0;
  const expected = options.policy.enabled
    ? `at most ${allowed} attempts, and all ${allowed} while every answer is a retried class`
    : '1 attempt (retries off: enabled false)';
  const observed = `${count} attempt${count === 1 ? '' : 's'}, ${progress.state}${progress.endClass ? ` (last: ${progress.endClass})` : ''}`;
  const base = { rule: 'max-attempts' as const, expected, observed };
  const countFinding = { attempt: count, expected: `at most ${allowed}`, observed: `${count}`, bounds: { min: null, max: allowed }, value: count };
  if (count > allowed) {
    return {
      ...base,
      status: 'fail',
      message: `${count} attempts ${count === timeline.length ? 'arrived' : 'made'}; the policy allows ${allowed}${options.policy.enabled ? '' : ' (retries off)'}: attempt${count - allowed === 1 ? '' : 's'} ${timeline.filter((a) => a.position > allowed).map((a) => a.position).join(', ')} should not have been sent`,
      findings: [{ ...countFinding, ok: false }],
    };
  }
  if (progress.state === 'retrying' && progress.nextRetry) {
    return {
      ...base,
      status: 'n/a',
      message: `in progress: retry ${progress.nextRetry.n} may still come (due by ${iso(progress.nextRetry.dueBy)})`,
      findings: [],
    };
  }
  if (progress.stoppedEarly && progress.nextRetry) {
    const owed = progress.nextRetry;
    if (suspendedAt !== null && suspendedAt < owed.dueBy) {
      return {
        ...base,
        status: 'n/a',
        message: `the webhook was suspended at ${iso(suspendedAt)}, before retry ${owed.n} was due (by ${iso(owed.dueBy)}); waiting retries are closed`,
        findings: [],
      };
    }
    return {
      ...base,
      status: 'fail',
      message: `the sender stopped after ${count} of ${allowed} attempts although every answer was a retried class (last: ${progress.endClass}); retry ${owed.n} was due by ${iso(owed.dueBy)}`,
      findings: [{ attempt: count, ok: false, expected: `${allowed} attempts`, observed: `${count}`, bounds: { min: allowed, max: allowed }, value: count }],
    };
  }
  return {
    ...base,
    status: 'pass',
    message: `${count} of at most ${allowed} attempt${allowed === 1 ? '' : 's'}; ended by ${progress.endClass ?? 'nothing'}`,
    findings: [{ ...countFinding, ok: true }],
  };
}
