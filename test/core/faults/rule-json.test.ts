import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFaultRule } from '../../../src/core/faults/format-rule.js';
import { parseFaultRule } from '../../../src/core/faults/parse-rule.js';
import type { FaultRule } from '../../../src/core/faults/rule.js';
import {
  faultRuleFromJson,
  faultRuleToJson,
  faultRulesFromJson,
  faultRulesToJson,
} from '../../../src/core/faults/rule-json.js';
import { arbitraryRule } from './arbitrary-rule.js';

/** Through real JSON text, as a file or the control API would carry it. */
const viaJsonText = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('faultRuleFromJson: valid rules', () => {
  it.each<[unknown, FaultRule]>([
    [
      { match: { attempt: 1 }, answer: { kind: 'status', status: 503, retryAfter: 120 } },
      { match: { attempt: { from: 1, to: 1 } }, answer: { kind: 'status', status: 503, retryAfter: { kind: 'seconds', seconds: 120 } } },
    ],
    [
      { match: { attempt: '2-4', arrival: '3-', trigger: 'trustcenter.*', delivery: 'd1', p: 0.3 }, answer: { kind: 'reset' } },
      {
        match: { attempt: { from: 2, to: 4 }, arrival: { from: 3, to: null }, trigger: 'trustcenter.*', delivery: 'd1', p: 0.3 },
        answer: { kind: 'reset' },
      },
    ],
    [{ answer: { kind: 'hang' } }, { match: {}, answer: { kind: 'hang', slowHeaders: false } }],
    [{ answer: { kind: 'hang', slowHeaders: true } }, { match: {}, answer: { kind: 'hang', slowHeaders: true } }],
    [{ answer: { kind: 'redirect' } }, { match: {}, answer: { kind: 'redirect', status: 307, hops: null } }],
    [{ answer: { kind: 'redirect', status: 308, hops: 4 } }, { match: {}, answer: { kind: 'redirect', status: 308, hops: 4 } }],
    [{ answer: { kind: 'redirect', hops: null } }, { match: {}, answer: { kind: 'redirect', status: 307, hops: null } }],
    [{ answer: { kind: 'delay', ms: 2000 } }, { match: {}, answer: { kind: 'delay', ms: 2000 } }],
    [
      { answer: { kind: 'status', status: 429, retryAfter: '+120s' } },
      { match: {}, answer: { kind: 'status', status: 429, retryAfter: { kind: 'relative', seconds: 120 } } },
    ],
    [
      { answer: { kind: 'status', status: 429, retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT' } },
      { match: {}, answer: { kind: 'status', status: 429, retryAfter: { kind: 'date', date: 'Wed, 21 Oct 2026 07:28:00 GMT' } } },
    ],
    [
      { answer: { kind: 'status', status: 418, headers: { 'x-foo': 'bar', 'X-Two': '2' }, body: 'teapot' } },
      { match: {}, answer: { kind: 'status', status: 418, headers: [['x-foo', 'bar'], ['X-Two', '2']], body: 'teapot' } },
    ],
    [{ answer: { kind: 'status', status: 500, headers: {} } }, { match: {}, answer: { kind: 'status', status: 500 } }],
    [
      { id: 'r1', answer: { kind: 'accept' }, limit: { times: 2 }, beforeVerify: true },
      { id: 'r1', match: {}, answer: { kind: 'accept' }, limit: { times: 2 }, beforeVerify: true },
    ],
    [{ answer: { kind: 'close' }, beforeVerify: false }, { match: {}, answer: { kind: 'close' } }],
  ])('%j', (json, expected) => {
    expect(faultRuleFromJson(json)).toStrictEqual({ ok: true, rule: expected });
  });

  it('keeps a header named __proto__ as a header, not a prototype', () => {
    const result = faultRuleFromJson(JSON.parse('{"answer":{"kind":"status","status":500,"headers":{"__proto__":"x"}}}'));
    expect(result).toStrictEqual({ ok: true, rule: { match: {}, answer: { kind: 'status', status: 500, headers: [['__proto__', 'x']] } } });
    expect(result.ok && viaJsonText(faultRuleToJson(result.rule))).toStrictEqual(JSON.parse('{"match":{},"answer":{"kind":"status","status":500,"headers":{"__proto__":"x"}}}'));
  });
});

describe('faultRuleFromJson: refusals name the JSON path', () => {
  it.each<[unknown, string, string]>([
    [null, '', 'rule must be an object'],
    [[], '', 'rule must be an object'],
    [{}, 'answer', 'answer is missing'],
    [{ answer: 503 }, 'answer', 'answer must be an object with a kind'],
    [{ answer: {} }, 'answer.kind', 'answer.kind must be one of status, delay, hang, reset, close, redirect, accept'],
    [{ answer: { kind: 'explode' } }, 'answer.kind', 'answer.kind must be one of status, delay, hang, reset, close, redirect, accept'],
    [{ answer: { kind: 'status', status: 700 } }, 'answer.status', 'answer.status must be an integer 100-599'],
    [{ answer: { kind: 'status', status: '503' } }, 'answer.status', 'answer.status must be an integer 100-599'],
    [{ answer: { kind: 'status' } }, 'answer.status', 'answer.status is missing'],
    [{ answer: { kind: 'reset', retryAfter: 5 } }, 'answer.retryAfter', 'answer.retryAfter is not allowed with kind reset (allowed: kind)'],
    [{ answer: { kind: 'hang', slowHeaders: 'yes' } }, 'answer.slowHeaders', 'answer.slowHeaders must be true or false'],
    [{ answer: { kind: 'delay' } }, 'answer.ms', 'answer.ms is missing'],
    [{ answer: { kind: 'delay', ms: -1 } }, 'answer.ms', 'answer.ms must be an integer number of milliseconds from 0 to 3600000'],
    [{ answer: { kind: 'redirect', status: 302, hops: 2 } }, 'answer.hops', 'answer.hops needs status 307 or 308 (only they keep the POST), not 302'],
    [{ answer: { kind: 'redirect', status: 200 } }, 'answer.status', 'answer.status must be 301, 302, 303, 307 or 308'],
    [{ answer: { kind: 'redirect', hops: 0 } }, 'answer.hops', 'answer.hops must be an integer from 1 to 20'],
    [{ answer: { kind: 'status', status: 204, body: 'x' } }, 'answer.body', 'answer.body is not allowed: a 204 answer has no body'],
    [{ answer: { kind: 'status', status: 500, body: 5 } }, 'answer.body', 'answer.body must be a text'],
    [{ answer: { kind: 'status', status: 500, headers: [] } }, 'answer.headers', 'answer.headers must be an object of header names to texts'],
    [
      { answer: { kind: 'status', status: 500, headers: { 'x a': '1' } } },
      'answer.headers["x a"]',
      'answer.headers["x a"] is not allowed: the name must be a header name of 1-128 token characters (letters, digits, -, _ …)',
    ],
    [
      { answer: { kind: 'status', status: 500, headers: { 'Content-Length': '1' } } },
      'answer.headers.Content-Length',
      'answer.headers.Content-Length is not allowed: the name must not be content-length: hookrelay frames the response itself',
    ],
    [{ answer: { kind: 'status', status: 500, headers: { 'x-a': 1 } } }, 'answer.headers.x-a', 'answer.headers.x-a must be a text'],
    [
      { answer: { kind: 'status', status: 500, headers: { 'x-a': '1', 'X-A': '2' } } },
      'answer.headers.X-A',
      'answer.headers.X-A duplicates another header (names are case-insensitive)',
    ],
    [
      { answer: { kind: 'status', status: 503, headers: { 'Retry-After': '1' }, retryAfter: 5 } },
      'answer.retryAfter',
      'answer.retryAfter is also given as a header: use one of them',
    ],
    [
      { answer: { kind: 'status', status: 503, retryAfter: 'soon' } },
      'answer.retryAfter',
      "answer.retryAfter must be seconds (120), a date relative to the answer (+120s) or an HTTP date ('Wed, 21 Oct 2026 07:28:00 GMT')",
    ],
    [{ answer: { kind: 'status', status: 503, retryAfter: -1 } }, 'answer.retryAfter', 'answer.retryAfter must be an integer number of seconds from 0 to 2147483647'],
    [{ answer: { kind: 'status', status: 503, retryAfter: true } }, 'answer.retryAfter', 'answer.retryAfter must be a number of seconds or a text such as "+120s" or an HTTP date'],
    [{ match: [], answer: { kind: 'reset' } }, 'match', 'match must be an object'],
    [{ match: { attempt: 'x' }, answer: { kind: 'reset' } }, 'match.attempt', 'match.attempt must be N, N-M or N- with 1 <= N <= M (e.g. 1, 2-4, 3-)'],
    [{ match: { attempt: 0 }, answer: { kind: 'reset' } }, 'match.attempt', 'match.attempt must use whole numbers from 1 to 1000000'],
    [{ match: { attempt: 1.5 }, answer: { kind: 'reset' } }, 'match.attempt', 'match.attempt must use whole numbers from 1 to 1000000'],
    [{ match: { arrival: true }, answer: { kind: 'reset' } }, 'match.arrival', 'match.arrival must be a number or a range text such as "2-4" or "3-"'],
    [{ match: { p: 2 }, answer: { kind: 'reset' } }, 'match.p', 'match.p must be a number from 0 to 1'],
    [{ match: { trigger: '' }, answer: { kind: 'reset' } }, 'match.trigger', 'match.trigger must be a non-empty text'],
    [{ match: { attempts: 1 }, answer: { kind: 'reset' } }, 'match.attempts', "match.attempts is not allowed, did you mean 'attempt'? (allowed: trigger, delivery, attempt, arrival, p)"],
    [{ answer: { kind: 'reset' }, limit: { times: 0 } }, 'limit.times', 'limit.times must be an integer from 1 to 1000000000'],
    [{ answer: { kind: 'reset' }, limit: {} }, 'limit.times', 'limit.times is missing'],
    [{ answer: { kind: 'reset' }, beforeVerify: 'yes' }, 'beforeVerify', 'beforeVerify must be true or false'],
    [{ answer: { kind: 'reset' }, id: '' }, 'id', "id must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"],
    [{ answer: { kind: 'reset' }, extra: 1 }, 'extra', 'extra is not allowed (allowed: id, match, answer, limit, beforeVerify)'],
  ])('%j → %s', (json, path, message) => {
    expect(faultRuleFromJson(json)).toStrictEqual({ ok: false, path, message });
  });

  it('never throws, whatever the value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.record({ answer: fc.anything(), match: fc.anything() })), (value) => {
        const result = faultRuleFromJson(value);
        expect(typeof result.ok).toBe('boolean');
      }),
      { seed: 11, numRuns: 2000 },
    );
  });
});

describe('faultRulesFromJson: the file form', () => {
  it('reads objects and one-line texts, in order', () => {
    const result = faultRulesFromJson({ rules: ['503 retry-after=120 attempt=1', { match: { attempt: 2 }, answer: { kind: 'hang' } }] });
    expect(result.ok && result.rules.map(formatFaultRule)).toEqual(['503 retry-after=120 attempt=1', 'hang attempt=2']);
  });

  it.each<[unknown, string, string]>([
    [[], '', 'rule must be an object'],
    [{}, 'rules', 'rules is missing: expected { "rules": [ … ] }'],
    [{ rules: {} }, 'rules', 'rules must be an array'],
    [{ rules: [], seed: 1 }, 'seed', 'seed is not allowed (allowed: rules)'],
    [{ rules: ['503', { answer: { kind: 'status', status: 9 } }] }, 'rules[1].answer.status', 'rules[1].answer.status must be an integer 100-599'],
    [{ rules: ['5O3'] }, 'rules[0]', 'rules[0]: status must be 3 digits at column 1'],
    [{ rules: ['503 id=a', 'hang id=b', { id: 'a', answer: { kind: 'reset' } }] }, 'rules[2].id', 'rules[2].id duplicates the id of rules[0] (a)'],
    [{ rules: Array.from({ length: 1001 }, () => 'reset') }, 'rules', 'rules must hold at most 1000 rules'],
  ])('%j → %s', (json, path, message) => {
    expect(faultRulesFromJson(json)).toStrictEqual({ ok: false, problems: [{ path, message }] });
  });

  it('refuses with every bad rule, each at its own path, in order (tour finding F6)', () => {
    const file = { rules: [{ answer: { kind: 'reset', retryAfter: 3 } }, { match: { attempt: 'x' }, answer: { kind: 'hang' } }, '5O3'] };
    const result = faultRulesFromJson(file);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems.map((p) => p.path)).toEqual(['rules[0].answer.retryAfter', 'rules[1].match.attempt', 'rules[2]']);
    expect(problems[0]!.message).toBe('rules[0].answer.retryAfter is not allowed with kind reset (allowed: kind)');
    expect(problems[1]!.message).toMatch(/^rules\[1\]\.match\.attempt /);
    expect(problems[2]!.message).toBe('rules[2]: status must be 3 digits at column 1');
  });

  it('lists a duplicate id beside the bad rules, the good rules between them read as usual', () => {
    const result = faultRulesFromJson({ rules: ['503 id=a', { answer: { kind: 'status', status: 9 } }, 'hang', { id: 'a', answer: { kind: 'reset' } }, '5O3'] });
    expect(result).toStrictEqual({
      ok: false,
      problems: [
        { path: 'rules[1].answer.status', message: 'rules[1].answer.status must be an integer 100-599' },
        { path: 'rules[3].id', message: 'rules[3].id duplicates the id of rules[0] (a)' },
        { path: 'rules[4]', message: 'rules[4]: status must be 3 digits at column 1' },
      ],
    });
  });

  it('round-trips a list through JSON text', () => {
    fc.assert(
      fc.property(fc.array(arbitraryRule, { maxLength: 5 }), (rules) => {
        const withoutDuplicateIds = rules.filter((r, i) => r.id === undefined || rules.findIndex((o) => o.id === r.id) === i);
        expect(faultRulesFromJson(viaJsonText(faultRulesToJson(withoutDuplicateIds)))).toStrictEqual({ ok: true, rules: withoutDuplicateIds });
      }),
      { seed: 5, numRuns: 300 },
    );
  });
});

describe('JSON ↔ one-line round trip', () => {
  it('JSON form (through JSON text) reads back to the same rule', () => {
    fc.assert(
      fc.property(arbitraryRule, (rule) => {
        expect(faultRuleFromJson(viaJsonText(faultRuleToJson(rule)))).toStrictEqual({ ok: true, rule });
      }),
      { seed: 3, numRuns: 2000 },
    );
  });

  it('one-line → JSON → one-line gives the same text, and JSON → one-line → JSON the same JSON', () => {
    fc.assert(
      fc.property(arbitraryRule, (rule) => {
        const line = formatFaultRule(rule);
        const parsed = parseFaultRule(line);
        if (!parsed.ok) throw new Error(parsed.message);
        const json = viaJsonText(faultRuleToJson(parsed.rule));
        const back = faultRuleFromJson(json);
        if (!back.ok) throw new Error(back.message);
        expect(formatFaultRule(back.rule)).toBe(line);

        const reparsed = parseFaultRule(formatFaultRule(back.rule));
        expect(reparsed.ok && viaJsonText(faultRuleToJson(reparsed.rule))).toStrictEqual(json);
      }),
      { seed: 9, numRuns: 2000 },
    );
  });
});

describe('negative zero', () => {
  it('is read as 0, so it prints and reads back the same', () => {
    const result = faultRuleFromJson({ match: { p: -0 }, answer: { kind: 'status', status: 503, retryAfter: -0 } });
    if (!result.ok) throw new Error(result.message);
    expect(Object.is(result.rule.match.p, 0)).toBe(true);
    expect(parseFaultRule(formatFaultRule(result.rule))).toStrictEqual({ ok: true, rule: result.rule });
  });
});
