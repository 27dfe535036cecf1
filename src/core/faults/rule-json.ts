/**
 * Reading the JSON form of rules, for `--fault-file` and the control API (docs/faults.md; the
 * shape and its writer are in rule-json-write.ts). Each value is checked on its own here; the
 * checks across fields and the building of the rule are the one-line form's too (assemble-rule.ts).
 */
import { closestName } from '../closest-name.js';
import { assembleRule, type RuleFields, type RuleProblem } from './assemble-rule.js';
import { checkRange, parseRangeText } from './attempt-range.js';
import {
  checkBody,
  checkDelayMs,
  checkGlob,
  checkHeaderName,
  checkHeaderValue,
  checkHops,
  checkId,
  checkProbability,
  checkRedirectStatus,
  checkStatus,
  checkTimes,
  type Check,
} from './field-checks.js';
import { parseFaultRule } from './parse-rule.js';
import { parseRetryAfterText, secondsSpec } from './retry-after.js';
import { MAX_HEADERS, type AttemptRange, type FaultMatch, type FaultRule, type RetryAfterSpec } from './rule.js';

export { faultRuleToJson, faultRulesToJson } from './rule-json-write.js';
export type { FaultAnswerJson, FaultRuleFileJson, FaultRuleJson } from './rule-json-write.js';

export type FaultRuleJsonResult = { ok: true; rule: FaultRule } | { ok: false; path: string; message: string };
/** A problem of a rule file: the JSON path it is at, and a message that names the path. */
export interface RuleJsonProblem {
  path: string;
  message: string;
}
export type FaultRulesJsonResult = { ok: true; rules: FaultRule[] } | { ok: false; problems: RuleJsonProblem[] };

export const MAX_RULES = 1000;

const ANSWER_KINDS = ['status', 'delay', 'hang', 'reset', 'close', 'redirect', 'accept'] as const;

/** Thrown only inside this module to unwind a validation; never escapes it. */
class Refusal {
  constructor(
    readonly path: string,
    readonly message: string,
  ) {}
}

/**
 * Validates an unknown JSON value (already parsed) into a FaultRule. Refuses with the JSON path
 * of the first problem and a message naming it, e.g. `answer.status must be an integer 100-599`.
 * Never throws.
 */
export function faultRuleFromJson(value: unknown, path = ''): FaultRuleJsonResult {
  try {
    return { ok: true, rule: readRule(value, path) };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, path: e.path, message: e.message };
    return { ok: false, path, message: `${name(path)} could not be read` };
  }
}

/**
 * Validates the file / list form `{ "rules": [ … ] }`; each entry is a JSON rule or a one-line
 * rule text. Refuses with every bad rule's problem, in order, each at its path (`rules[2].answer.status …`;
 * a rule's first problem only, as a one-line rule gives one), and every duplicate id among the
 * rules that read. A file that is not `{ "rules": [ … ] }` is one problem. Never throws.
 */
export function faultRulesFromJson(value: unknown): FaultRulesJsonResult {
  let list: unknown[];
  try {
    const obj = readObject(value, '', ['rules']);
    if (!Object.hasOwn(obj, 'rules')) throw new Refusal('rules', 'rules is missing: expected { "rules": [ … ] }');
    const rules = obj['rules'];
    if (!Array.isArray(rules)) throw new Refusal('rules', 'rules must be an array');
    if (rules.length > MAX_RULES) throw new Refusal('rules', `rules must hold at most ${MAX_RULES} rules`);
    list = rules;
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, problems: [{ path: e.path, message: e.message }] };
    return { ok: false, problems: [{ path: '', message: 'rule file could not be read' }] };
  }
  const rules: FaultRule[] = [];
  const problems: RuleJsonProblem[] = [];
  const ids = new Map<string, number>();
  list.forEach((entry: unknown, i) => {
    const at = `rules[${i}]`;
    const read = readEntry(entry, at);
    if (!read.ok) {
      problems.push({ path: read.path, message: read.message });
      return;
    }
    const { rule } = read;
    if (rule.id !== undefined) {
      const first = ids.get(rule.id);
      if (first !== undefined) problems.push({ path: `${at}.id`, message: `${at}.id duplicates the id of rules[${first}] (${rule.id})` });
      else ids.set(rule.id, i);
    }
    rules.push(rule);
  });
  return problems.length === 0 ? { ok: true, rules } : { ok: false, problems };
}

/** One entry of a rule file: a one-line rule text, or a JSON rule. */
function readEntry(entry: unknown, at: string): FaultRuleJsonResult {
  if (typeof entry !== 'string') return faultRuleFromJson(entry, at);
  const parsed = parseFaultRule(entry);
  return parsed.ok ? { ok: true, rule: parsed.rule } : { ok: false, path: at, message: `${at}: ${parsed.message}` };
}

function readRule(value: unknown, path: string): FaultRule {
  const obj = readObject(value, path, ['id', 'match', 'answer', 'limit', 'beforeVerify']);
  const answerPath = join(path, 'answer');
  if (!Object.hasOwn(obj, 'answer')) throw new Refusal(answerPath, `${name(answerPath)} is missing`);
  const fields: RuleFields<string> = {
    match: Object.hasOwn(obj, 'match') ? readMatch(obj['match'], join(path, 'match')) : {},
    answer: null,
    options: [],
  };
  readAnswer(obj['answer'], answerPath, fields);
  if (Object.hasOwn(obj, 'id')) fields.id = field(checkId(obj['id']), join(path, 'id'));
  if (Object.hasOwn(obj, 'limit')) {
    const limitPath = join(path, 'limit');
    const limit = readObject(obj['limit'], limitPath, ['times']);
    if (!Object.hasOwn(limit, 'times')) throw new Refusal(join(limitPath, 'times'), `${join(limitPath, 'times')} is missing`);
    fields.times = field(checkTimes(limit['times']), join(limitPath, 'times'));
  }
  if (Object.hasOwn(obj, 'beforeVerify')) {
    const b = obj['beforeVerify'];
    if (typeof b !== 'boolean') throw new Refusal(join(path, 'beforeVerify'), `${join(path, 'beforeVerify')} must be true or false`);
    fields.beforeVerify = b;
  }
  const assembled = assembleRule(fields);
  if (!assembled.ok) throw refusal(assembled.problem, answerPath, fields);
  return assembled.rule;
}

/** A refusal of the shared assembly in the JSON form's words, at a JSON path. */
function refusal(problem: RuleProblem<string>, answerPath: string, fields: RuleFields<string>): Refusal {
  switch (problem.code) {
    case 'no_answer':
      return new Refusal(answerPath, `${name(answerPath)} is missing`);
    case 'option_not_for_answer':
      return new Refusal(problem.at, `${problem.at} is not allowed with kind ${fields.answer?.head.kind}`);
    case 'too_many_headers': {
      const headersPath = join(answerPath, 'headers');
      return new Refusal(headersPath, `${headersPath} must hold at most ${MAX_HEADERS} headers`);
    }
    case 'duplicate_header':
      return new Refusal(problem.at, `${problem.at} duplicates another header (names are case-insensitive)`);
    case 'retry_after_twice':
      return new Refusal(problem.at, `${problem.at} is also given as a header: use one of them`);
    case 'body_not_allowed':
      return new Refusal(problem.at, `${problem.at} is not allowed: a ${problem.status} answer has no body`);
    case 'hops_and_no_location':
      return new Refusal(problem.at, `${problem.at} conflicts with ${problem.other}: a chain of hops has a Location`);
    case 'hops_need_post':
      return new Refusal(problem.at, `${problem.at} needs status 307 or 308 (only they keep the POST), not ${problem.status}`);
  }
}

function readMatch(value: unknown, path: string): FaultMatch {
  const obj = readObject(value, path, ['trigger', 'delivery', 'attempt', 'arrival', 'p']);
  const match: FaultMatch = {};
  if (Object.hasOwn(obj, 'trigger')) match.trigger = field(checkGlob(obj['trigger']), join(path, 'trigger'));
  if (Object.hasOwn(obj, 'delivery')) match.delivery = field(checkGlob(obj['delivery']), join(path, 'delivery'));
  if (Object.hasOwn(obj, 'attempt')) match.attempt = readRange(obj['attempt'], join(path, 'attempt'));
  if (Object.hasOwn(obj, 'arrival')) match.arrival = readRange(obj['arrival'], join(path, 'arrival'));
  if (Object.hasOwn(obj, 'p')) match.p = field(checkProbability(obj['p']), join(path, 'p'));
  return match;
}

function readRange(value: unknown, path: string): AttemptRange {
  if (typeof value === 'number') return field(checkRange({ from: value, to: value }), path);
  if (typeof value === 'string') return field(parseRangeText(value), path);
  throw new Refusal(path, `${path} must be a number or a range text such as "2-4" or "3-"`);
}

/** Reads the answer object into `fields`: its head and its options, each checked on its own. */
function readAnswer(value: unknown, path: string, fields: RuleFields<string>): void {
  const kindPath = join(path, 'kind');
  if (!isObject(value)) throw new Refusal(path, `${name(path)} must be an object with a kind`);
  const kind = value['kind'];
  if (!Object.hasOwn(value, 'kind') || typeof kind !== 'string' || !(ANSWER_KINDS as readonly string[]).includes(kind)) {
    throw new Refusal(kindPath, `${kindPath} must be one of ${ANSWER_KINDS.join(', ')}`);
  }
  const at = (key: string): string => join(path, key);
  switch (kind as (typeof ANSWER_KINDS)[number]) {
    case 'status': {
      const obj = readObject(value, path, ['kind', 'status', 'headers', 'body', 'retryAfter'], kind);
      fields.answer = { head: { kind: 'status', status: field(checkStatus(required(obj, 'status', path)), at('status')) }, at: path };
      if (Object.hasOwn(obj, 'headers')) readHeaders(obj['headers'], at('headers'), fields);
      if (Object.hasOwn(obj, 'body')) fields.options.push({ name: 'body', value: field(checkBody(obj['body']), at('body')), at: at('body') });
      if (Object.hasOwn(obj, 'retryAfter')) {
        fields.options.push({ name: 'retry-after', value: readRetryAfter(obj['retryAfter'], at('retryAfter')), at: at('retryAfter') });
      }
      return;
    }
    case 'delay': {
      const obj = readObject(value, path, ['kind', 'ms'], kind);
      fields.answer = { head: { kind: 'delay', ms: field(checkDelayMs(required(obj, 'ms', path)), at('ms')) }, at: path };
      return;
    }
    case 'hang': {
      const obj = readObject(value, path, ['kind', 'slowHeaders'], kind);
      const slow = Object.hasOwn(obj, 'slowHeaders') ? obj['slowHeaders'] : false;
      if (typeof slow !== 'boolean') throw new Refusal(at('slowHeaders'), `${at('slowHeaders')} must be true or false`);
      fields.answer = { head: { kind: 'hang' }, at: path };
      if (slow) fields.options.push({ name: 'slow-headers', at: at('slowHeaders') });
      return;
    }
    case 'redirect': {
      const obj = readObject(value, path, ['kind', 'status', 'hops'], kind);
      fields.answer = { head: { kind: 'redirect' }, at: path };
      if (Object.hasOwn(obj, 'status')) fields.options.push({ name: 'status=', value: field(checkRedirectStatus(obj['status']), at('status')), at: at('status') });
      const hops = Object.hasOwn(obj, 'hops') ? obj['hops'] : null;
      if (hops !== null) fields.options.push({ name: 'hops', value: field(checkHops(hops), at('hops')), at: at('hops') });
      return;
    }
    case 'reset':
    case 'close':
    case 'accept':
      readObject(value, path, ['kind'], kind);
      fields.answer = { head: { kind: kind as 'reset' | 'close' | 'accept' }, at: path };
      return;
  }
}

/** Headers as an object of names to texts; each becomes a header option at its own path. */
function readHeaders(headers: unknown, path: string, fields: RuleFields<string>): void {
  if (!isObject(headers)) throw new Refusal(path, `${path} must be an object of header names to texts`);
  for (const [key, v] of Object.entries(headers)) {
    const at = joinKey(path, key);
    const headerName = checkHeaderName(key);
    if (!headerName.ok) throw new Refusal(at, `${at} is not allowed: the name ${headerName.problem}`);
    fields.options.push({ name: 'header', value: [key, field(checkHeaderValue(v), at)], at });
  }
}

function readRetryAfter(value: unknown, path: string): RetryAfterSpec {
  if (typeof value === 'number') return field(secondsSpec(value), path);
  if (typeof value === 'string') return field(parseRetryAfterText(value), path);
  throw new Refusal(path, `${path} must be a number of seconds or a text such as "+120s" or an HTTP date`);
}

function readObject(value: unknown, path: string, known: readonly string[], kind?: string): Record<string, unknown> {
  if (!isObject(value)) throw new Refusal(path, `${name(path)} must be an object`);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      const at = joinKey(path, key);
      const scope = kind === undefined ? '' : ` with kind ${kind}`;
      const meant = closestName(key, known);
      throw new Refusal(at, `${at} is not allowed${scope}${meant === null ? '' : `, did you mean '${meant}'?`} (allowed: ${known.join(', ')})`);
    }
  }
  return value;
}

function required(obj: Record<string, unknown>, key: string, path: string): unknown {
  if (!Object.hasOwn(obj, key)) throw new Refusal(join(path, key), `${join(path, key)} is missing`);
  return obj[key];
}

function field<T>(check: Check<T>, path: string): T {
  if (!check.ok) throw new Refusal(path, `${name(path)} ${check.problem}`);
  return check.value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function joinKey(path: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return join(path, key);
  const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
  return `${path}[${shown}]`;
}

function name(path: string): string {
  return path === '' ? 'rule' : path;
}
