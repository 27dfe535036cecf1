/**
 * A pure, synchronous simulation of deliveries through a retry policy on a virtual clock:
 * the same transitions as the real sender (delivery-state, webhook-state), no timers, no I/O.
 * Used by tests and by the benchmark that pushes 10,000 deliveries through the default schedule.
 */
import type { AttemptObservation } from '../src/core/retry-policy/classify-outcome.js';
import type { DeliveryEvent, DeliveryEventListener } from '../src/core/retry-policy/delivery-events.js';
import { closeAsInactive, createDelivery, finishAttempt, startAttempt, type Delivery } from '../src/core/retry-policy/delivery-state.js';
import type { FailureHandling, RetryPolicy } from '../src/core/retry-policy/policy.js';
import { afterAttempt, afterDelivery, createWebhookState, type SuspendReason, type WebhookState } from '../src/core/retry-policy/webhook-state.js';
import type { RandomSource } from '../src/core/seeded-random.js';

export interface SimulatedAnswer {
  observation: AttemptObservation;
  /** How long the attempt takes on the virtual clock. */
  durationMs: number;
}

export interface SimulationInput {
  policy: RetryPolicy;
  failureHandling: FailureHandling;
  count: number;
  startMs: number;
  random: RandomSource;
  /** What attempt `attemptNumber` (1-based) of delivery `index` (0-based) meets. */
  respond: (index: number, attemptNumber: number) => SimulatedAnswer;
  /** Virtual milliseconds between the creation of consecutive deliveries; default 0. */
  intervalMs?: number;
  trigger?: string;
  apiVersion?: string;
  webhookId?: string;
  newId?: (index: number) => string;
  onEvent?: DeliveryEventListener;
}

export interface SimulationResult {
  deliveries: Delivery[];
  webhook: WebhookState;
  /** Virtual time when the last delivery closed. */
  endMs: number;
  attempts: number;
}

interface Pending {
  atMs: number;
  seq: number;
  kind: 'start' | 'finish';
  index: number;
  answer?: SimulatedAnswer;
}

/**
 * Runs `count` deliveries to their terminal state on a virtual clock starting at `startMs`,
 * attempts of different deliveries interleaving by time as they would for real. Returns the
 * spec 2.11 Delivery records, the webhook state and the virtual end time.
 */
export function simulateDeliveries(input: SimulationInput): SimulationResult {
  const emit = input.onEvent ?? (() => {});
  const queue = new MinHeap();
  let seq = 0;
  let attempts = 0;
  let nowMs = input.startMs;
  let webhook = createWebhookState(input.webhookId ?? 'simulated-webhook');
  const deliveries: Delivery[] = [];
  for (let index = 0; index < input.count; index++) {
    const createdAtMs = input.startMs + index * (input.intervalMs ?? 0);
    deliveries.push(
      createDelivery({
        id: input.newId?.(index) ?? `simulated-${index}`,
        webhookId: webhook.id,
        trigger: input.trigger ?? 'trustcenter.access_requested',
        apiVersion: input.apiVersion ?? '2026-06-01',
        payload: {},
        createdAtMs,
      }),
    );
    queue.push({ atMs: createdAtMs, seq: seq++, kind: 'start', index });
  }

  const close = (index: number, delivery: Delivery): void => {
    deliveries[index] = delivery;
    emit({ type: 'delivery_finished', index, delivery });
    const change = afterDelivery(webhook, delivery, input.failureHandling);
    webhook = change.webhook;
    if (change.suspended) suspend(change.suspended, delivery.id);
  };
  // Spec 3: a suspended webhook sends nothing; waiting deliveries close as webhook_inactive.
  const suspend = (reason: SuspendReason, byDeliveryId: string): void => {
    emit({ type: 'webhook_suspended', webhook, reason, byDeliveryId });
    deliveries.forEach((delivery, index) => {
      const closed = closeAsInactive(delivery);
      if (closed !== delivery) close(index, closed);
    });
  };

  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    nowMs = next.atMs;
    const index = next.index;
    const delivery = deliveries[index]!;
    if (next.kind === 'start') {
      if (webhook.status !== 'active') {
        const closed = closeAsInactive(delivery);
        if (closed !== delivery) close(index, closed);
        continue;
      }
      const started = startAttempt(delivery, nowMs);
      if (!started.ok) continue;
      deliveries[index] = started.delivery;
      attempts++;
      emit({ type: 'attempt_started', index, deliveryId: delivery.id, attemptNumber: started.attemptNumber, startedAt: started.delivery.sentAt! });
      const answer = input.respond(index, started.attemptNumber);
      queue.push({ atMs: nowMs + Math.max(0, answer.durationMs), seq: seq++, kind: 'finish', index, answer });
      continue;
    }
    const finished = finishAttempt(delivery, next.answer!.observation, { policy: input.policy, nowMs, random: input.random });
    deliveries[index] = finished.delivery;
    emit(attemptFinished(index, finished));
    const change = afterAttempt(webhook, finished.outcome, input.failureHandling, nowMs);
    webhook = change.webhook;
    if (change.suspended) suspend(change.suspended, delivery.id);
    const current = deliveries[index]!;
    if (current.status === 'retrying' && webhook.status === 'active') {
      queue.push({ atMs: nowMs + finished.scaledWaitMs!, seq: seq++, kind: 'start', index });
    } else if (current.status === 'retrying') {
      close(index, closeAsInactive(current));
    } else {
      close(index, current);
    }
  }
  return { deliveries, webhook, endMs: nowMs, attempts };
}

function attemptFinished(index: number, finished: ReturnType<typeof finishAttempt>): DeliveryEvent {
  return {
    type: 'attempt_finished',
    index,
    deliveryId: finished.delivery.id,
    attempt: finished.delivery.attempts.at(-1)!,
    outcome: finished.outcome,
    decision: finished.decision,
    scaledWaitMs: finished.scaledWaitMs,
    delivery: finished.delivery,
  };
}

/** A binary min-heap ordered by time, then by insertion. */
class MinHeap {
  private readonly items: Pending[] = [];

  push(item: Pending): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): Pending | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(x: Pending, y: Pending): boolean {
  return x.atMs < y.atMs || (x.atMs === y.atMs && x.seq < y.seq);
}
