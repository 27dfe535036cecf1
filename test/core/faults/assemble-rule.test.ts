import { describe, expect, it } from 'vitest';
import { assembleRule, type RuleFields, type RuleOption, type RuleProblem } from '../../../src/core/faults/assemble-rule.js';
import { parseFaultRule } from '../../../src/core/faults/parse-rule.js';
import { faultRuleFromJson } from '../../../src/core/faults/rule-json.js';
import type { FaultRule } from '../../../src/core/faults/rule.js';

/** Fields located by labels, so a refusal says which field it points at. */
const fields = (head: NonNullable<RuleFields<string>['answer']>['head'] | null, ...options: Array<RuleOption<string>>): RuleFields<string> => ({
  answer: head === null ? null : { head, at: 'answer' },
  match: {},
  options,
});

describe('assembleRule: builds the canonical rule', () => {
  it.each<[string, RuleFields<string>, FaultRule]>([
    [
      'a status answer with its options',
      fields(
        { kind: 'status', status: 503 },
        { name: 'header', value: ['x-a', '1'], at: 'h1' },
        { name: 'retry-after', value: { kind: 'seconds', seconds: 5 }, at: 'ra' },
        { name: 'body', value: 'x', at: 'b' },
      ),
      { match: {}, answer: { kind: 'status', status: 503, headers: [['x-a', '1']], body: 'x', retryAfter: { kind: 'seconds', seconds: 5 } } },
    ],
    ['a redirect with the default status', fields({ kind: 'redirect' }), { match: {}, answer: { kind: 'redirect', status: 307, hops: null } }],
    [
      'a redirect chain',
      fields({ kind: 'redirect' }, { name: 'status=', value: 308, at: 's' }, { name: 'hops', value: 3, at: 'h' }),
      { match: {}, answer: { kind: 'redirect', status: 308, hops: 3 } },
    ],
    ['hang slow-headers', fields({ kind: 'hang' }, { name: 'slow-headers', at: 'sh' }), { match: {}, answer: { kind: 'hang', slowHeaders: true } }],
    ['a delay', fields({ kind: 'delay', ms: 20 }), { match: {}, answer: { kind: 'delay', ms: 20 } }],
  ])('%s', (_, input, rule) => {
    expect(assembleRule(input)).toStrictEqual({ ok: true, rule });
  });

  it('adds id, limit and beforeVerify only when given, beforeVerify only when true', () => {
    const base = fields({ kind: 'reset' });
    expect(assembleRule({ ...base, id: 'r', times: 2, beforeVerify: true })).toStrictEqual({
      ok: true,
      rule: { id: 'r', match: {}, answer: { kind: 'reset' }, limit: { times: 2 }, beforeVerify: true },
    });
    expect(assembleRule({ ...base, beforeVerify: false })).toStrictEqual({ ok: true, rule: { match: {}, answer: { kind: 'reset' } } });
  });
});

describe('assembleRule: the checks across fields, once for both grammars', () => {
  const headers = Array.from({ length: 33 }, (_, i): RuleOption<string> => ({ name: 'header', value: [`x-${i}`, 'v'], at: `h${i}` }));
  it.each<[string, RuleFields<string>, RuleProblem<string>]>([
    ['no answer', fields(null), { code: 'no_answer' }],
    [
      'an option of another answer (the first written)',
      fields({ kind: 'reset' }, { name: 'body', value: 'x', at: 'b' }, { name: 'hops', value: 2, at: 'h' }),
      { code: 'option_not_for_answer', option: 'body', at: 'b' },
    ],
    ['more than 32 headers', fields({ kind: 'status', status: 500 }, ...headers), { code: 'too_many_headers', at: 'h32' }],
    [
      'a header twice, in any case',
      fields({ kind: 'status', status: 500 }, { name: 'header', value: ['X-A', '1'], at: 'h1' }, { name: 'header', value: ['x-a', '2'], at: 'h2' }),
      { code: 'duplicate_header', name: 'x-a', at: 'h2' },
    ],
    [
      'Retry-After as an option and as a header',
      fields({ kind: 'status', status: 503 }, { name: 'retry-after', value: { kind: 'seconds', seconds: 1 }, at: 'ra' }, { name: 'header', value: ['Retry-After', '2'], at: 'h' }),
      { code: 'retry_after_twice', at: 'ra', other: 'h' },
    ],
    ['a body on a 304', fields({ kind: 'status', status: 304 }, { name: 'body', value: '', at: 'b' }), { code: 'body_not_allowed', status: 304, at: 'b' }],
    [
      'hops with no-location',
      fields({ kind: 'redirect' }, { name: 'no-location', at: 'nl' }, { name: 'hops', value: 2, at: 'h' }),
      { code: 'hops_and_no_location', at: 'h', other: 'nl' },
    ],
    [
      'hops on a redirect that drops the POST',
      fields({ kind: 'redirect' }, { name: 'hops', value: 2, at: 'h' }, { name: 'status=', value: 303, at: 's' }),
      { code: 'hops_need_post', status: 303, at: 'h', other: 's' },
    ],
  ])('%s', (_, input, problem) => {
    expect(assembleRule(input)).toStrictEqual({ ok: false, problem });
  });

  it.each<[string, string, unknown, string]>([
    ['duplicate header', '500 header=x-a:1 header=X-A:2', { answer: { kind: 'status', status: 500, headers: { 'x-a': '1', 'X-A': '2' } } }, 'answer.headers.X-A'],
    ['Retry-After twice', '503 retry-after=1 header=retry-after:2', { answer: { kind: 'status', status: 503, headers: { 'retry-after': '2' }, retryAfter: 1 } }, 'answer.retryAfter'],
    ['body on a 204', '204 body=x', { answer: { kind: 'status', status: 204, body: 'x' } }, 'answer.body'],
    ['hops on a 302', 'redirect status=302 hops=2', { answer: { kind: 'redirect', status: 302, hops: 2 } }, 'answer.hops'],
    [
      'too many headers',
      `500 ${Array.from({ length: 33 }, (_, i) => `header=x-${i}:v`).join(' ')}`,
      { answer: { kind: 'status', status: 500, headers: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x-${i}`, 'v'])) } },
      'answer.headers',
    ],
  ])('both grammars refuse %s', (_, line, json, path) => {
    expect(parseFaultRule(line).ok).toBe(false);
    expect(faultRuleFromJson(json)).toMatchObject({ ok: false, path });
  });
});
