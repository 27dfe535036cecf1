import type { TargetAnswer } from './post-to-target.js';

/** What the sender is told when the app did not answer 2xx. */
export function senderAnswerFor(answer: TargetAnswer): { status: number; code: string; message: string } {
  if (answer.status === null) {
    const timedOut = answer.error?.startsWith('timeout') ?? false;
    return timedOut
      ? { status: 504, code: 'TARGET_TIMEOUT', message: `the forward target did not answer in time (${answer.error})` }
      : { status: 502, code: 'TARGET_UNREACHABLE', message: `the forward target could not be reached (${answer.error ?? 'no answer'})` };
  }
  // A redirect is not followed, and is not passed on either: the sender would follow it elsewhere.
  if (answer.status < 400) return { status: 502, code: `TARGET_STATUS_${answer.status}`, message: `the forward target answered ${answer.status}; redirects are not followed` };
  return { status: answer.status, code: `TARGET_STATUS_${answer.status}`, message: `the forward target answered ${answer.status}; the delivery was not accepted` };
}
