/**
 * The one-line rule form for `--fault` (docs/faults.md has the grammar):
 *
 *   503 retry-after=120 attempt=1      hang attempt=2      410 trigger=trustcenter.*
 *   reset p=0.3    redirect hops=4    delay=2000    418 header=x-foo:bar body='teapot'
 *
 * One answer (a 3-digit status, accept, hang, reset, close, redirect or delay=MS), its
 * options, match conditions, `times=N`, the `pre-verify` flag and `id=NAME`, in any order.
 * Each token is checked on its own here; the checks across fields and the building of the rule
 * are the JSON form's too (assemble-rule.ts).
 */
import { closestName } from '../closest-name.js';
import { parseDuration } from '../duration.js';
import { assembleRule, OPTION_FITS, type AnswerHead, type OptionName, type RuleFields, type RuleProblem } from './assemble-rule.js';
import { parseRangeText } from './attempt-range.js';
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
import { tokenize, type Token } from './one-line-lexer.js';
import { parseRetryAfterText } from './retry-after.js';
import { MAX_HEADERS, type FaultRule } from './rule.js';

export type FaultRuleParse =
  | { ok: true; rule: FaultRule }
  /** `message` is `reason` followed by "at column N". */
  | { ok: false; column: number; reason: string; message: string };

export const MAX_RULE_LENGTH = 100_000;

const ANSWER_WORDS = ['accept', 'hang', 'reset', 'close', 'redirect'] as const;
const FLAGS = ['slow-headers', 'no-location', 'pre-verify'] as const;
const KEYS = [
  'trigger',
  'delivery',
  'attempt',
  'arrival',
  'p',
  'times',
  'retry-after',
  'header',
  'body',
  'status',
  'hops',
  'delay',
  'id',
] as const;

type Flag = (typeof FLAGS)[number];
type Key = (typeof KEYS)[number];

/** The rule's fields, at their columns, and the answer as written (for messages). */
interface Draft extends RuleFields<number> {
  answerText: string;
  flags: Set<Flag>;
}

interface Failure {
  column: number;
  reason: string;
}

/**
 * Parses one rule in the one-line form into a FaultRule. Refuses with the 1-based column of
 * the offending token and the reason (`5O3` → "status must be 3 digits at column 1"): unknown
 * word or key, bad value, duplicate key, conflicting answers, an option that does not fit the
 * answer, no answer, empty rule. Never throws.
 */
export function parseFaultRule(text: string): FaultRuleParse {
  if (typeof text !== 'string') return fail({ column: 1, reason: 'rule must be a text' });
  if (text.length > MAX_RULE_LENGTH) return fail({ column: 1, reason: `rule is longer than ${MAX_RULE_LENGTH} characters` });
  const lexed = tokenize(text);
  if (!lexed.ok) return fail(lexed);
  if (lexed.tokens.length === 0) return fail({ column: 1, reason: 'empty rule: give an answer such as 503, hang or reset' });

  const draft: Draft = { answer: null, answerText: '', match: {}, options: [], flags: new Set() };
  const seenKeys = new Set<Key>();
  for (const token of lexed.tokens) {
    const failure = token.key === null ? readWord(draft, token) : readKey(draft, token, seenKeys);
    if (failure) return fail(failure);
  }
  const assembled = assembleRule(draft);
  return assembled.ok ? { ok: true, rule: assembled.rule } : fail(explain(assembled.problem, draft.answerText));
}

function readWord(draft: Draft, token: Token): Failure | null {
  const { column } = token;
  const word = token.value.toLowerCase();
  if (/^[0-9]/.test(word)) {
    if (!/^[0-9]{3}$/.test(word)) return { column, reason: 'status must be 3 digits' };
    const status = checkStatus(Number(word));
    if (!status.ok) return { column, reason: 'status must be 100-599' };
    return setAnswer(draft, { kind: 'status', status: status.value }, word, column);
  }
  if ((ANSWER_WORDS as readonly string[]).includes(word)) {
    return setAnswer(draft, { kind: word as (typeof ANSWER_WORDS)[number] }, word, column);
  }
  if ((FLAGS as readonly string[]).includes(word)) {
    const flag = word as Flag;
    if (draft.flags.has(flag)) return { column, reason: `duplicate flag ${flag}` };
    draft.flags.add(flag);
    if (flag === 'pre-verify') draft.beforeVerify = true;
    else draft.options.push({ name: flag, at: column });
    return null;
  }
  if ((KEYS as readonly string[]).includes(word)) return { column, reason: `${word} needs a value: ${word}=…` };
  return {
    column,
    reason: `unknown word '${clip(token.value)}': expected a status (e.g. 503), accept, hang, reset, close, redirect, a flag (${FLAGS.join(', ')}) or key=value`,
  };
}

function setAnswer(draft: Draft, head: AnswerHead, text: string, column: number): Failure | null {
  if (draft.answer) return { column, reason: `conflicting answers: ${draft.answerText} and ${text} (a rule has one answer)` };
  draft.answer = { head, at: column };
  draft.answerText = text;
  return null;
}

function readKey(draft: Draft, token: Token, seenKeys: Set<Key>): Failure | null {
  const { column, value } = token;
  const key = token.key!;
  if ((FLAGS as readonly string[]).includes(key)) return { column, reason: `${key} is a flag and takes no value` };
  if (!(KEYS as readonly string[]).includes(key)) {
    const meant = closestName(key, KEYS);
    return { column, reason: `unknown key '${clip(key)}'${meant === null ? '' : ` (did you mean '${meant}'?)`}: known keys are ${KEYS.join(', ')}` };
  }
  const k = key as Key;
  if (k !== 'header' && seenKeys.has(k)) return { column, reason: `duplicate key ${k}` };
  seenKeys.add(k);
  if (value === '' && k !== 'body') return { column, reason: `${k} needs a value after =` };
  return applyKey(draft, k, value, column);
}

/** One known key's value, checked and put into the draft. */
function applyKey(draft: Draft, k: Key, value: string, column: number): Failure | null {
  const problem = (c: Check<unknown>, name: string = k): Failure | null => (c.ok ? null : { column, reason: `${name} ${c.problem}` });

  switch (k) {
    case 'trigger':
    case 'delivery': {
      const c = checkGlob(value);
      if (c.ok) draft.match[k] = c.value;
      return problem(c);
    }
    case 'attempt':
    case 'arrival': {
      const c = parseRangeText(value);
      if (c.ok) draft.match[k] = c.value;
      return problem(c);
    }
    case 'p': {
      const c = checkProbability(readProbability(value));
      if (c.ok) draft.match.p = c.value;
      return problem(c);
    }
    case 'times': {
      const c = checkTimes(readInt(value));
      if (c.ok) draft.times = c.value;
      return problem(c);
    }
    case 'id': {
      const c = checkId(value);
      if (c.ok) draft.id = c.value;
      return problem(c);
    }
    case 'delay': {
      const c = checkDelayMs(readMs(value));
      if (!c.ok) return problem(c);
      return setAnswer(draft, { kind: 'delay', ms: c.value }, `delay=${value}`, column);
    }
    case 'retry-after': {
      const c = parseRetryAfterText(value);
      if (c.ok) draft.options.push({ name: k, value: c.value, at: column });
      return problem(c);
    }
    case 'header':
      return applyHeader(draft, value, column);
    case 'body': {
      const c = checkBody(value);
      if (c.ok) draft.options.push({ name: k, value: c.value, at: column });
      return problem(c);
    }
    case 'status': {
      const c = checkRedirectStatus(readInt(value));
      if (!c.ok && draft.answer?.head.kind !== 'redirect' && checkStatus(readInt(value)).ok) {
        // status= belongs to redirect answers; an answer with a status is written as the bare number.
        return { column, reason: `status= sets a redirect's status (301, 302, 303, 307 or 308); to answer ${value}, write it on its own, e.g. '${value} attempt=1'` };
      }
      if (c.ok) draft.options.push({ name: 'status=', value: c.value, at: column });
      return problem(c);
    }
    case 'hops': {
      const c = checkHops(readInt(value));
      if (c.ok) draft.options.push({ name: k, value: c.value, at: column });
      return problem(c);
    }
  }
}

/** `header=NAME:VALUE`: blanks around the value are dropped, as an HTTP parser would. */
function applyHeader(draft: Draft, value: string, column: number): Failure | null {
  const colon = value.indexOf(':');
  if (colon < 0) return { column, reason: 'header must be NAME:VALUE (e.g. header=x-foo:bar)' };
  const name = checkHeaderName(value.slice(0, colon));
  if (!name.ok) return { column, reason: `header name ${name.problem}` };
  const v = checkHeaderValue(value.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, ''));
  if (!v.ok) return { column, reason: `header value ${v.problem}` };
  draft.options.push({ name: 'header', value: [name.value, v.value], at: column });
  return null;
}

/** A refusal of the shared assembly in the one-line form's words, at a column. */
function explain(problem: RuleProblem<number>, answerText: string): Failure {
  switch (problem.code) {
    case 'no_answer':
      return { column: 1, reason: 'rule has no answer: give a status (e.g. 503), accept, hang, reset, close, redirect or delay=MS' };
    case 'option_not_for_answer':
      return {
        column: problem.at,
        reason:
          problem.option === 'status='
            ? 'status= is for redirect; for a status answer write the status alone (e.g. 503)'
            : `${problem.option} applies only to ${describeFit(problem.option)}, not to ${answerText}`,
      };
    case 'too_many_headers':
      return { column: problem.at, reason: `at most ${MAX_HEADERS} headers` };
    case 'duplicate_header':
      return { column: problem.at, reason: `duplicate header ${problem.name}` };
    case 'retry_after_twice':
      return { column: Math.max(problem.at, problem.other), reason: 'Retry-After given twice: use retry-after= or header=retry-after:…, not both' };
    case 'body_not_allowed':
      return { column: problem.at, reason: `a ${problem.status} answer has no body` };
    case 'hops_and_no_location':
      return { column: Math.max(problem.at, problem.other), reason: 'hops and no-location conflict: a chain of hops has a Location' };
    case 'hops_need_post':
      return { column: Math.max(problem.at, problem.other), reason: `redirect hops need status 307 or 308 (only they keep the POST), not ${problem.status}` };
  }
}

function describeFit(option: OptionName): string {
  const fits = OPTION_FITS[option];
  return fits === 'status' ? 'a status answer (e.g. 503)' : fits;
}

function readInt(text: string): number {
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
}

/** Milliseconds in the duration grammar (core/duration.ts), a bare number being ms: `2000`, `250ms`, `2s`, `1.5m`. */
function readMs(text: string): number {
  const d = parseDuration(text, { bare: 'ms' });
  return d.ok ? d.ms : NaN;
}

/** A decimal (`0.3`, `.3`, `3e-1`) or a percentage (`30%`). */
function readProbability(text: string): number {
  if (/^([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text)) return Number(text);
  const pct = /^([0-9]{1,3}(\.[0-9]*)?|\.[0-9]+)%$/.exec(text);
  return pct ? Number(pct[1]) / 100 : NaN;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function fail(f: Failure): FaultRuleParse {
  return { ok: false, column: f.column, reason: f.reason, message: `${f.reason} at column ${f.column}` };
}
