/**
 * The JSON form of rules, for `--fault-file` and the control API (docs/faults.md). It mirrors
 * FaultRule, with friendlier leaves: ranges as `1` or `"2-4"` / `"3-"`, Retry-After as a
 * number of seconds or a text (`"+120s"`, an HTTP date), headers as an object.
 */
import { checkRange, formatRange, parseRangeText } from './attempt-range.js';
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
  keepsPost,
  statusAllowsBody,
  type Check,
} from './field-checks.js';
import { parseFaultRule } from './parse-rule.js';
import { formatRetryAfterText, parseRetryAfterText, secondsSpec } from './retry-after.js';
import {
  DEFAULT_REDIRECT_STATUS,
  MAX_HEADERS,
  type AttemptRange,
  type FaultAnswer,
  type FaultMatch,
  type FaultRule,
  type RetryAfterSpec,
} from './rule.js';

export type FaultAnswerJson =
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string; retryAfter?: number | string }
  | { kind: 'delay'; ms: number }
  | { kind: 'hang'; slowHeaders?: boolean }
  | { kind: 'reset' }
  | { kind: 'close' }
  | { kind: 'accept' }
  | { kind: 'redirect'; status?: number; hops?: number | null };

export interface FaultRuleJson {
  id?: string;
  match?: { trigger?: string; delivery?: string; attempt?: number | string; arrival?: number | string; p?: number };
  answer: FaultAnswerJson;
  limit?: { times: number };
  beforeVerify?: boolean;
}

export interface FaultRuleFileJson {
  rules: Array<FaultRuleJson | string>;
}

export type FaultRuleJsonResult = { ok: true; rule: FaultRule } | { ok: false; path: string; message: string };
export type FaultRulesJsonResult = { ok: true; rules: FaultRule[] } | { ok: false; path: string; message: string };

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
 * rule text. Refuses with the path of the first problem (`rules[2].answer.status …`) and
 * duplicate ids. Never throws.
 */
export function faultRulesFromJson(value: unknown): FaultRulesJsonResult {
  try {
    const obj = readObject(value, '', ['rules']);
    if (!Object.hasOwn(obj, 'rules')) throw new Refusal('rules', 'rules is missing: expected { "rules": [ … ] }');
    const list = obj['rules'];
    if (!Array.isArray(list)) throw new Refusal('rules', 'rules must be an array');
    if (list.length > MAX_RULES) throw new Refusal('rules', `rules must hold at most ${MAX_RULES} rules`);
    const rules: FaultRule[] = [];
    const ids = new Map<string, number>();
    list.forEach((entry: unknown, i) => {
      const at = `rules[${i}]`;
      let rule: FaultRule;
      if (typeof entry === 'string') {
        const parsed = parseFaultRule(entry);
        if (!parsed.ok) throw new Refusal(at, `${at}: ${parsed.message}`);
        rule = parsed.rule;
      } else {
        rule = readRule(entry, at);
      }
      if (rule.id !== undefined) {
        const first = ids.get(rule.id);
        if (first !== undefined) throw new Refusal(`${at}.id`, `${at}.id duplicates the id of rules[${first}] (${rule.id})`);
        ids.set(rule.id, i);
      }
      rules.push(rule);
    });
    return { ok: true, rules };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, path: e.path, message: e.message };
    return { ok: false, path: '', message: 'rule file could not be read' };
  }
}

/** The JSON form of a rule; `faultRuleFromJson` reads it back to an equal rule. */
export function faultRuleToJson(rule: FaultRule): FaultRuleJson {
  const out: FaultRuleJson = { match: matchToJson(rule.match), answer: answerToJson(rule.answer) };
  if (rule.id !== undefined) out.id = rule.id;
  if (rule.limit !== undefined) out.limit = { times: rule.limit.times };
  if (rule.beforeVerify) out.beforeVerify = true;
  return out;
}

/** The file form `{ rules: [...] }` of a list of rules. */
export function faultRulesToJson(rules: readonly FaultRule[]): { rules: FaultRuleJson[] } {
  return { rules: rules.map(faultRuleToJson) };
}

function matchToJson(match: FaultMatch): NonNullable<FaultRuleJson['match']> {
  const out: NonNullable<FaultRuleJson['match']> = {};
  if (match.trigger !== undefined) out.trigger = match.trigger;
  if (match.delivery !== undefined) out.delivery = match.delivery;
  if (match.attempt !== undefined) out.attempt = rangeToJson(match.attempt);
  if (match.arrival !== undefined) out.arrival = rangeToJson(match.arrival);
  if (match.p !== undefined) out.p = match.p;
  return out;
}

function rangeToJson(range: AttemptRange): number | string {
  return range.to === range.from ? range.from : formatRange(range);
}

function answerToJson(answer: FaultAnswer): FaultAnswerJson {
  switch (answer.kind) {
    case 'status': {
      const out: FaultAnswerJson = { kind: 'status', status: answer.status };
      if (answer.headers !== undefined) out.headers = Object.fromEntries(answer.headers);
      if (answer.body !== undefined) out.body = answer.body;
      if (answer.retryAfter !== undefined) {
        out.retryAfter = answer.retryAfter.kind === 'seconds' ? answer.retryAfter.seconds : formatRetryAfterText(answer.retryAfter);
      }
      return out;
    }
    case 'delay':
      return { kind: 'delay', ms: answer.ms };
    case 'hang':
      return answer.slowHeaders ? { kind: 'hang', slowHeaders: true } : { kind: 'hang' };
    case 'redirect':
      return answer.hops === null ? { kind: 'redirect', status: answer.status } : { kind: 'redirect', status: answer.status, hops: answer.hops };
    case 'reset':
    case 'close':
    case 'accept':
      return { kind: answer.kind };
  }
}

function readRule(value: unknown, path: string): FaultRule {
  const obj = readObject(value, path, ['id', 'match', 'answer', 'limit', 'beforeVerify']);
  if (!Object.hasOwn(obj, 'answer')) throw new Refusal(join(path, 'answer'), `${name(join(path, 'answer'))} is missing`);
  const rule: FaultRule = {
    match: Object.hasOwn(obj, 'match') ? readMatch(obj['match'], join(path, 'match')) : {},
    answer: readAnswer(obj['answer'], join(path, 'answer')),
  };
  if (Object.hasOwn(obj, 'id')) rule.id = field(checkId(obj['id']), join(path, 'id'));
  if (Object.hasOwn(obj, 'limit')) {
    const limitPath = join(path, 'limit');
    const limit = readObject(obj['limit'], limitPath, ['times']);
    if (!Object.hasOwn(limit, 'times')) throw new Refusal(join(limitPath, 'times'), `${join(limitPath, 'times')} is missing`);
    rule.limit = { times: field(checkTimes(limit['times']), join(limitPath, 'times')) };
  }
  if (Object.hasOwn(obj, 'beforeVerify')) {
    const b = obj['beforeVerify'];
    if (typeof b !== 'boolean') throw new Refusal(join(path, 'beforeVerify'), `${join(path, 'beforeVerify')} must be true or false`);
    if (b) rule.beforeVerify = true;
  }
  return rule;
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

function readAnswer(value: unknown, path: string): FaultAnswer {
  const kindPath = join(path, 'kind');
  if (!isObject(value)) throw new Refusal(path, `${name(path)} must be an object with a kind`);
  const kind = value['kind'];
  if (!Object.hasOwn(value, 'kind') || typeof kind !== 'string' || !(ANSWER_KINDS as readonly string[]).includes(kind)) {
    throw new Refusal(kindPath, `${kindPath} must be one of ${ANSWER_KINDS.join(', ')}`);
  }
  switch (kind as (typeof ANSWER_KINDS)[number]) {
    case 'status':
      return readStatusAnswer(readObject(value, path, ['kind', 'status', 'headers', 'body', 'retryAfter'], kind), path);
    case 'delay': {
      const obj = readObject(value, path, ['kind', 'ms'], kind);
      return { kind: 'delay', ms: field(checkDelayMs(required(obj, 'ms', path)), join(path, 'ms')) };
    }
    case 'hang': {
      const obj = readObject(value, path, ['kind', 'slowHeaders'], kind);
      const slow = Object.hasOwn(obj, 'slowHeaders') ? obj['slowHeaders'] : false;
      if (typeof slow !== 'boolean') throw new Refusal(join(path, 'slowHeaders'), `${join(path, 'slowHeaders')} must be true or false`);
      return { kind: 'hang', slowHeaders: slow };
    }
    case 'redirect': {
      const obj = readObject(value, path, ['kind', 'status', 'hops'], kind);
      const status = Object.hasOwn(obj, 'status') ? field(checkRedirectStatus(obj['status']), join(path, 'status')) : DEFAULT_REDIRECT_STATUS;
      const rawHops = Object.hasOwn(obj, 'hops') ? obj['hops'] : null;
      const hops = rawHops === null ? null : field(checkHops(rawHops), join(path, 'hops'));
      if (hops !== null && !keepsPost(status)) {
        throw new Refusal(join(path, 'hops'), `${join(path, 'hops')} needs status 307 or 308 (only they keep the POST), not ${status}`);
      }
      return { kind: 'redirect', status, hops };
    }
    case 'reset':
    case 'close':
    case 'accept':
      readObject(value, path, ['kind'], kind);
      return { kind: kind as 'reset' | 'close' | 'accept' };
  }
}

function readStatusAnswer(obj: Record<string, unknown>, path: string): FaultAnswer {
  const status = field(checkStatus(required(obj, 'status', path)), join(path, 'status'));
  const answer: FaultAnswer = { kind: 'status', status };
  if (Object.hasOwn(obj, 'headers')) {
    const headersPath = join(path, 'headers');
    const headers = obj['headers'];
    if (!isObject(headers)) throw new Refusal(headersPath, `${headersPath} must be an object of header names to texts`);
    const entries = Object.entries(headers);
    if (entries.length > MAX_HEADERS) throw new Refusal(headersPath, `${headersPath} must hold at most ${MAX_HEADERS} headers`);
    const seen = new Set<string>();
    const pairs: Array<[string, string]> = [];
    for (const [key, v] of entries) {
      const at = joinKey(headersPath, key);
      const headerName = checkHeaderName(key);
      if (!headerName.ok) throw new Refusal(at, `${at} is not allowed: the name ${headerName.problem}`);
      const lower = key.toLowerCase();
      if (seen.has(lower)) throw new Refusal(at, `${at} duplicates another header (names are case-insensitive)`);
      seen.add(lower);
      pairs.push([key, field(checkHeaderValue(v), at)]);
    }
    if (seen.has('retry-after') && Object.hasOwn(obj, 'retryAfter')) {
      throw new Refusal(join(path, 'retryAfter'), `${join(path, 'retryAfter')} is also given as a header: use one of them`);
    }
    if (pairs.length > 0) answer.headers = pairs;
  }
  if (Object.hasOwn(obj, 'body')) {
    const bodyPath = join(path, 'body');
    const body = field(checkBody(obj['body']), bodyPath);
    if (!statusAllowsBody(status)) throw new Refusal(bodyPath, `${bodyPath} is not allowed: a ${status} answer has no body`);
    answer.body = body;
  }
  if (Object.hasOwn(obj, 'retryAfter')) answer.retryAfter = readRetryAfter(obj['retryAfter'], join(path, 'retryAfter'));
  return answer;
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
      throw new Refusal(at, `${at} is not allowed${scope} (allowed: ${known.join(', ')})`);
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
