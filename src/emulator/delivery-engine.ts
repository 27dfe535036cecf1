/**
 * The emulator's delivery engine: the sender's attempt (src/sender/attempt-once.ts, the same code
 * as `hookrelay send`) driven from the durable schedule in SQLite. Before a byte is sent the open
 * attempt is committed, so a delivery is never attempted twice at once, and after `kill -9`
 * waiting retries go on at their nextAttemptAt. Every transition is the core's (spec 3, 6.4).
 */
import type { Attempt, Delivery, FinishedAttempt } from '../core/retry-policy/delivery-state.js';
import { closeAsInactive, finishAttempt, isClosed } from '../core/retry-policy/delivery-state.js';
import type { AttemptOutcome } from '../core/retry-policy/classify-outcome.js';
import { afterAttempt, afterDelivery, type SuspendReason } from '../core/retry-policy/webhook-state.js';
import type { RandomSource } from '../core/seeded-random.js';
import { attemptOnce } from '../sender/attempt-once.js';
import type { SenderClock } from '../sender/clock.js';
import type { RedirectRule, Transport } from '../sender/http-attempt.js';
import { createSlots } from '../sender/slots.js';
import { closeWaiting } from './close-waiting.js';
import { sealContext, type EmulatorContext } from './emulator-context.js';
import type { StoredDelivery } from './emulator-deliveries.js';
import { stateOf } from './webhook-store.js';

export type EngineEvent =
  | { type: 'attempt'; webhookId: string; delivery: Delivery; attempt: Attempt; endpoint: string }
  | { type: 'suspended'; webhookId: string; reason: SuspendReason; closedWaiting: number };

export interface EngineOptions {
  transport: Transport;
  clock: SenderClock;
  random: RandomSource;
  /** Multiplies every wait between attempts, as `send --time-scale`. */
  timeScale: number;
  /** Attempts in flight at once. */
  concurrency?: number;
  onEvent?: (event: EngineEvent) => void;
}

export interface DeliveryEngine {
  /** Looks for due deliveries now (a delivery was created, a webhook changed). */
  wake(): void;
  /** Starts nothing new and waits for the attempts in flight to be recorded. */
  close(): Promise<void>;
}

// setTimeout fires at once beyond 2^31-1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;
const STOPPED_MESSAGE = 'emulator stopped during the attempt';

export function startDeliveryEngine(ctx: EmulatorContext, options: EngineOptions): DeliveryEngine {
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const slots = createSlots(concurrency);
  const inFlight = new Set<string>();
  const running = new Set<Promise<void>>();
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let scheduled = false;
  const emit = (event: EngineEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      /* a failing subscriber must not stop deliveries */
    }
  };

  recoverOpenAttempts();

  const wake = (): void => {
    if (closed || scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      tick();
    });
  };

  function tick(): void {
    if (closed) return;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const free = concurrency - inFlight.size;
    if (free > 0) {
      for (const stored of ctx.deliveries.due(options.clock.now(), free + inFlight.size)) {
        if (inFlight.size >= concurrency) break;
        if (inFlight.has(stored.delivery.id)) continue;
        inFlight.add(stored.delivery.id);
        const job = deliver(stored)
          .catch(() => postpone(stored))
          .finally(() => {
            inFlight.delete(stored.delivery.id);
            running.delete(job);
            wake();
          });
        running.add(job);
      }
    }
    const next = ctx.deliveries.nextDueMs();
    if (next !== null && inFlight.size < concurrency) {
      timer = setTimeout(tick, Math.min(MAX_TIMER_MS, Math.max(0, next - options.clock.now())));
      timer.unref?.();
    }
  }

  async function deliver(stored: StoredDelivery): Promise<void> {
    const webhook = ctx.webhooks.get(stored.delivery.webhookId);
    if (webhook === null) return;
    if (webhook.status !== 'active') {
      ctx.deliveries.save(closeAsInactive(stored.delivery), null);
      return;
    }
    const slot = await slots.acquire();
    try {
      if (closed) return;
      const secret = webhook.secretSealed === null ? null : ctx.box.open(webhook.secretSealed, sealContext.secret(webhook.id));
      const extraHeaders = Object.fromEntries(webhook.customHeaders.map((h) => [h.name, ctx.box.open(h.sealed, sealContext.header(webhook.id, h.name))]));
      const redirectRule: RedirectRule = { httpsOnly: ctx.ssrf === 'strict', originBoundHeaders: Object.keys(extraHeaders) };
      const outgoing = { id: stored.delivery.id, trigger: stored.delivery.trigger, apiVersion: stored.delivery.apiVersion, body: stored.body, payload: stored.delivery.payload };
      const finished = await attemptOnce(
        stored.delivery,
        // PATCHed endpoint and policy apply from the next attempt: both are read now.
        { url: webhook.endpoint, outgoing, secret, policy: webhook.retryPolicy, timeScale: options.timeScale, extraHeaders },
        { transport: withRedirectRule(options.transport, redirectRule), clock: options.clock, random: options.random },
        // Committed before a byte is sent: due_ms null keeps every other turn off this delivery.
        (started) => ctx.deliveries.save(started.delivery, null),
      );
      if (finished !== null) record(finished, webhook.endpoint);
    } finally {
      slot?.release();
    }
  }

  /**
   * Something failed before the attempt was committed (a sealed value that no longer opens, a
   * full disk): try again in a minute rather than at once in a loop. An attempt already open
   * stays open, and the next start closes it (recoverOpenAttempts).
   */
  function postpone(stored: StoredDelivery): void {
    try {
      const current = ctx.deliveries.get(stored.delivery.id);
      if (current !== null && current.delivery.attemptCount === stored.delivery.attemptCount && !isClosed(current.delivery)) {
        ctx.deliveries.save(current.delivery, options.clock.now() + 60_000);
      }
    } catch {
      /* the database is unwell; the next start recovers from what was committed */
    }
  }

  /** One transaction: the attempt, the delivery's state (spec 3) and the webhook's (spec 3). */
  function record(finished: FinishedAttempt, endpoint: string): void {
    const webhookId = finished.delivery.webhookId;
    const outcome = ctx.db.transaction(() => {
      const webhook = ctx.webhooks.get(webhookId);
      // Deleted during the attempt: its deliveries are gone with it.
      if (webhook === null) return null;
      let state = stateOf(webhook);
      const handling = webhook.failureHandling;
      const afterOne = afterAttempt(state, finished.outcome, handling, options.clock.now());
      state = afterOne.webhook;
      let delivery = finished.delivery;
      if (delivery.status === 'retrying' && state.status !== 'active') delivery = closeAsInactive(delivery);
      ctx.deliveries.save(delivery, delivery.status === 'retrying' ? Date.parse(delivery.nextAttemptAt!) : null);
      let reason = afterOne.suspended;
      if (isClosed(delivery)) {
        const afterAll = afterDelivery(state, delivery, handling);
        state = afterAll.webhook;
        reason ??= afterAll.suspended;
      }
      ctx.webhooks.saveState(state);
      const closedWaiting = reason === null ? 0 : closeWaiting(ctx, webhookId);
      return { delivery, suspension: reason === null ? null : { reason, closedWaiting } };
    })();
    // Announced only once committed: what was printed survives a kill.
    if (outcome === null) return;
    emit({ type: 'attempt', webhookId, delivery: outcome.delivery, attempt: outcome.delivery.attempts.at(-1)!, endpoint });
    if (outcome.suspension !== null) emit({ type: 'suspended', webhookId, ...outcome.suspension });
  }

  /**
   * After a crash an attempt may be left open: whether it reached the endpoint is unknown. It is
   * closed as a lost connection (`network`, retried by the policy from the time it started), so
   * its number is never sent again; the receiver dedupes if it did arrive (spec 6.4 rule 6).
   */
  function recoverOpenAttempts(): void {
    for (const stored of ctx.deliveries.openAttempts()) {
      const open = stored.delivery.attempts.at(-1);
      const webhook = ctx.webhooks.get(stored.delivery.webhookId);
      if (open === undefined || open.finishedAt !== null || webhook === null) continue;
      const finished = finishAttempt(stored.delivery, { kind: 'network', cause: 'other' }, {
        policy: webhook.retryPolicy,
        nowMs: Date.parse(open.startedAt),
        random: options.random,
        timeScale: options.timeScale,
      });
      record(relabel(finished), webhook.endpoint);
    }
  }

  wake();
  return {
    wake,
    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

function relabel(finished: FinishedAttempt): FinishedAttempt {
  const outcome: AttemptOutcome = { ...finished.outcome, errorMessage: STOPPED_MESSAGE };
  const attempts = finished.delivery.attempts.map((a, i, all) => (i === all.length - 1 ? { ...a, errorMessage: STOPPED_MESSAGE } : a));
  return { ...finished, outcome, delivery: { ...finished.delivery, attempts, errorMessage: STOPPED_MESSAGE } };
}

/**
 * The transport with the emulator's redirect rule on every request: `--ssrf strict` is public
 * HTTPS only, hops included, and the webhook's custom headers (credentials, often) never leave
 * the endpoint's origin. `hookrelay send` uses the transport as it is.
 */
function withRedirectRule(transport: Transport, rule: RedirectRule): Transport {
  // close() is the owner's, who shares the transport between attempts.
  return { send: (request) => transport.send({ ...request, redirects: rule }), close: async () => {} };
}
