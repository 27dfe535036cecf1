/**
 * The one-line rule form for `--fault` (docs/faults.md has the grammar):
 *
 *   503 retry-after=120 attempt=1      hang attempt=2      410 trigger=trustcenter.*
 *   reset p=0.3    redirect hops=4    delay=2000    418 header=x-foo:bar body='teapot'
 *
 * One answer (a 3-digit status, accept, hang, reset, close, redirect or delay=MS), its
 * options, match conditions, `times=N`, the `pre-verify` flag and `id=NAME`, in any order.
 */
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
  keepsPost,
  statusAllowsBody,
  type Check,
} from './field-checks.js';
import { tokenize, type Token } from './one-line-lexer.js';
import { parseRetryAfterText } from './retry-after.js';
import {
  DEFAULT_REDIRECT_STATUS,
  MAX_HEADERS,
  type FaultAnswer,
  type FaultMatch,
  type FaultRule,
  type RedirectStatus,
  type RetryAfterSpec,
} from './rule.js';

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

type AnswerWord = (typeof ANSWER_WORDS)[number] | 'status' | 'delay';
type Flag = (typeof FLAGS)[number];
type Key = (typeof KEYS)[number];

interface At<T> {
  value: T;
  column: number;
}

interface Draft {
  answer: At<{ word: AnswerWord; text: string; n: number }> | null;
  match: FaultMatch;
  times?: number;
  id?: string;
  retryAfter?: At<RetryAfterSpec>;
  headers: Array<At<[string, string]>>;
  body?: At<string>;
  redirectStatus?: At<RedirectStatus>;
  hops?: At<number>;
  flags: Map<Flag, number>;
  /** Options in token order, to check each against the answer. */
  options: Array<{ name: string; column: number; fits: AnswerWord[] }>;
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

  const draft: Draft = { answer: null, match: {}, headers: [], flags: new Map(), options: [] };
  const seenKeys = new Map<Key, number>();
  for (const token of lexed.tokens) {
    const failure = token.key === null ? readWord(draft, token) : readKey(draft, token, seenKeys);
    if (failure) return fail(failure);
  }
  const built = build(draft);
  return 'reason' in built ? fail(built) : { ok: true, rule: built.rule };
}

function readWord(draft: Draft, token: Token): Failure | null {
  const { column } = token;
  const word = token.value.toLowerCase();
  if (/^[0-9]/.test(word)) {
    if (!/^[0-9]{3}$/.test(word)) return { column, reason: 'status must be 3 digits' };
    const status = checkStatus(Number(word));
    if (!status.ok) return { column, reason: 'status must be 100-599' };
    return setAnswer(draft, { word: 'status', text: word, n: status.value }, column);
  }
  if ((ANSWER_WORDS as readonly string[]).includes(word)) {
    return setAnswer(draft, { word: word as AnswerWord, text: word, n: 0 }, column);
  }
  if ((FLAGS as readonly string[]).includes(word)) {
    const flag = word as Flag;
    if (draft.flags.has(flag)) return { column, reason: `duplicate flag ${flag}` };
    draft.flags.set(flag, column);
    if (flag === 'slow-headers') draft.options.push({ name: flag, column, fits: ['hang'] });
    if (flag === 'no-location') draft.options.push({ name: flag, column, fits: ['redirect'] });
    return null;
  }
  if ((KEYS as readonly string[]).includes(word)) return { column, reason: `${word} needs a value: ${word}=…` };
  return {
    column,
    reason: `unknown word '${clip(token.value)}': expected a status (e.g. 503), accept, hang, reset, close, redirect, a flag (${FLAGS.join(', ')}) or key=value`,
  };
}

function setAnswer(draft: Draft, answer: { word: AnswerWord; text: string; n: number }, column: number): Failure | null {
  if (draft.answer) return { column, reason: `conflicting answers: ${draft.answer.value.text} and ${answer.text} (a rule has one answer)` };
  draft.answer = { value: answer, column };
  return null;
}

function readKey(draft: Draft, token: Token, seenKeys: Map<Key, number>): Failure | null {
  const { column, value } = token;
  const key = token.key!;
  if ((FLAGS as readonly string[]).includes(key)) return { column, reason: `${key} is a flag and takes no value` };
  if (!(KEYS as readonly string[]).includes(key)) {
    return { column, reason: `unknown key '${clip(key)}': known keys are ${KEYS.join(', ')}` };
  }
  const k = key as Key;
  if (k !== 'header' && seenKeys.has(k)) return { column, reason: `duplicate key ${k}` };
  seenKeys.set(k, column);
  if (value === '' && k !== 'body') return { column, reason: `${k} needs a value after =` };
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
      return setAnswer(draft, { word: 'delay', text: `delay=${value}`, n: c.value }, column);
    }
    case 'retry-after': {
      const c = parseRetryAfterText(value);
      if (!c.ok) return problem(c);
      draft.retryAfter = { value: c.value, column };
      draft.options.push({ name: k, column, fits: ['status'] });
      return null;
    }
    case 'header': {
      const colon = value.indexOf(':');
      if (colon < 0) return { column, reason: 'header must be NAME:VALUE (e.g. header=x-foo:bar)' };
      const name = checkHeaderName(value.slice(0, colon));
      if (!name.ok) return problem(name, 'header name');
      const v = checkHeaderValue(value.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, ''));
      if (!v.ok) return problem(v, 'header value');
      draft.headers.push({ value: [name.value, v.value], column });
      draft.options.push({ name: k, column, fits: ['status'] });
      return null;
    }
    case 'body': {
      const c = checkBody(value);
      if (!c.ok) return problem(c);
      draft.body = { value: c.value, column };
      draft.options.push({ name: k, column, fits: ['status'] });
      return null;
    }
    case 'status': {
      const c = checkRedirectStatus(readInt(value));
      if (!c.ok && draft.answer?.value.word !== 'redirect' && checkStatus(readInt(value)).ok) {
        // status= belongs to redirect answers; an answer with a status is written as the bare number.
        return { column, reason: `status= sets a redirect's status (301, 302, 303, 307 or 308); to answer ${value}, write it on its own, e.g. '${value} attempt=1'` };
      }
      if (!c.ok) return problem(c);
      draft.redirectStatus = { value: c.value, column };
      draft.options.push({ name: 'status=', column, fits: ['redirect'] });
      return null;
    }
    case 'hops': {
      const c = checkHops(readInt(value));
      if (!c.ok) return problem(c);
      draft.hops = { value: c.value, column };
      draft.options.push({ name: k, column, fits: ['redirect'] });
      return null;
    }
  }
}

function build(draft: Draft): { rule: FaultRule } | Failure {
  const answerAt = draft.answer;
  if (!answerAt) {
    return { column: 1, reason: 'rule has no answer: give a status (e.g. 503), accept, hang, reset, close, redirect or delay=MS' };
  }
  const a = answerAt.value;
  for (const option of draft.options) {
    if (option.fits.includes(a.word)) continue;
    const hint =
      option.name === 'status='
        ? 'status= is for redirect; for a status answer write the status alone (e.g. 503)'
        : `${option.name} applies only to ${describeFit(option.fits)}, not to ${a.text}`;
    return { column: option.column, reason: hint };
  }

  let answer: FaultAnswer;
  switch (a.word) {
    case 'status': {
      const built = buildStatusAnswer(draft, a.n);
      if ('reason' in built) return built;
      answer = built.answer;
      break;
    }
    case 'delay':
      answer = { kind: 'delay', ms: a.n };
      break;
    case 'hang':
      answer = { kind: 'hang', slowHeaders: draft.flags.has('slow-headers') };
      break;
    case 'redirect': {
      const status = draft.redirectStatus?.value ?? DEFAULT_REDIRECT_STATUS;
      const noLocation = draft.flags.get('no-location');
      if (draft.hops && noLocation !== undefined) {
        return { column: Math.max(draft.hops.column, noLocation), reason: 'hops and no-location conflict: a chain of hops has a Location' };
      }
      if (draft.hops && !keepsPost(status)) {
        return {
          column: Math.max(draft.hops.column, draft.redirectStatus!.column),
          reason: `redirect hops need status 307 or 308 (only they keep the POST), not ${status}`,
        };
      }
      answer = { kind: 'redirect', status, hops: draft.hops?.value ?? null };
      break;
    }
    case 'accept':
    case 'reset':
    case 'close':
      answer = { kind: a.word };
      break;
  }

  const rule: FaultRule = { match: draft.match, answer };
  if (draft.id !== undefined) rule.id = draft.id;
  if (draft.times !== undefined) rule.limit = { times: draft.times };
  if (draft.flags.has('pre-verify')) rule.beforeVerify = true;
  return { rule };
}

function buildStatusAnswer(draft: Draft, status: number): { answer: FaultAnswer } | Failure {
  if (draft.headers.length > MAX_HEADERS) return { column: draft.headers[MAX_HEADERS]!.column, reason: `at most ${MAX_HEADERS} headers` };
  const seen = new Map<string, number>();
  for (const h of draft.headers) {
    const lower = h.value[0].toLowerCase();
    if (seen.has(lower)) return { column: h.column, reason: `duplicate header ${lower}` };
    seen.set(lower, h.column);
  }
  const retryAfterHeader = seen.get('retry-after');
  if (draft.retryAfter && retryAfterHeader !== undefined) {
    return {
      column: Math.max(draft.retryAfter.column, retryAfterHeader),
      reason: 'Retry-After given twice: use retry-after= or header=retry-after:…, not both',
    };
  }
  if (draft.body && !statusAllowsBody(status)) return { column: draft.body.column, reason: `a ${status} answer has no body` };
  const answer: FaultAnswer = { kind: 'status', status };
  if (draft.headers.length > 0) answer.headers = draft.headers.map((h) => h.value);
  if (draft.body) answer.body = draft.body.value;
  if (draft.retryAfter) answer.retryAfter = draft.retryAfter.value;
  return { answer };
}

function describeFit(fits: AnswerWord[]): string {
  const [only] = fits;
  return only === 'status' ? 'a status answer (e.g. 503)' : only === 'hang' ? 'hang' : 'redirect';
}

function readInt(text: string): number {
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
}

/** Milliseconds: `2000`, `2000ms` or `2s`. */
function readMs(text: string): number {
  const m = /^([0-9]{1,12})(ms|s)?$/.exec(text);
  if (!m) return NaN;
  return m[2] === 's' ? Number(m[1]) * 1000 : Number(m[1]);
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
