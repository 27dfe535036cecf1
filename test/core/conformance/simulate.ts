/**
 * A conforming sender, simulated on paper: given a policy and the answers hookrelay would give,
 * it produces the attempts a sender following spec 6.4 would make (jitter drawn by `random`,
 * Retry-After honoured, a real-time latency added to every wait and signature made when the wait
 * ends). Property tests hold the judge to passing all of it.
 */
import { clampRetryAfterSeconds, drawDelaySeconds, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';
import { classifyAnswer, isRetried } from '../../../src/core/conformance/failure-class.js';
import { allowedAttempts } from '../../../src/core/conformance/options.js';
import { delivery, type Answer, type DeliveryBuilder } from './builder.js';

export interface Step {
  answer: Answer;
  /** Retry-After seconds sent with a 429/503. */
  retryAfter?: number;
}

export interface SimOptions {
  timeScale: number;
  /** Jitter draws in [0, 1), one per retry (cycled). */
  draws: readonly number[];
  /** Real-time latency per attempt in ms, below the judge's late slack (cycled). */
  latencies: readonly number[];
  id?: string;
  start?: number;
}

const at = <T>(list: readonly T[], i: number, fallback: T): T => (list.length === 0 ? fallback : list[i % list.length]!);

/** The attempts of one delivery made by a conforming sender against `script` (cycled if short). */
export function simulateDelivery(policy: RetryPolicy, script: readonly Step[], o: SimOptions): DeliveryBuilder {
  const d = delivery({ id: o.id ?? 'evt_sim', start: o.start });
  const allowed = allowedAttempts(policy);
  let gapMs = 0;
  for (let k = 0; k < allowed; k += 1) {
    const step = at(script, k, { answer: 200 });
    const latency = at(o.latencies, k, 0);
    const ra = step.retryAfter !== undefined && (step.answer === 429 || step.answer === 503) ? String(step.retryAfter) : undefined;
    // A hang is given up at 10 s by the sender's clock, seen by hookrelay up to `latency` later.
    const durationMs = step.answer === 'hang' ? 10_000 + latency : 20;
    const signedAt = d.end + gapMs - (k === 0 ? 0 : latency);
    d.attempt({ answer: step.answer, gapMs, retryAfter: ra, durationMs, t: Math.floor(signedAt / 1000) });
    const cls = classifyAnswer({ status: typeof step.answer === 'number' ? step.answer : null, reason: `fault:${String(step.answer)}`, receivedAt: 0, finishedAt: durationMs });
    if (cls === 'success' || !isRetried(cls, policy)) break;
    const waitSeconds = ra !== undefined ? clampRetryAfterSeconds(policy, Number(ra)) : drawDelaySeconds(policy, k + 1, () => at(o.draws, k, 0.5));
    gapMs = waitSeconds * o.timeScale * 1000 + at(o.latencies, k + 1, 0);
  }
  return d;
}
