/**
 * Writing rules in their JSON form (rule-json.ts reads it): the shape of `--fault-file` and of the
 * control API, with friendlier leaves than FaultRule (ranges as `1` or `"2-4"`, Retry-After as
 * seconds or a text, headers as an object).
 */
import { formatRange } from './attempt-range.js';
import { formatRetryAfterText } from './retry-after.js';
import type { AttemptRange, FaultAnswer, FaultMatch, FaultRule } from './rule.js';

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
