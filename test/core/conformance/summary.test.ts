import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../src/core/conformance/judge-run.js';
import { checkExitCode, summarize } from '../../../src/core/conformance/summary.js';
import { DELIVERY_RULES } from '../../../src/core/conformance/types.js';
import { T0, delivery, opts, records } from './builder.js';

describe('summary and exit code', () => {
  const good = delivery({ id: 'good' }).attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 60_000 });
  const bad = delivery({ id: 'bad', start: T0 + 1000 }).attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 1000 });
  const v = judgeRun(records(good, bad), opts());

  it('counts deliveries and every rule verdict', () => {
    expect(v.summary).toMatchObject({ deliveries: 2, passed: 1, failed: 1, retrying: 0, failures: 1 });
    expect(v.summary.rules.backoff).toEqual({ pass: 1, fail: 1, 'n/a': 0 });
    expect(v.summary.rules.timeout).toEqual({ pass: 0, fail: 0, 'n/a': 2 });
    expect(v.summary.rules.suspension).toEqual({ pass: 0, fail: 0, 'n/a': 1 });
    const total = Object.values(v.summary.rules).reduce((n, c) => n + c.pass + c.fail + c['n/a'], 0);
    expect(total).toBe(2 * DELIVERY_RULES.length + 1);
  });

  it('exits 1 when any rule failed, 0 otherwise', () => {
    expect(checkExitCode(v)).toBe(1);
    const onlyGood = { deliveries: v.deliveries.filter((d) => d.deliveryId === 'good'), suspension: v.suspension };
    expect(checkExitCode(onlyGood)).toBe(0);
    expect(checkExitCode({ deliveries: onlyGood.deliveries, suspension: { ...v.suspension, status: 'fail' } })).toBe(1);
  });

  it('can re-summarise a filtered list (check --delivery)', () => {
    const s = summarize(v.deliveries.filter((d) => d.deliveryId === 'bad'), v.suspension);
    expect(s).toMatchObject({ deliveries: 1, passed: 0, failed: 1, failures: 1 });
  });
});
