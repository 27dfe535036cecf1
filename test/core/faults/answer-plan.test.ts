import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FAULT_HEADER,
  SLOW_HEADERS_STATUS_LINE,
  planFaultAnswer,
  planHopArrival,
  type AnswerPlan,
  type PlanContext,
} from '../../../src/core/faults/answer-plan.js';
import { parseHopPath } from '../../../src/core/faults/hop-path.js';
import { parseFaultRule } from '../../../src/core/faults/parse-rule.js';
import type { FaultRule } from '../../../src/core/faults/rule.js';
import { mulberry32 } from '../../../src/core/seeded-random.js';
import { arbitraryRule } from './arbitrary-rule.js';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 0);
const ctx = (over: Partial<PlanContext> = {}): PlanContext => ({ nowMs: NOW, basePath: '/webhooks', random: mulberry32(1), ...over });

function rule(text: string): FaultRule {
  const parsed = parseFaultRule(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.rule;
}

function respond(plan: AnswerPlan) {
  if (plan.kind !== 'respond') throw new Error(`expected a respond plan, got ${plan.kind}`);
  return { ...plan, header: (name: string) => plan.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v) };
}

describe('planFaultAnswer: status answers', () => {
  it('503 retry-after=120: the status, Retry-After in seconds, an error envelope, and the texts to record', () => {
    const planned = planFaultAnswer(rule('503 retry-after=120 attempt=1'), ctx());
    const plan = respond(planned.plan);
    expect(plan.status).toBe(503);
    expect(plan.header('retry-after')).toEqual(['120']);
    expect(plan.header('content-type')).toEqual(['application/json; charset=utf-8']);
    expect(JSON.parse(plan.body)).toEqual({
      success: false,
      error: 'injected fault: 503 retry-after=120 attempt=1',
      code: 'FAULT_INJECTED',
      details: { status: 503 },
      timestamp: '2026-01-02T03:04:05.000Z',
    });
    expect(planned).toMatchObject({ reason: 'fault:503 retry-after=120 attempt=1', status: 503, retryAfter: '120' });
    expect(planned.summary).toBe('answered 503 with Retry-After 120 (rule: 503 retry-after=120 attempt=1)');
  });

  it('429 retry-after=+120s: an HTTP date 120 s after the injected clock', () => {
    const planned = planFaultAnswer(rule('429 retry-after=+120s'), ctx());
    expect(respond(planned.plan).header('retry-after')).toEqual(['Fri, 02 Jan 2026 03:06:05 GMT']);
    expect(planned.retryAfter).toBe('Fri, 02 Jan 2026 03:06:05 GMT');
    expect(planFaultAnswer(rule('429 retry-after=+120s'), ctx({ nowMs: NOW + 86_400_000 })).retryAfter).toBe('Sat, 03 Jan 2026 03:06:05 GMT');
  });

  it('429 with a fixed HTTP date sends it as written', () => {
    const planned = planFaultAnswer(rule("429 retry-after='Wed, 21 Oct 2026 07:28:00 GMT'"), ctx());
    expect(planned.retryAfter).toBe('Wed, 21 Oct 2026 07:28:00 GMT');
  });

  it('a garbage Retry-After given as a header is sent and recorded as such', () => {
    const planned = planFaultAnswer(rule('503 header=retry-after:soon'), ctx());
    expect(respond(planned.plan).header('retry-after')).toEqual(['soon']);
    expect(planned.retryAfter).toBe('soon');
  });

  it('a chosen body goes out as text, with the chosen headers first and a chosen content-type kept', () => {
    const teapot = respond(planFaultAnswer(rule("418 header=x-foo:bar body='teapot'"), ctx()).plan);
    expect(teapot.body).toBe('teapot');
    expect(teapot.headers.slice(0, 2)).toEqual([
      ['x-foo', 'bar'],
      ['content-type', 'text/plain; charset=utf-8'],
    ]);
    const json = respond(planFaultAnswer(rule("400 header='Content-Type:application/json' body='{}'"), ctx()).plan);
    expect(json.header('content-type')).toEqual(['application/json']);
  });

  it.each([
    ['200', ''],
    ['302 header=location:', ''],
    ['204', ''],
    ['304', ''],
    ["500 body=''", ''],
  ])('%s has body %j', (text, body) => {
    expect(respond(planFaultAnswer(rule(text), ctx()).plan).body).toBe(body);
  });

  it('names the fault in a header, unless the rule sets that header itself', () => {
    expect(respond(planFaultAnswer(rule('500 attempt=2'), ctx()).plan).header(FAULT_HEADER)).toEqual(['fault:500 attempt=2']);
    expect(respond(planFaultAnswer(rule(`500 header=${FAULT_HEADER}:mine`), ctx()).plan).header(FAULT_HEADER)).toEqual(['mine']);
    const unicode = respond(planFaultAnswer(rule("500 body='caf\u00e9 \u{1f600}'"), ctx()).plan).header(FAULT_HEADER)[0]!;
    expect(unicode).toMatch(/^[\x20-\x7e]+$/);
  });

  it('does not throw on a broken clock', () => {
    const planned = planFaultAnswer(rule('503 retry-after=+1s'), ctx({ nowMs: Number.NaN }));
    expect(JSON.parse(respond(planned.plan).body).timestamp).toBeNull();
  });
});

describe('planFaultAnswer: the other answers', () => {
  it.each<[string, AnswerPlan, number | null]>([
    ['delay=2000', { kind: 'delay', ms: 2000 }, null],
    ['hang attempt=2', { kind: 'hang', slowHeaders: false, statusLine: null }, null],
    ['hang slow-headers', { kind: 'hang', slowHeaders: true, statusLine: SLOW_HEADERS_STATUS_LINE }, null],
    ['reset p=0.3', { kind: 'reset' }, null],
    ['close', { kind: 'close' }, null],
    ['accept times=1', { kind: 'pass' }, null],
    ['redirect', { kind: 'redirect', status: 307, location: null, hopsLeft: 0 }, 307],
    ['redirect status=301 no-location', { kind: 'redirect', status: 301, location: null, hopsLeft: 0 }, 301],
  ])('%s', (text, plan, status) => {
    const planned = planFaultAnswer(rule(text), ctx());
    expect(planned.plan).toEqual(plan);
    expect(planned.status).toBe(status);
    expect(planned.retryAfter).toBeNull();
    expect(planned.reason).toBe(`fault:${text === 'redirect' ? 'redirect no-location' : text}`);
  });

  it('redirect hops=4: a Location to hop 1 of 4 under the receiver path, 3 more to come', () => {
    const planned = planFaultAnswer(rule('redirect hops=4'), ctx());
    const plan = planned.plan;
    if (plan.kind !== 'redirect') throw new Error(plan.kind);
    expect(plan.status).toBe(307);
    expect(plan.hopsLeft).toBe(3);
    expect(plan.location).toMatch(/^\/webhooks\/__hop\/1\/4-307-[a-z0-9]{10}$/);
    expect(parseHopPath('/webhooks', plan.location!)).toMatchObject({ ok: true, ref: { hop: 1, total: 4, status: 307 } });
  });

  it('a chain of N hops makes the client follow exactly N redirects before normal handling', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.constantFrom(307, 308), (hops, status) => {
        let plan = planFaultAnswer(rule(`redirect status=${status} hops=${hops}`), ctx()).plan;
        let redirects = 0;
        const nonces = new Set<string>();
        while (plan.kind === 'redirect') {
          redirects++;
          expect(plan.status).toBe(status);
          expect(plan.hopsLeft).toBe(hops - redirects);
          const parsed = parseHopPath('/webhooks', plan.location!);
          if (!parsed.ok) throw new Error(parsed.reason);
          nonces.add(parsed.ref.nonce);
          plan = planHopArrival(parsed.ref, '/webhooks').plan;
        }
        expect(plan).toEqual({ kind: 'pass' });
        expect(redirects).toBe(hops);
        expect(nonces.size).toBe(1);
      }),
      { seed: 8, numRuns: 100 },
    );
  });

  it('records hop arrivals with their place in the chain', () => {
    const ref = { hop: 3, total: 3, status: 308 as const, nonce: 'abc' };
    expect(planHopArrival(ref, '/webhooks')).toMatchObject({ plan: { kind: 'pass' }, reason: 'fault-hop:3/3', status: null });
    expect(planHopArrival({ ...ref, hop: 1 }, '/webhooks')).toMatchObject({
      plan: { kind: 'redirect', status: 308, location: '/webhooks/__hop/2/3-308-abc', hopsLeft: 1 },
      reason: 'fault-hop:1/3',
      status: 308,
    });
  });

  it('plans every valid rule without throwing, with headers node accepts', () => {
    fc.assert(
      fc.property(arbitraryRule, fc.integer({ min: 0, max: 253402300799000 }), (r, nowMs) => {
        const planned = planFaultAnswer(r, ctx({ nowMs }));
        expect(planned.reason.startsWith('fault:')).toBe(true);
        if (planned.plan.kind === 'respond') {
          for (const [name, value] of planned.plan.headers) {
            expect(name).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
            expect(value).toMatch(/^[\t\x20-\x7e\x80-\xff]*$/);
          }
        }
      }),
      { seed: 10, numRuns: 1000 },
    );
  });
});
