/**
 * One rule as a person or a program hands it over: the one-line text (`--fault`, the console's
 * input) or the JSON form (`--fault-file`, the control API). Both end as the same FaultRule.
 */
import { faultRuleFromJson, parseFaultRule, type FaultRule } from '../core/faults/index.js';

export type RuleInput = { ok: true; rule: FaultRule } | { ok: false; message: string; column?: number };

/**
 * A string is read as the one-line form (refusals carry the 1-based column), an object as the
 * JSON form (refusals name the JSON path); anything else is refused. Never throws.
 */
export function readRuleInput(input: unknown): RuleInput {
  if (typeof input === 'string') {
    const parsed = parseFaultRule(input);
    return parsed.ok ? { ok: true, rule: parsed.rule } : { ok: false, message: parsed.message, column: parsed.column };
  }
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const read = faultRuleFromJson(input);
    return read.ok ? { ok: true, rule: read.rule } : { ok: false, message: read.message };
  }
  return { ok: false, message: 'a rule is a one-line text (e.g. "503 attempt=1") or a JSON rule object with an "answer"' };
}
