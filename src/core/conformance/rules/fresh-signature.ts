/** `fresh-signature`: every attempt signed afresh with its own `t`, inside the tolerance of its arrival (spec 6.3). */
import { seconds } from '../numbers.js';
import type { Finding, RuleVerdict, TimelineEntry } from '../types.js';
import { attemptList, fromFindings, type DeliveryContext } from './context.js';

// hookrelay's receiver codes for a signature it refused (src/ingest/pipeline.ts).
const SIGNATURE_REFUSAL = /^(SIGNATURE_[A-Z0-9_]+|TIMESTAMP_TOO_OLD|TIMESTAMP_IN_FUTURE)$/;

/**
 * For each attempt: hookrelay did not refuse its signature; a `t` is present; |t − arrival| ≤ tolerance; and `t` is later than the previous
 * attempt's. `t` has one-second resolution, so two honest signatures less than a second apart may
 * share it: a new `t` is demanded only when the arrivals are at least 1 s + `slack.lateMs` apart
 * (the latency between signing and arriving varies by up to the slack); closer arrivals (only seen
 * with `--time-scale`) must merely not go back. n/a when no attempt was signed at all (and none was
 * refused for it: signing off, or a receiver run with --skip-verify).
 */
export function judgeFreshSignature(timeline: readonly TimelineEntry[], { options }: DeliveryContext): RuleVerdict {
  const tolerance = options.toleranceSeconds;
  const strictGapMs = 1000 + options.slack.lateMs;
  const findings: Finding[] = [];
  const refused = (a: TimelineEntry): boolean => a.outcome === 'rejected' && typeof a.reason === 'string' && SIGNATURE_REFUSAL.test(a.reason);
  const signed = timeline.some((a) => a.signatureTimestamp !== null || refused(a));
  if (signed) {
    timeline.forEach((a, i) => {
      if (refused(a)) {
        findings.push({ attempt: a.position, ok: false, expected: 'a signature hookrelay accepts', observed: `refused by hookrelay: ${a.reason}` });
      }
      const t = a.signatureTimestamp;
      if (t === null || !Number.isFinite(t)) {
        findings.push({ attempt: a.position, ok: false, expected: 'a signature with a timestamp', observed: 'no readable signature t' });
        return;
      }
      const skew = t - a.receivedAt / 1000;
      findings.push({
        attempt: a.position,
        ok: Math.abs(skew) <= tolerance,
        expected: `t within ±${tolerance} s of arrival`,
        observed: `t ${t} is ${skew >= 0 ? '+' : ''}${skew.toFixed(3)} s from arrival`,
        bounds: { min: -tolerance, max: tolerance },
        value: skew,
      });
      const prev = timeline[i - 1];
      if (!prev || prev.signatureTimestamp === null) return;
      const apartMs = a.receivedAt - prev.receivedAt;
      const strict = apartMs >= strictGapMs;
      const advance = t - prev.signatureTimestamp;
      findings.push({
        attempt: a.position,
        ok: strict ? advance > 0 : advance >= 0,
        expected: strict
          ? `a new t, later than attempt ${prev.position}'s ${prev.signatureTimestamp} (arrivals ${seconds(apartMs)} apart)`
          : `t not before attempt ${prev.position}'s ${prev.signatureTimestamp} (arrivals ${seconds(apartMs)} apart: may share the second)`,
        observed: advance === 0 ? `t ${t} reused` : `t ${t} (${advance > 0 ? '+' : ''}${advance} s)`,
        bounds: { min: strict ? 1 : 0, max: null },
        value: advance,
      });
    });
  }
  const bad = findings.filter((f) => !f.ok);
  return fromFindings('fresh-signature', findings, {
    expected: `a new t on every attempt, each within ±${tolerance} s of its arrival`,
    observed: signed ? `t ${timeline.map((a) => a.signatureTimestamp ?? '-').join(', ')}` : 'no attempt signed',
    pass: 'every attempt was signed afresh, inside the tolerance',
    fail: `${attemptList(bad)}: ${bad.map((f) => `${f.observed} (expected ${f.expected})`).join('; ')}`,
    none: 'no attempt carried a signature (signing off, or received with --skip-verify)',
  });
}
