/**
 * One attempt of one delivery, as the sender makes it (spec 6.3, 6.4): open the attempt, sign
 * the unchanged body afresh with its own `t`, send it through the transport, judge what came
 * back. `send`'s engine runs it in a loop; the emulator runs it from its durable schedule.
 */
import { sign } from '../core/signature/sign.js';
import { finishAttempt, startAttempt, type Delivery, type FinishedAttempt } from '../core/retry-policy/delivery-state.js';
import type { RetryPolicy } from '../core/retry-policy/policy.js';
import type { RandomSource } from '../core/seeded-random.js';
import { attemptHeaders, type OutgoingDelivery } from './build-request.js';
import type { SenderClock } from './clock.js';
import type { Transport } from './http-attempt.js';

export interface AttemptDeps {
  transport: Transport;
  clock: SenderClock;
  random: RandomSource;
}

export interface AttemptStep {
  url: string;
  outgoing: OutgoingDelivery;
  /** The signing secret; null sends unsigned (spec 6.1: the header only when signing is on). */
  secret: string | null;
  policy: RetryPolicy;
  /** Multiplies the wait to the next attempt (1 = real time). */
  timeScale: number;
  /** Headers the webhook adds (spec 4.3 customHeaders); the spec's own headers always win. */
  extraHeaders?: Readonly<Record<string, string>>;
}

/** A judged attempt, and the refusal code a hookrelay receiver named (http-attempt.ts AttemptResult). */
export type SentAttempt = FinishedAttempt & { receiverCode?: string };

export interface StartedAttempt {
  delivery: Delivery;
  attemptNumber: number;
}

/**
 * Runs the next attempt of `delivery`. `onStarted` sees the delivery with the attempt open
 * before a byte is sent (the emulator commits it there). Resolves with the judged attempt, or
 * null when the delivery is closed or already has an attempt open (nothing is sent then).
 */
export async function attemptOnce(
  delivery: Delivery,
  step: AttemptStep,
  deps: AttemptDeps,
  onStarted?: (started: StartedAttempt) => void,
): Promise<SentAttempt | null> {
  const nowMs = deps.clock.now();
  const started = startAttempt(delivery, nowMs);
  if (!started.ok) return null;
  onStarted?.({ delivery: started.delivery, attemptNumber: started.attemptNumber });
  // Spec 6.3: every attempt is signed afresh with its own t.
  const signature = step.secret === null ? null : sign(step.secret, step.outgoing.body, Math.floor(nowMs / 1000));
  const headers = { ...step.extraHeaders, ...attemptHeaders(step.outgoing, started.attemptNumber, signature, step.timeScale) };
  const { observation, receiverCode } = await deps.transport.send({ url: step.url, headers, body: step.outgoing.body });
  const finished = finishAttempt(started.delivery, observation, { policy: step.policy, nowMs: deps.clock.now(), random: deps.random, timeScale: step.timeScale });
  return receiverCode === undefined ? finished : { ...finished, receiverCode };
}
