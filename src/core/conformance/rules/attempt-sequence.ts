/** `attempt-sequence`: x-service-delivery-attempt is 1, 2, 3… in hookrelay's arrival order (spec 6.1). */
import type { Finding, RuleVerdict, TimelineEntry } from '../types.js';
import { attemptList, fromFindings } from './context.js';

/**
 * Fails every attempt whose header is not its position in hookrelay's own count. When the first
 * attempt seen carries a header above 1, the earlier ones never arrived here (the receiver was down,
 * or they went elsewhere): the count starts there, and the verdict says so.
 */
export function judgeAttemptSequence(timeline: readonly TimelineEntry[]): RuleVerdict {
  const unseen = (timeline[0]?.position ?? 1) - 1;
  const note = unseen === 0 ? '' : `; attempt${unseen === 1 ? ' 1 was' : `s 1–${unseen} were`} not seen here (the receiver was down, or they went elsewhere): judged from attempt ${unseen + 1}`;
  const findings: Finding[] = timeline.map((a) => ({
    attempt: a.position,
    ok: a.attemptHeader === a.position,
    expected: `header ${a.position}`,
    observed: a.attemptHeader === null ? 'no usable header' : `header ${a.attemptHeader}`,
    value: a.attemptHeader,
  }));
  const expected = timeline.map((a) => a.position).join(',');
  const observed = timeline.map((a) => (a.attemptHeader === null ? '-' : String(a.attemptHeader))).join(',');
  const bad = findings.filter((f) => !f.ok);
  return fromFindings('attempt-sequence', findings, {
    expected,
    observed,
    pass: (timeline.length === 1 ? `attempt header ${unseen + 1} on the only attempt seen` : `attempt headers ${observed} rise by one from ${unseen + 1} in arrival order`) + note,
    fail: `attempt headers ${observed} in arrival order, expected ${expected} (${attemptList(bad)}: ${bad.map((f) => f.observed).join(', ')}); a gap, repeat or reorder${note}`,
  });
}
