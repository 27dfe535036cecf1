/** Reading verdicts in tests. */
import type { DeliveryVerdict, RuleName, RuleStatus, RunVerdict } from '../../../src/core/conformance/types.js';

export function ruleStatus(d: DeliveryVerdict, rule: RuleName): RuleStatus {
  const found = d.rules.find((r) => r.rule === rule);
  if (!found) throw new Error(`no rule ${rule}`);
  return found.status;
}

/** Every failing rule in the run, as "rule" (deduplicated, sorted). */
export function failingRules(v: RunVerdict): string[] {
  const names = new Set<string>();
  for (const d of v.deliveries) for (const r of d.rules) if (r.status === 'fail') names.add(r.rule);
  if (v.suspension.status === 'fail') names.add('suspension');
  return [...names].sort();
}

/** Map of rule → status for one delivery. */
export function statuses(d: DeliveryVerdict): Record<string, RuleStatus> {
  return Object.fromEntries(d.rules.map((r) => [r.rule, r.status]));
}
