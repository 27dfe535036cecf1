/** `timeout`: a hung attempt was given up at about the 10 s attempt timeout (spec 6.4, section 8). */
import { TIMEOUT_SLACK } from '../options.js';
import { seconds } from '../numbers.js';
import type { Finding, RuleVerdict, TimelineEntry } from '../types.js';
import { attemptList, fromFindings, type DeliveryContext } from './context.js';

/**
 * For each attempt that ended without an answer as a timeout: hookrelay's connection lasted
 * [timeout − TIMEOUT_SLACK.earlyMs, timeout + TIMEOUT_SLACK.lateMs] (measured over the whole
 * attempt, or over the hop that hung when redirects were followed: a sender may time either).
 * The timeout is never scaled by `timeScale`. n/a when no attempt timed out without an answer.
 */
export function judgeTimeout(timeline: readonly TimelineEntry[], { options }: DeliveryContext): RuleVerdict {
  const t = options.attemptTimeoutSeconds * 1000;
  const low = t - TIMEOUT_SLACK.earlyMs;
  const high = t + TIMEOUT_SLACK.lateMs;
  // An answer hookrelay gave after the timeout (a long delay) shows when hookrelay answered, not
  // when the sender gave up: nothing to measure there.
  const findings: Finding[] = timeline
    .filter((a) => a.answerClass === 'timeout' && a.status === null)
    .map((a) => {
      const hop = a.finishedAt - a.lastHopReceivedAt;
      const inside = (ms: number): boolean => ms >= low && ms <= high;
      return {
        attempt: a.position,
        ok: inside(a.durationMs) || inside(hop),
        expected: `given up after ${options.attemptTimeoutSeconds} s: connection ${seconds(low)}–${seconds(high)}`,
        observed: `connection lasted ${seconds(a.durationMs)}${a.hops > 0 ? ` (last hop ${seconds(hop)})` : ''}`,
        bounds: { min: low / 1000, max: high / 1000 },
        value: a.durationMs / 1000,
      };
    });
  const bad = findings.filter((f) => !f.ok);
  return fromFindings('timeout', findings, {
    expected: `a hang given up after ${options.attemptTimeoutSeconds} s (not scaled)`,
    observed: findings.length === 0 ? 'no attempt timed out' : findings.map((f) => f.observed).join(', '),
    pass: `every hang was given up at about ${options.attemptTimeoutSeconds} s`,
    fail: `${attemptList(bad)}: ${bad.map((f) => `${f.observed}, expected ${f.expected}`).join('; ')}`,
    none: 'no attempt hung',
  });
}
