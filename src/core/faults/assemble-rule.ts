/**
 * The one assembly of a fault rule, behind both grammars: the one-line form (parse-rule.ts) and
 * the JSON form (rule-json.ts) each read their text into the same RuleFields, every value
 * already checked on its own (field-checks.ts), and `assembleRule` makes the checks that involve
 * more than one field and builds the canonical FaultRule (rule.ts).
 *
 * Each field carries where it was written, `W`: a column for the one-line form, a JSON path for
 * the JSON form. A refusal names the places involved, and each grammar words it in its own terms.
 */
import { keepsPost, statusAllowsBody } from './field-checks.js';
import {
  DEFAULT_REDIRECT_STATUS,
  MAX_HEADERS,
  type FaultAnswer,
  type FaultAnswerKind,
  type FaultMatch,
  type FaultRule,
  type RedirectStatus,
  type RetryAfterSpec,
} from './rule.js';

/** The answer a rule names, before its options are attached. */
export type AnswerHead =
  | { kind: 'status'; status: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'hang' | 'reset' | 'close' | 'accept' | 'redirect' };

/** An option of an answer, named as the one-line form spells it. */
export type RuleOption<W> = { at: W } & (
  | { name: 'retry-after'; value: RetryAfterSpec }
  | { name: 'header'; value: [string, string] }
  | { name: 'body'; value: string }
  | { name: 'slow-headers' }
  | { name: 'no-location' }
  | { name: 'status='; value: RedirectStatus }
  | { name: 'hops'; value: number }
);

export type OptionName = RuleOption<unknown>['name'];

/** The answer each option belongs to. */
export const OPTION_FITS: Readonly<Record<OptionName, FaultAnswerKind>> = {
  'retry-after': 'status',
  header: 'status',
  body: 'status',
  'slow-headers': 'hang',
  'no-location': 'redirect',
  'status=': 'redirect',
  hops: 'redirect',
};

export interface RuleFields<W> {
  answer: { head: AnswerHead; at: W } | null;
  match: FaultMatch;
  id?: string;
  times?: number;
  beforeVerify?: boolean;
  /** In the order written. */
  options: Array<RuleOption<W>>;
}

/** Why the fields make no rule; `at` is where the problem shows, `other` the field it conflicts with. */
export type RuleProblem<W> =
  | { code: 'no_answer' }
  | { code: 'option_not_for_answer'; option: OptionName; at: W }
  /** `at`: the first header over MAX_HEADERS. */
  | { code: 'too_many_headers'; at: W }
  | { code: 'duplicate_header'; name: string; at: W }
  /** `at`: retry-after; `other`: the header named Retry-After. */
  | { code: 'retry_after_twice'; at: W; other: W }
  | { code: 'body_not_allowed'; status: number; at: W }
  /** `at`: hops; `other`: no-location. */
  | { code: 'hops_and_no_location'; at: W; other: W }
  /** `at`: hops; `other`: the redirect's status=. */
  | { code: 'hops_need_post'; status: RedirectStatus; at: W; other: W };

export type RuleAssembly<W> = { ok: true; rule: FaultRule } | { ok: false; problem: RuleProblem<W> };

/**
 * Builds the FaultRule the fields describe. Refuses with the first problem, in this order: no
 * answer; an option that does not fit the answer (the first written); more than MAX_HEADERS
 * headers; a header given twice (names are case-insensitive); Retry-After given both as
 * retry-after and as a header; a body on a status that has none (1xx, 204, 205, 304); redirect
 * hops with no-location, or with a status other than 307 or 308. Never throws.
 */
export function assembleRule<W>(fields: RuleFields<W>): RuleAssembly<W> {
  if (fields.answer === null) return { ok: false, problem: { code: 'no_answer' } };
  const { head } = fields.answer;
  const misplaced = fields.options.find((o) => OPTION_FITS[o.name] !== head.kind);
  if (misplaced) return { ok: false, problem: { code: 'option_not_for_answer', option: misplaced.name, at: misplaced.at } };

  const built = buildAnswer(head, fields.options);
  if ('code' in built) return { ok: false, problem: built };
  const rule: FaultRule = { match: fields.match, answer: built };
  if (fields.id !== undefined) rule.id = fields.id;
  if (fields.times !== undefined) rule.limit = { times: fields.times };
  if (fields.beforeVerify) rule.beforeVerify = true;
  return { ok: true, rule };
}

type Pick<W, N extends OptionName> = Extract<RuleOption<W>, { name: N }>;

function optionsNamed<W, N extends OptionName>(options: Array<RuleOption<W>>, name: N): Array<Pick<W, N>> {
  return options.filter((o): o is Pick<W, N> => o.name === name);
}

function buildAnswer<W>(head: AnswerHead, options: Array<RuleOption<W>>): FaultAnswer | RuleProblem<W> {
  const one = <N extends OptionName>(name: N): Pick<W, N> | undefined => optionsNamed(options, name)[0];
  switch (head.kind) {
    case 'status':
      return buildStatusAnswer(head.status, options);
    case 'delay':
      return { kind: 'delay', ms: head.ms };
    case 'hang':
      return { kind: 'hang', slowHeaders: one('slow-headers') !== undefined };
    case 'redirect': {
      const [status, hops, noLocation] = [one('status='), one('hops'), one('no-location')];
      const redirectStatus = status?.value ?? DEFAULT_REDIRECT_STATUS;
      if (hops && noLocation) return { code: 'hops_and_no_location', at: hops.at, other: noLocation.at };
      // The default status (307) keeps the POST, so a refusal always has a status= to name.
      if (hops && status && !keepsPost(redirectStatus)) return { code: 'hops_need_post', status: redirectStatus, at: hops.at, other: status.at };
      return { kind: 'redirect', status: redirectStatus, hops: hops?.value ?? null };
    }
    case 'reset':
    case 'close':
    case 'accept':
      return { kind: head.kind };
  }
}

function buildStatusAnswer<W>(status: number, options: Array<RuleOption<W>>): FaultAnswer | RuleProblem<W> {
  const headers = optionsNamed(options, 'header');
  if (headers.length > MAX_HEADERS) return { code: 'too_many_headers', at: headers[MAX_HEADERS]!.at };
  const seen = new Map<string, W>();
  for (const h of headers) {
    const lower = h.value[0].toLowerCase();
    if (seen.has(lower)) return { code: 'duplicate_header', name: lower, at: h.at };
    seen.set(lower, h.at);
  }
  const [retryAfter] = optionsNamed(options, 'retry-after');
  const retryAfterHeader = seen.get('retry-after');
  if (retryAfter && retryAfterHeader !== undefined) return { code: 'retry_after_twice', at: retryAfter.at, other: retryAfterHeader };
  const [body] = optionsNamed(options, 'body');
  if (body && !statusAllowsBody(status)) return { code: 'body_not_allowed', status, at: body.at };

  const answer: FaultAnswer = { kind: 'status', status };
  if (headers.length > 0) answer.headers = headers.map((h) => h.value);
  if (body) answer.body = body.value;
  if (retryAfter) answer.retryAfter = retryAfter.value;
  return answer;
}
