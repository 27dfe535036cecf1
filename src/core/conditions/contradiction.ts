/**
 * Conditions that can never all hold, found by reading them (not every such set: the plain
 * cases a typo makes). Two conditions are on one place when their operands are written alike.
 */
import type { Condition } from './condition.js';
import { compareInstants, compareNumberTexts, isNumberText } from './exact-compare.js';

/** Why these conditions never all hold, or null when this check finds no reason. */
export function contradictionOf(conditions: readonly Condition[]): string | null {
  const byPlace = new Map<string, Condition[]>();
  for (const c of conditions) {
    const key = c.operand.kind === 'header' ? `header:${c.operand.name}` : c.operandText;
    byPlace.set(key, [...(byPlace.get(key) ?? []), c]);
  }
  for (const group of byPlace.values()) {
    for (let i = 0; i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        if (excludes(group[i]!, group[j]!) || excludes(group[j]!, group[i]!)) return `'${group[i]!.text}' and '${group[j]!.text}' never both hold`;
      }
    }
  }
  return null;
}

const NEEDS_VALUE = new Set(['=', 'in', 'prefix', '<', '<=', '>', '>=', 'exists']);

function excludes(a: Condition, b: Condition): boolean {
  if (a.op === 'not-exists') return NEEDS_VALUE.has(b.op);
  if (a.op === '=' && b.op === '=') return !same(a.values[0]!, b.values[0]!);
  if (a.op === '=' && b.op === '!=') return same(a.values[0]!, b.values[0]!);
  if (a.op === '=' && b.op === 'in') return !b.values.some((v) => same(a.values[0]!, v));
  if (a.op === 'in' && b.op === 'in') return !a.values.some((v) => b.values.some((w) => same(v, w)));
  if ((a.op === '>' || a.op === '>=') && (b.op === '<' || b.op === '<=') && a.bound!.kind === b.bound!.kind) {
    const order = a.bound!.kind === 'number' ? compareNumberTexts(a.bound!.text, (b.bound as { text: string }).text) : compareInstants(a.bound as never, b.bound as never);
    return order > 0 || (order === 0 && (a.op === '>' || b.op === '<'));
  }
  return false;
}

/** Equal as `=` judges them: the same text, or two numbers of one value. */
const same = (a: string, b: string): boolean => a === b || (isNumberText(a) && isNumberText(b) && compareNumberTexts(a, b) === 0);
