/** Human lines for the send timeline and summary. The engine emits events; this only words them. */
import type { AttemptOutcome } from '../core/retry-policy/classify-outcome.js';
import type { RetryDecision } from '../core/retry-policy/decide-retry.js';
import type { DeliveryEvent } from '../core/retry-policy/delivery-events.js';
import type { Delivery } from '../core/retry-policy/delivery-state.js';
import { formatDuration, formatMs } from '../core/retry-policy/format-duration.js';
import type { RetryPolicy } from '../core/retry-policy/policy.js';
import type { WebhookState } from '../core/retry-policy/webhook-state.js';

export interface TimelineContext {
  total: number;
  timeScale: number;
  policy: RetryPolicy;
}

/** The lines one event adds to the live timeline (none for events that add nothing). */
export function formatEvent(event: DeliveryEvent, ctx: TimelineContext): string[] {
  const label = ctx.total > 1 && 'index' in event ? `[${event.index + 1}/${ctx.total}] ` : '';
  switch (event.type) {
    case 'attempt_started':
      return event.attemptNumber === 1 ? [`→ ${label}delivery ${event.deliveryId}`] : [];
    case 'attempt_finished': {
      const a = event.attempt;
      const status = a.responseStatus === null ? '---' : String(a.responseStatus);
      const klass = a.failureClass ?? 'delivered';
      const refused = event.receiverCode === undefined ? '' : `; the receiver said ${event.receiverCode}`;
      const next = describeDecision(event.decision, event.outcome, ctx, event.scaledWaitMs) + refused;
      return [`  ${label}#${a.attemptNumber}  ${clockTime(a.startedAt)}  ${status}  ${klass.padEnd(16)} ${String(a.durationMs ?? 0).padStart(5)} ms  ${next}`];
    }
    case 'delivery_finished':
      return [finishedLine(event.delivery, label)];
    case 'webhook_suspended':
      return [`! webhook suspended (${suspendWhy(event.webhook)}): it sends nothing more; waiting retries close as failed (webhook_inactive)`];
  }
}

/** "→ retry 2 in 4 min 3 s: backoff ..." or "✗ no retry: ..." for one judged attempt. */
export function describeDecision(decision: RetryDecision, outcome: AttemptOutcome, ctx: TimelineContext, scaledWaitMs: number | null): string {
  if (decision.action === 'succeed') return '✓ delivered';
  if (decision.action === 'fail') {
    const klass = outcome.failureClass ?? 'unknown';
    const why = {
      never_retried: `${klass} is never retried (spec 6.4 rule 2)`,
      retries_disabled: 'retries are disabled (retryPolicy.enabled false)',
      not_in_retry_on: `${klass} is not in retryOn`,
      attempts_exhausted: `maxAttempts ${ctx.policy.maxAttempts} reached`,
    }[decision.why];
    return `✗ no retry: ${why}`;
  }
  const wait = formatDuration(decision.waitSeconds);
  const scaled = ctx.timeScale === 1 || scaledWaitMs === null ? '' : `; ×${ctx.timeScale} → ${formatMs(scaledWaitMs)}`;
  return `→ retry ${decision.retryNumber} in ${wait}: ${retryWhy(decision, ctx.policy)}${scaled}`;
}

function retryWhy(decision: Extract<RetryDecision, { action: 'retry' }>, policy: RetryPolicy): string {
  if (decision.why === 'retry_after') {
    const asked = decision.retryAfterRequestedSeconds ?? decision.waitSeconds;
    const clamp = asked < decision.waitSeconds ? ', raised to the 10 s floor' : asked > decision.waitSeconds ? `, capped at maxDelaySeconds ${policy.maxDelaySeconds}` : '';
    return `Retry-After ${formatDuration(asked)}${clamp}`;
  }
  const { nominal, min, max } = decision.bounds;
  if (policy.backoff === 'fixed') return `fixed backoff ${formatDuration(nominal)}`;
  return `backoff ${formatDuration(nominal)} ±20% (${formatDuration(min)} – ${formatDuration(max)})`;
}

function finishedLine(delivery: Delivery, label: string): string {
  const n = delivery.attemptCount;
  const attempts = `${n} attempt${n === 1 ? '' : 's'}`;
  if (delivery.status === 'succeeded') return `✓ ${label}${delivery.id} succeeded after ${attempts}`;
  if (delivery.lastFailureClass === 'webhook_inactive') return `✗ ${label}${delivery.id} failed after ${attempts}: webhook_inactive (the webhook is suspended)`;
  return `✗ ${label}${delivery.id} failed after ${attempts}: ${delivery.lastFailureClass ?? 'unknown'}`;
}

export interface SummaryInput {
  url: string;
  deliveries: readonly Delivery[];
  webhook: WebhookState;
  elapsedMs: number;
  seed: number;
  /** The run was stopped (Ctrl-C) before every delivery ended. */
  interrupted?: boolean;
}

/**
 * The closing summary: counts by status and failure class, attempts, webhook state, seed; for an
 * interrupted run, also what was left unsent.
 */
export function formatSummary(input: SummaryInput): string[] {
  const succeeded = input.deliveries.filter((d) => d.status === 'succeeded').length;
  const failed = input.deliveries.filter((d) => d.status === 'failed');
  const byClass = new Map<string, number>();
  for (const d of failed) byClass.set(d.lastFailureClass ?? 'unknown', (byClass.get(d.lastFailureClass ?? 'unknown') ?? 0) + 1);
  const classes = failed.length === 0 ? '' : ` (${[...byClass].map(([k, v]) => `${k} ${v}`).join(', ')})`;
  const attempts = input.deliveries.reduce((sum, d) => sum + d.attemptCount, 0);
  const n = input.deliveries.length;
  const webhook =
    input.webhook.status === 'active'
      ? `webhook active, consecutiveFailures ${input.webhook.consecutiveFailures}`
      : `webhook ${input.webhook.status} (${suspendWhy(input.webhook)})`;
  const lines = [
    '',
    `Summary: ${n} deliver${n === 1 ? 'y' : 'ies'} to ${input.url}: ${succeeded} succeeded, ${failed.length} failed${classes}${input.interrupted === true ? interruptedCounts(input.deliveries) : ''}`,
    `         ${attempts} attempt${attempts === 1 ? '' : 's'} in ${formatMs(input.elapsedMs)}; ${webhook}; seed ${input.seed}`,
  ];
  if (input.interrupted === true) lines.push('         interrupted (Ctrl-C): no attempt was sent after it; attempts in flight were finished and are counted above');
  return lines;
}

/** ", 1 retrying (stopped before attempt 3), 2 never sent" for the deliveries an interruption left open. */
function interruptedCounts(deliveries: readonly Delivery[]): string {
  const retrying = deliveries.filter((d) => d.status === 'retrying');
  const pending = deliveries.filter((d) => d.status === 'pending').length;
  const parts: string[] = [];
  if (retrying.length > 0) {
    const next = retrying.length === 1 ? ` (stopped before attempt ${retrying[0]!.attemptCount + 1})` : '';
    parts.push(`${retrying.length} stopped while retrying${next}`);
  }
  if (pending > 0) parts.push(`${pending} never sent`);
  return parts.length === 0 ? '' : `, ${parts.join(', ')}`;
}

function suspendWhy(webhook: WebhookState): string {
  return webhook.disabledReason ?? 'no reason recorded';
}

function clockTime(isoTime: string): string {
  return isoTime.slice(11);
}
