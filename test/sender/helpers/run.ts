/** Runs the real engine with the real transport against a test server, collecting events. */
import { randomUUID } from 'node:crypto';
import type { DeliveryEvent } from '../../../src/core/retry-policy/delivery-events.js';
import { DEFAULT_FAILURE_HANDLING, DEFAULT_RETRY_POLICY, type FailureHandling, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';
import { mulberry32 } from '../../../src/core/seeded-random.js';
import { buildDelivery, type OutgoingDelivery } from '../../../src/sender/build-request.js';
import { systemClock, type SenderClock } from '../../../src/sender/clock.js';
import { runDeliveries, type SendResult } from '../../../src/sender/engine.js';
import { createHttpTransport } from '../../../src/sender/http-attempt.js';

export const SECRET = 'whsec_test_0123456789abcdef';

/** 3 attempts, waits of 10 s then 40 s (±20%): with timeScale 0.001, 8-12 ms and 32-48 ms. */
export const SHORT_POLICY: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3, initialDelaySeconds: 10, maxDelaySeconds: 60 };

export interface RunOptions {
  url: string;
  count?: number;
  policy?: RetryPolicy;
  failureHandling?: Partial<FailureHandling>;
  secret?: string | null;
  timeScale?: number;
  concurrency?: number;
  timeoutMs?: number;
  clock?: SenderClock;
  seed?: number;
  blockPrivate?: boolean;
}

export interface Run extends SendResult {
  events: DeliveryEvent[];
  sent: OutgoingDelivery[];
}

export function makeDeliveries(count: number, nowMs = Date.now()): OutgoingDelivery[] {
  return Array.from({ length: count }, (_, i) =>
    buildDelivery({
      id: randomUUID(),
      trigger: 'trustcenter.access_requested',
      organizationId: '11111111-1111-4111-8111-111111111111',
      createdAtMs: nowMs,
      data: { accessRequestId: `22222222-2222-4222-8222-${String(i).padStart(12, '0')}` },
    }),
  );
}

export async function run(options: RunOptions): Promise<Run> {
  const transport = createHttpTransport({ timeoutMs: options.timeoutMs ?? 300, blockPrivate: options.blockPrivate });
  const events: DeliveryEvent[] = [];
  const sent = makeDeliveries(options.count ?? 1);
  try {
    const result = await runDeliveries(
      {
        url: options.url,
        deliveries: sent,
        secret: options.secret === undefined ? SECRET : options.secret,
        policy: options.policy ?? SHORT_POLICY,
        failureHandling: { ...DEFAULT_FAILURE_HANDLING, ...options.failureHandling },
        webhookId: '33333333-3333-4333-8333-333333333333',
        concurrency: options.concurrency ?? 1,
        timeScale: options.timeScale ?? 0.001,
        onEvent: (e) => events.push(e),
      },
      { transport, clock: options.clock ?? systemClock, random: mulberry32(options.seed ?? 1) },
    );
    return { ...result, events, sent };
  } finally {
    await transport.close();
  }
}
