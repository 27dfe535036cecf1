/** Summary counts and the exit code of a check (issue 7: exit 1 if any rule failed). */
import { DELIVERY_RULES, type CheckSummary, type DeliveryVerdict, type RuleCounts, type RunVerdict, type SuspensionVerdict } from './types.js';

/** Counts deliveries and rule verdicts; `suspension` counts as one more rule. */
export function summarize(deliveries: readonly DeliveryVerdict[], suspension: SuspensionVerdict): CheckSummary {
  const rules = Object.fromEntries([...DELIVERY_RULES, 'suspension'].map((r) => [r, { pass: 0, fail: 0, 'n/a': 0 }])) as CheckSummary['rules'];
  for (const d of deliveries) for (const r of d.rules) (rules[r.rule] as RuleCounts)[r.status] += 1;
  rules.suspension[suspension.status] += 1;
  return {
    deliveries: deliveries.length,
    passed: deliveries.filter((d) => d.status === 'pass').length,
    failed: deliveries.filter((d) => d.status === 'fail').length,
    retrying: deliveries.filter((d) => d.state === 'retrying').length,
    rules,
    failures: Object.values(rules).reduce((sum, c) => sum + c.fail, 0),
  };
}

/** 1 when any rule failed (a delivery rule or suspension), else 0. Nothing judged is 0. */
export function checkExitCode(verdict: Pick<RunVerdict, 'deliveries' | 'suspension'>): 0 | 1 {
  const failed = verdict.suspension.status === 'fail' || verdict.deliveries.some((d) => d.rules.some((r) => r.status === 'fail'));
  return failed ? 1 : 0;
}
