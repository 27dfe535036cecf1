/** Where a delivery stands by the policy: succeeded, failed, or still retrying (spec 3, delivery status). */
import { isRetried } from './failure-class.js';
import { allowedAttempts, type CheckOptions } from './options.js';
import type { AnswerClass, DeliveryState, TimelineEntry } from './types.js';
import { nextRetryWindow } from './windows.js';

export interface DeliveryProgress {
  state: DeliveryState;
  /**
   * When the outcome counts for auto-disable (ms): the first 2xx, the first final answer, the last
   * allowed attempt; for a sender that stopped early, the latest moment its next retry was due.
   * Null while retrying.
   */
  endedAt: number | null;
  /** The class that ended it (null while retrying). */
  endClass: AnswerClass | null;
  /** Every answer was retried-class and attempts remained, yet no retry came in time. */
  stoppedEarly: boolean;
  /** The retry a policy still owes (when the last answer was retried-class and attempts remain). */
  nextRetry: { n: number; dueBy: number } | null;
}

/**
 * The delivery's progress from its timeline. A delivery that could still be retried is 'retrying'
 * when `complete` is false, or when it is 'auto' and `now` is before the next retry's latest due
 * time (the window's upper edge with slack); otherwise the sender stopped early and it is 'failed'.
 */
export function deliveryProgress(timeline: readonly TimelineEntry[], options: CheckOptions): DeliveryProgress {
  const allowed = allowedAttempts(options.policy);
  const decisive = timeline.find((a) => a.answerClass === 'success' || !isRetried(a.answerClass, options.policy) || a.position >= allowed);
  if (decisive) {
    return {
      state: decisive.answerClass === 'success' ? 'succeeded' : 'failed',
      endedAt: decisive.endAt,
      endClass: decisive.answerClass,
      stoppedEarly: false,
      nextRetry: null,
    };
  }
  const last = timeline[timeline.length - 1];
  if (!last) return { state: 'failed', endedAt: null, endClass: null, stoppedEarly: false, nextRetry: null };
  const n = last.position;
  const window = nextRetryWindow(options, last, n);
  const dueBy = last.endAt + (window ? window.highMs : 0);
  const inProgress = options.complete === false || (options.complete === 'auto' && options.now !== null && options.now < dueBy);
  return inProgress
    ? { state: 'retrying', endedAt: null, endClass: null, stoppedEarly: false, nextRetry: { n, dueBy } }
    : { state: 'failed', endedAt: dueBy, endClass: last.answerClass, stoppedEarly: true, nextRetry: { n, dueBy } };
}
