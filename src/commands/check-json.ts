/**
 * `check --json`: the run's verdict (core/conformance) as docs/cli-json.md documents it. The judge's
 * records keep their names; the common names of issue 42 (docs/cli-json.md, Names) are added here,
 * beside the deprecated ones and holding the same values: `verdict` for a pass or fail,
 * `responseStatus` for the status hookrelay answered, `attemptNumber` for the sender's own number
 * (its attempt header), `position` for the timeline entry a finding is about.
 */
import type { DeliveryVerdict, Finding, RuleVerdict, RunVerdict, TimelineEntry } from '../core/conformance/index.js';

const findingJson = (f: Finding) => ({ ...f, position: f.attempt });

const ruleJson = <R extends RuleVerdict<string>>(r: R) => ({ ...r, verdict: r.status, findings: r.findings.map(findingJson) });

const timelineJson = (t: TimelineEntry) => ({ ...t, responseStatus: t.status, attemptNumber: t.attemptHeader });

const deliveryJson = (d: DeliveryVerdict) => ({ ...d, timeline: d.timeline.map(timelineJson), rules: d.rules.map(ruleJson), verdict: d.status });

/** The verdict as `check --json` prints it. */
export const checkJson = (run: RunVerdict) => ({ deliveries: run.deliveries.map(deliveryJson), suspension: ruleJson(run.suspension), summary: run.summary });
