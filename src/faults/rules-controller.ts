/**
 * The fault rules of a running receiver (issue 4): the current list in evaluation order, an id
 * per rule, how often each rule fired, and the seeded random source of `p=`. The receiver asks
 * it which rule answers an arrival; the console's control API lists and changes the rules
 * through it. Every change is announced on the hub as a `rules` event.
 */
import type { EventHub } from '../runtime/event-hub.js';
import {
  MAX_RULES,
  decideFault,
  emptyFaultState,
  faultRuleKey,
  faultRuleToJson,
  formatFaultRule,
  type FaultArrival,
  type FaultDecision,
  type FaultRule,
  type FaultRuleJson,
  type FaultState,
  shadowingRule,
} from '../core/faults/index.js';
import { mulberry32 } from '../core/seeded-random.js';
import { readRuleInput } from './rule-input.js';

/** A rule as the control API shows it. */
export interface FaultRuleView {
  /** The rule's own `id`, or one hookrelay gave it (`r1`, `r2`, …). */
  id: string;
  /** The canonical one-line form. */
  line: string;
  /** The JSON form. */
  rule: FaultRuleJson;
  /** How many times the rule has fired (see docs/faults.md, "Exact semantics"). */
  fired: number;
  /** The id of an earlier rule that answers every arrival this one would match: this one never fires. */
  shadowedBy?: string;
}

/** The answer to a change: the rule as stored, or why it was refused. */
export type RuleChange =
  | { ok: true; rule: FaultRuleView }
  | { ok: false; message: string; column?: number; notFound?: boolean };

/** Which rules one stage holds: `pre` the pre-verify rules, `post` the others. */
export interface StageFlags {
  /** Whether any rule is decided at this stage. */
  readonly any: boolean;
  /** Whether a rule of this stage has an `arrival=` condition (only then is the store asked). */
  readonly arrival: boolean;
}

/** What the receiver needs to decide faults. */
export interface FaultDecider {
  /**
   * The flags of each stage, kept up to date in place as rules change: the pipeline reads them on
   * every arrival, so an arrival with no rule to decide calls nothing of the fault code.
   */
  readonly stages: Readonly<Record<'pre' | 'post', StageFlags>>;
  /** The rule that fires for `arrival`, counting the firing. */
  decide(arrival: FaultArrival): FaultDecision;
}

export interface FaultRules extends FaultDecider {
  /** Seed of the random source of `p=`: the same seed and arrivals give the same faults. */
  readonly seed: number;
  list(): FaultRuleView[];
  /** Adds a rule (one-line text or JSON form) at the end of the list. */
  add(input: unknown): RuleChange;
  /** Checks a rule as `add` would, without adding it. */
  validate(input: unknown): RuleChange;
  /** Puts a rule in the place of rule `id`, keeping its id (and, for a named rule, its fire count). */
  replace(id: string, input: unknown): RuleChange;
  /** False when no rule has this id. */
  remove(id: string): boolean;
  /** Moves rule `id` to `position` (1 = first: rules are tried in order), keeping its id and fire count. */
  move(id: string, position: number): RuleChange;
  /** Removes every rule and forgets every fire count. */
  clear(): void;
}

export interface FaultRulesOptions {
  /** The rules at startup, already valid (ids unique). */
  rules?: readonly FaultRule[];
  seed: number;
  hub?: EventHub;
}

interface Entry {
  id: string;
  rule: FaultRule;
}

export function createFaultRules(options: FaultRulesOptions): FaultRules {
  const seed = options.seed >>> 0;
  const random = mulberry32(seed);
  let entries: Entry[] = [];
  let rules: FaultRule[] = [];
  let state: FaultState = emptyFaultState();
  let nextAuto = 1;
  const stages: Record<'pre' | 'post', { any: boolean; arrival: boolean }> = { pre: { any: false, arrival: false }, post: { any: false, arrival: false } };

  const autoId = (): string => {
    let id: string;
    do id = `r${nextAuto++}`;
    while (entries.some((e) => e.id === id));
    return id;
  };

  const refresh = (): void => {
    rules = entries.map((e) => e.rule);
    for (const [name, verified] of [['pre', false], ['post', true]] as const) {
      const own = rules.filter((r) => Boolean(r.beforeVerify) !== verified);
      stages[name].any = own.length > 0;
      stages[name].arrival = own.some((r) => r.match.arrival !== undefined);
    }
  };

  /** `entry` as the API shows it, in the list `within` (its position there decides whether an earlier rule hides it). */
  const view = (entry: Entry, within: readonly Entry[] = entries): FaultRuleView => {
    const at = within.indexOf(entry);
    const hiddenBy = at < 0 ? null : shadowingRule(within.map((e) => e.rule), at);
    return {
      id: entry.id,
      line: formatFaultRule(entry.rule),
      rule: faultRuleToJson(entry.rule),
      fired: state.firedCounts.get(faultRuleKey(entry.rule)) ?? 0,
      ...(hiddenBy === null ? {} : { shadowedBy: within[hiddenBy]!.id }),
    };
  };

  /** Forgets the counts of keys no remaining rule uses. */
  const forgetUnused = (): void => {
    const used = new Set(rules.map(faultRuleKey));
    if ([...state.firedCounts.keys()].every((k) => used.has(k))) return;
    state = { firedCounts: new Map([...state.firedCounts].filter(([k]) => used.has(k))) };
  };

  const announce = (change: string): void => {
    options.hub?.emit('rules', { rules: entries.map((e) => view(e)), change });
  };

  /** The rule `input` describes, checked against the list as it would be after the change. */
  const check = (input: unknown, replacing: Entry | null): { ok: true; rule: FaultRule } | Extract<RuleChange, { ok: false }> => {
    const read = readRuleInput(input);
    if (!read.ok) return read;
    let rule = read.rule;
    if (replacing === null && entries.length >= MAX_RULES) return { ok: false, message: `at most ${MAX_RULES} rules: remove one first` };
    if (replacing !== null) {
      if (rule.id !== undefined && rule.id !== replacing.id) {
        return { ok: false, message: `the rule's id (${rule.id}) differs from the id of the rule it replaces (${replacing.id})` };
      }
      // A named rule keeps its name, and so its fire count, when its content changes.
      if (rule.id === undefined && replacing.rule.id !== undefined) rule = { ...rule, id: replacing.id };
    } else if (rule.id !== undefined) {
      const taken = entries.findIndex((e) => e.id === rule.id);
      if (taken >= 0) return { ok: false, message: `id ${rule.id} is taken by rule ${taken + 1}: pick another, or replace that rule` };
    }
    return { ok: true, rule };
  };

  for (const rule of options.rules ?? []) entries.push({ id: rule.id ?? autoId(), rule });
  refresh();

  return {
    seed,
    stages,
    decide(arrival) {
      const decision = decideFault(rules, arrival, state, random);
      if (decision.matched) state = decision.state;
      return decision;
    },
    list: () => entries.map((e) => view(e)),
    add(input) {
      const checked = check(input, null);
      if (!checked.ok) return checked;
      const entry: Entry = { id: checked.rule.id ?? autoId(), rule: checked.rule };
      entries = [...entries, entry];
      refresh();
      const shown = view(entry);
      announce(`added ${entry.id}: ${shown.line}`);
      return { ok: true, rule: shown };
    },
    validate(input) {
      const checked = check(input, null);
      if (!checked.ok) return checked;
      const candidate: Entry = { id: checked.rule.id ?? '(new)', rule: checked.rule };
      return { ok: true, rule: view(candidate, [...entries, candidate]) };
    },
    replace(id, input) {
      const index = entries.findIndex((e) => e.id === id);
      if (index < 0) return { ok: false, message: `no fault rule with id ${id}`, notFound: true };
      const old = entries[index]!;
      const checked = check(input, old);
      if (!checked.ok) return checked;
      const entry: Entry = { id, rule: checked.rule };
      entries = entries.map((e, i) => (i === index ? entry : e));
      refresh();
      forgetUnused();
      const shown = view(entry);
      announce(`replaced ${id}: ${shown.line} (was ${formatFaultRule(old.rule)})`);
      return { ok: true, rule: shown };
    },
    move(id, position) {
      const index = entries.findIndex((e) => e.id === id);
      if (index < 0) return { ok: false, message: `no fault rule with id ${id}`, notFound: true };
      if (!Number.isSafeInteger(position) || position < 1 || position > entries.length) {
        return { ok: false, message: `position must be a whole number from 1 to ${entries.length}` };
      }
      const entry = entries[index]!;
      const rest = entries.filter((e) => e !== entry);
      entries = [...rest.slice(0, position - 1), entry, ...rest.slice(position - 1)];
      refresh();
      announce(`moved ${id} to position ${position}: ${formatFaultRule(entry.rule)}`);
      return { ok: true, rule: view(entry) };
    },
    remove(id) {
      const old = entries.find((e) => e.id === id);
      if (old === undefined) return false;
      entries = entries.filter((e) => e !== old);
      refresh();
      forgetUnused();
      announce(`removed ${id}: ${formatFaultRule(old.rule)}`);
      return true;
    },
    clear() {
      const count = entries.length;
      entries = [];
      refresh();
      state = emptyFaultState();
      announce(`cleared ${count === 1 ? '1 rule' : `${count} rules`}: every arrival is handled normally`);
    },
  };
}
