/**
 * The condition language of route filters and `--where`: conditions joined by `and`, each
 * `OPERAND OPERATOR [VALUE]`, words separated by spaces (the fault rules' lexer: values quoted
 * with '…' or "…"):
 *
 *   /data/decision = approved and /data/risk >= 70 and header:x-service-event prefix access.
 *   /data/kind in approved,denied     /data/reviewer exists     /data/note not-exists
 *   /data/at > 2026-01-01T00:00:00Z   /data/kind != draft
 *
 * Every problem is found at once, each with its column. Declarative: there is nothing to run.
 */
import { tokenize, type Token } from '../faults/one-line-lexer.js';
import type { Bound, Condition, ConditionProblem, Operator } from './condition.js';
import { instantOf, isNumberText } from './exact-compare.js';
import { compactJson, parseExactJson } from './exact-json.js';
import { clip, parseOperand } from './parse-operand.js';

export type ConditionsParse = { ok: true; conditions: Condition[] } | { ok: false; problems: ConditionProblem[] };

export const MAX_CONDITIONS_LENGTH = 10_000;
export const MAX_IN_VALUES = 1_000;

const OPERATORS: readonly Operator[] = ['=', '!=', 'in', 'prefix', 'exists', 'not-exists', '<', '<=', '>', '>='];
const NO_VALUE: ReadonlySet<Operator> = new Set(['exists', 'not-exists']);
const EXAMPLE = "e.g. '/data/decision = approved'";

/**
 * Reads `COND and COND …`. `columnOffset` is added to every column (the conditions' place in a
 * longer text, such as a route). Never throws.
 */
export function parseConditions(text: string, columnOffset = 0): ConditionsParse {
  if (typeof text !== 'string') return { ok: false, problems: [{ column: 1 + columnOffset, reason: 'conditions must be a text' }] };
  if (text.length > MAX_CONDITIONS_LENGTH) return { ok: false, problems: [{ column: 1 + columnOffset, reason: `conditions are longer than ${MAX_CONDITIONS_LENGTH} characters` }] };
  const lexed = tokenize(text);
  if (!lexed.ok) return { ok: false, problems: [{ column: lexed.column + columnOffset, reason: lexed.reason }] };
  const chars = Array.from(text);
  const words = lexed.tokens.map((t) => wordOf(t, chars));
  if (words.length === 0) return { ok: false, problems: [{ column: 1 + columnOffset, reason: `no condition: write OPERAND OPERATOR VALUE, ${EXAMPLE}` }] };

  const conditions: Condition[] = [];
  const problems: ConditionProblem[] = [];
  // Conditions are the runs of words between `and`s; each run is read on its own, so one bad
  // condition does not hide the problems of the next.
  let run: Word[] = [];
  const endRun = (andAt: Word | null): void => {
    if (run.length === 0) {
      problems.push({ column: andAt?.column ?? chars.length + 1, reason: `expected a condition ${andAt ? 'before "and"' : 'after "and"'}` });
    } else {
      const read = readCondition(run, chars);
      if ('problem' in read) problems.push(read.problem);
      else conditions.push(read.condition);
    }
    run = [];
  };
  for (const word of words) {
    if (word.plain && word.text.toLowerCase() === 'and') endRun(word);
    else run.push(word);
  }
  endRun(null);
  return problems.length > 0
    ? { ok: false, problems: problems.map((p) => ({ ...p, column: p.column + columnOffset })) }
    : { ok: true, conditions: conditions.map((c) => ({ ...c, column: c.column + columnOffset })) };
}

/** The problems in one line each: `reason at column N`. */
export function describeProblems(problems: readonly ConditionProblem[]): string {
  return problems.map((p) => `${p.reason} at column ${p.column}`).join('; ');
}

interface Word {
  column: number;
  text: string;
  /** Written without quotes (so `and` and operators are words, and `'and'` is a value). */
  plain: boolean;
  /** Quoted and holding an unquoted "=" before the quote: the lexer lower-cased that part. */
  unsure: boolean;
}

function wordOf(token: Token, chars: readonly string[]): Word {
  let end = token.column - 1;
  while (end < chars.length && !/\s/u.test(chars[end]!)) end++;
  const raw = chars.slice(token.column - 1, end).join('');
  // Unquoted: the raw text is the word exactly (the lexer lower-cases a key= prefix).
  if (!/['"]/.test(raw)) return { column: token.column, text: raw, plain: true, unsure: false };
  return { column: token.column, text: token.key === null ? token.value : `${token.key}=${token.value}`, plain: false, unsure: token.key !== null };
}

function readCondition(run: readonly Word[], chars: readonly string[]): { condition: Condition } | { problem: ConditionProblem } {
  const [first, opWord, ...rest] = run;
  const at = (w: Word, reason: string): { problem: ConditionProblem } => ({ problem: { column: w.column, reason } });
  // A dotted path's `["odd.key"]` quotes belong to the path: read it as written unless quoted whole.
  const raw = chars.slice(first!.column - 1, endOf(first!, chars)).join('');
  const left: Word = /^['"]/.test(raw) ? first! : { ...first!, text: raw, unsure: false };
  if (left.unsure) return at(left, 'quote the whole path, not a part of it');
  const compact = /^(.+?)(!=|<=|>=|=|<|>)(.*)$/.exec(left.text);
  if (opWord === undefined) {
    if (left.plain && compact) return at(left, `write spaces around the operator: '${clip(compact[1]!, 40)} ${compact[2]} ${clip(compact[3]!, 40)}'`);
    return at(left, `${JSON.stringify(clip(left.text, 40))} needs an operator (${OPERATORS.join(', ')}), ${EXAMPLE}`);
  }
  const operand = parseOperand(left.text);
  if (!operand.ok) return at(left, operand.reason);

  let op = opWord.text.toLowerCase() as Operator;
  let values = rest;
  if (opWord.plain && op === ('not' as Operator) && rest[0]?.plain && rest[0].text.toLowerCase() === 'exists') {
    op = 'not-exists';
    values = rest.slice(1);
  }
  if (!opWord.plain || !OPERATORS.includes(op)) {
    return at(opWord, `unknown operator ${JSON.stringify(clip(opWord.text, 40))}: use ${OPERATORS.join(', ')} (spaces around it)`);
  }
  const text = chars.slice(left.column - 1, endOf(run[run.length - 1]!, chars)).join('');
  const base = { text, column: left.column, operand: operand.operand, operandText: left.text, op };
  if (NO_VALUE.has(op)) {
    if (values.length > 0) return at(values[0]!, `${op} takes no value (join another condition with "and")`);
    return { condition: { ...base, values: [] } };
  }
  if (values.length === 0) return at(opWord, `${op} needs a value after it`);
  if (values.length > 1) return at(values[1]!, `one value after ${op}; quote a value holding spaces ('two words'), or join another condition with "and"`);
  const value = values[0]!;
  if (value.unsure) return at(value, 'quote the whole value, not a part of it');
  if (op === 'in') {
    const list = listOf(value.text);
    return typeof list === 'string' ? at(value, list) : { condition: { ...base, values: list } };
  }
  if (op === '=' || op === '!=' || op === 'prefix') return { condition: { ...base, values: [value.text] } };
  const bound = boundOf(value.text);
  return bound ? { condition: { ...base, values: [], bound } } : at(value, `${op} compares with a number (e.g. 70, -1.5, 1e3) or an RFC 3339 time (e.g. 2026-01-01T00:00:00Z), not ${JSON.stringify(clip(value.text, 40))}`);
}

/** The end (exclusive, in code points) of a word's raw text. */
function endOf(word: Word, chars: readonly string[]): number {
  let i = word.column - 1;
  let quote: string | null = null;
  while (i < chars.length && (quote !== null || !/\s/u.test(chars[i]!))) {
    const c = chars[i]!;
    if (quote !== null && c === '\\') i++;
    else if (quote === null && (c === "'" || c === '"')) quote = c;
    else if (c === quote) quote = null;
    i++;
  }
  return i;
}

/** `a,b,c`, or a JSON array of strings, numbers, booleans and nulls; a reason when it is neither. */
function listOf(text: string): string[] | string {
  if (text.startsWith('[')) {
    const parsed = parseExactJson(text);
    if (!Array.isArray(parsed)) return 'in takes a,b,c or a JSON array (["a,b", "c"])';
    if (parsed.some((v) => typeof v === 'object' && v !== null && !('jsonNumber' in v))) return 'in compares with strings, numbers, true, false or null, not arrays or objects';
    if (parsed.length === 0) return 'in needs at least one value';
    if (parsed.length > MAX_IN_VALUES) return `in takes at most ${MAX_IN_VALUES} values`;
    return parsed.map((v) => (typeof v === 'string' ? v : compactJson(v)));
  }
  const list = text.split(',');
  if (list.some((v) => v === '')) return 'an empty value in the list (write a,b,c; quote a JSON array for a value holding a comma)';
  if (list.length > MAX_IN_VALUES) return `in takes at most ${MAX_IN_VALUES} values`;
  return list;
}

function boundOf(text: string): Bound | undefined {
  if (isNumberText(text)) return { kind: 'number', text };
  const instant = instantOf(text);
  return instant ? { kind: 'time', text, ...instant } : undefined;
}
