/** A stand-in for the fault-rule registry: a tiny one-line syntax, enough to drive the console. */
import type { EventHub } from '../../../src/runtime/event-hub.js';
import type { FaultChange, FaultsAdapter } from '../../../src/console/console-options.js';

export interface FakeRule {
  id: string;
  line: string;
}

export interface FakeFaults extends FaultsAdapter {
  rules: FakeRule[];
}

/** Accepts lines of letters, digits, `=*.,-` and spaces that name a status or hang/reset/close. */
export function checkLine(line: string): { ok: true } | { ok: false; message: string; column: number } {
  const bad = line.search(/[^A-Za-z0-9=*.,\- ]/);
  if (bad >= 0) return { ok: false, message: `unexpected character ${JSON.stringify(line[bad])}`, column: bad + 1 };
  if (!/\b[1-5]\d\d\b|\bhang\b|\breset\b|\bclose\b/.test(line)) return { ok: false, message: 'the rule gives no answer (a status, hang, reset or close)', column: line.length + 1 };
  return { ok: true };
}

export function createFakeFaults(hub?: EventHub): FakeFaults {
  const rules: FakeRule[] = [];
  let next = 1;
  const parse = (rule: unknown): FaultChange => {
    if (typeof rule === 'string') {
      const checked = checkLine(rule.trim());
      return checked.ok ? { ok: true, rule: { id: `r${next}`, line: rule.trim() } } : checked;
    }
    if (rule !== null && typeof rule === 'object' && 'answer' in rule) return { ok: true, rule: { id: `r${next}`, line: JSON.stringify(rule) } };
    return { ok: false, message: 'a JSON rule needs "answer"' };
  };
  const changed = (change: string) => hub?.emit('rules', { rules: [...rules], change });
  return {
    rules,
    list: () => [...rules],
    add(rule) {
      const result = parse(rule);
      if (result.ok) {
        next += 1;
        rules.push(result.rule as FakeRule);
        changed('added');
      }
      return result;
    },
    validate: (rule) => parse(rule),
    replace(id, rule) {
      const index = rules.findIndex((r) => r.id === id);
      if (index < 0) return { ok: false, message: 'no rule with this id', notFound: true };
      const result = parse(rule);
      if (!result.ok) return result;
      rules[index] = { ...(result.rule as FakeRule), id };
      changed('replaced');
      return { ok: true, rule: rules[index] };
    },
    remove(id) {
      const index = rules.findIndex((r) => r.id === id);
      if (index < 0) return false;
      rules.splice(index, 1);
      changed('removed');
      return true;
    },
    clear() {
      rules.splice(0);
      changed('cleared');
    },
  };
}
