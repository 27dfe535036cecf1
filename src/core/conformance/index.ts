/** Retry conformance: judge a sender's recorded attempts against its retry policy (issue 7). */
export type * from './types.js';
export { DELIVERY_RULES } from './types.js';
export {
  DEFAULT_ATTEMPT_TIMEOUT_SECONDS,
  DEFAULT_SLACK,
  DEFAULT_TOLERANCE_SECONDS,
  LOCAL_SLACK,
  TIMEOUT_SLACK,
  allowedAttempts,
  resolveCheckOptions,
  type CheckOptions,
  type CheckOptionsInput,
  type ResolvedOptions,
  type Slack,
} from './options.js';
export { classifyAnswer, isRetried } from './failure-class.js';
export { honoursRetryAfter, retryAfterSeconds } from './retry-after.js';
export { REDIRECT_FOLLOW_MS, byArrival, foldAttempts, groupDeliveries, splitSenderAttempts, type HopFields } from './group-attempts.js';
export { backoffWindow, nextRetryWindow, retryAfterWindow, type BackoffWindow, type RetryAfterWindow, type Window } from './windows.js';
export { deliveryProgress, type DeliveryProgress } from './delivery-progress.js';
export { judgeDelivery, judgeTimeline } from './judge-delivery.js';
export { findSuspension, judgeSuspension, type AnalysedDelivery, type Suspension } from './suspension.js';
export { judgeRun } from './judge-run.js';
export { TIME_SCALE_MARK_HEADER, markOf, optionsAtScale, readTimeScaleMark, type TimeScaleMarks } from './time-scale-mark.js';
export { checkExitCode, summarize } from './summary.js';
export { formatReport, safeText, type ReportOptions } from './format-report.js';
export { MAX_REDIRECT_HOPS } from './rules/no-retry-after-final.js';
