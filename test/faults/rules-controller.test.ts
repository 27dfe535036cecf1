import { describe, expect, it } from 'vitest';
import { createEventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { parseFaultRule, type FaultArrival, type FaultRule } from '../../src/core/faults/index.js';
import type { FaultsAdapter } from '../../src/console/console-options.js';
import { createFaultRules, type FaultRules } from '../../src/faults/rules-controller.js';

const rule = (line: string): FaultRule => {
  const parsed = parseFaultRule(line);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.rule;
};

const arrival = (overrides: Partial<FaultArrival> = {}): FaultArrival => ({
  trigger: 'trustcenter.access_requested',
  deliveryId: 'd-1',
  attemptHeader: 1,
  arrivalCount: 1,
  verified: true,
  ...overrides,
});

function setup(lines: string[] = [], seed = 1) {
  const hub = createEventHub();
  const events: Array<HubEvents['rules']> = [];
  hub.on('rules', (e) => events.push(e));
  const faults = createFaultRules({ rules: lines.map(rule), seed, hub });
  return { faults, events };
}

/** Which rules fire for `n` identical arrivals, by id (null: none). */
function fireSequence(faults: FaultRules, n: number, at: Partial<FaultArrival> = {}): Array<string | null> {
  return Array.from({ length: n }, () => {
    const d = faults.decide(arrival(at));
    return d.matched ? faults.list()[d.index]!.id : null;
  });
}

describe('fault rules controller', () => {
  it('fits the console adapter shape', () => {
    const adapter: FaultsAdapter = setup().faults;
    expect(adapter.list()).toEqual([]);
  });

  it('gives unnamed rules ids r1, r2, … and keeps the own id of a named rule', () => {
    const { faults } = setup(['503 attempt=1', 'hang attempt=2 id=second', '410']);
    expect(faults.list().map((r) => [r.id, r.line])).toEqual([
      ['r1', '503 attempt=1'],
      ['second', 'hang attempt=2 id=second'],
      ['r2', '410'],
    ]);
    expect(faults.list()[0]!.rule).toEqual({ match: { attempt: 1 }, answer: { kind: 'status', status: 503 } });
  });

  it('adds a one-line or JSON rule at the end and announces it', () => {
    const { faults, events } = setup(['503 attempt=1']);
    expect(faults.add('hang attempt=2')).toMatchObject({ ok: true, rule: { id: 'r2', line: 'hang attempt=2', fired: 0 } });
    expect(faults.add({ id: 'gone', answer: { kind: 'status', status: 410 } })).toMatchObject({ ok: true, rule: { id: 'gone', line: '410 id=gone' } });
    expect(faults.list().map((r) => r.id)).toEqual(['r1', 'r2', 'gone']);
    expect(events.map((e) => e.change)).toEqual(['added r2: hang attempt=2', 'added gone: 410 id=gone']);
    expect(events[1]!.rules).toHaveLength(3);
  });

  it.each<[input: unknown, refusal: { message: string; column?: number }]>([
    ['5O3', { message: 'status must be 3 digits at column 1', column: 1 }],
    ['503 hang', { message: 'conflicting answers: 503 and hang (a rule has one answer) at column 5', column: 5 }],
    [{ answer: { kind: 'status', status: 99 } }, { message: 'answer.status must be an integer 100-599' }],
    [42, { message: expect.stringContaining('a rule is a one-line text') as unknown as string }],
    [null, { message: expect.stringContaining('a rule is a one-line text') as unknown as string }],
  ])('refuses %j with the reason (and column for the one-line form), changing nothing', (input, refusal) => {
    const { faults, events } = setup();
    const change = faults.add(input);
    expect(change).toEqual({ ok: false, ...refusal });
    expect(faults.validate(input)).toEqual({ ok: false, ...refusal });
    expect(faults.list()).toEqual([]);
    expect(events).toEqual([]);
  });

  it('refuses an id already taken', () => {
    const { faults } = setup(['503 id=x']);
    expect(faults.add('410 id=x')).toMatchObject({ ok: false, message: 'id x is taken by rule 1: pick another, or replace that rule' });
  });

  it('marks a rule an earlier one hides (shadowedBy), in the list and when validating a new one', () => {
    const { faults } = setup(['503 trigger=vendor.*', '500 trigger=vendor.rating_dropped', '429 trigger=control.*']);
    expect(faults.list().map((r) => r.shadowedBy ?? null)).toEqual([null, 'r1', null]);
    const checked = faults.validate('reset trigger=control.drift_detected');
    expect(checked.ok && checked.rule.shadowedBy).toBe('r3');
    const free = faults.validate('reset trigger=sod.*');
    expect(free.ok && free.rule.shadowedBy).toBeUndefined();
    faults.remove('r1');
    expect(faults.list().map((r) => r.shadowedBy ?? null)).toEqual([null, null]);
  });

  it('moves a rule to a position, keeping its id and fire count, and announces it', () => {
    const { faults, events } = setup(['503', '500', '429']);
    faults.decide(arrival());
    const moved = faults.move('r1', 3);
    expect(moved.ok && moved.rule).toMatchObject({ id: 'r1', fired: 1 });
    expect(faults.list().map((r) => r.id)).toEqual(['r2', 'r3', 'r1']);
    expect(events.at(-1)!.change).toBe('moved r1 to position 3: 503');
    expect(faults.move('r9', 1)).toMatchObject({ ok: false, notFound: true });
    expect(faults.move('r2', 0)).toMatchObject({ ok: false, message: 'position must be a whole number from 1 to 3' });
    expect(faults.move('r2', 1.5)).toMatchObject({ ok: false });
  });

  it('validates without adding or announcing', () => {
    const { faults, events } = setup();
    expect(faults.validate('503 retry-after=+120s')).toMatchObject({ ok: true, rule: { line: '503 retry-after=+120s' } });
    expect(faults.list()).toEqual([]);
    expect(events).toEqual([]);
  });

  it('replaces a rule in place; unknown ids are not found', () => {
    const { faults, events } = setup(['503', '500']);
    expect(faults.replace('r1', '429 retry-after=60')).toMatchObject({ ok: true, rule: { id: 'r1', line: '429 retry-after=60' } });
    expect(faults.list().map((r) => r.line)).toEqual(['429 retry-after=60', '500']);
    expect(faults.replace('nope', '503')).toEqual({ ok: false, message: 'no fault rule with id nope', notFound: true });
    expect(faults.replace('r1', '503 id=other')).toMatchObject({ ok: false, message: expect.stringContaining('differs') });
    expect(events.map((e) => e.change)).toEqual(['replaced r1: 429 retry-after=60 (was 503)']);
  });

  it('keeps the fire count of a named rule across a replace, and restarts it for a changed unnamed one', () => {
    const { faults } = setup(['503 times=2 id=capped', '500 times=2']);
    expect(fireSequence(faults, 1)).toEqual(['capped']);
    faults.replace('capped', '502 times=2');
    expect(faults.list()[0]).toMatchObject({ line: '502 times=2 id=capped', fired: 1 });
    expect(fireSequence(faults, 4)).toEqual(['capped', 'r1', 'r1', null]);
    faults.replace('r1', '504 times=2');
    expect(fireSequence(faults, 3)).toEqual(['r1', 'r1', null]);
  });

  it('removes and clears, announcing each change; clear forgets fire counts', () => {
    const { faults, events } = setup(['503 times=1', '500']);
    expect(fireSequence(faults, 2)).toEqual(['r1', 'r2']);
    expect(faults.remove('r2')).toBe(true);
    expect(faults.remove('r2')).toBe(false);
    faults.clear();
    expect(faults.list()).toEqual([]);
    faults.add('503 times=1');
    expect(fireSequence(faults, 2)).toEqual(['r3', null]);
    expect(events.map((e) => e.change)).toEqual([
      'removed r2: 500',
      'cleared 1 rule: every arrival is handled normally',
      'added r3: 503 times=1',
    ]);
  });

  it('says which stages have rules and which need the arrival count', () => {
    const { faults } = setup(['401 pre-verify', '503 arrival=2']);
    const { stages } = faults; // read once: the same object stays true as the rules change
    expect([stages.pre.any, stages.post.any]).toEqual([true, true]);
    expect([stages.pre.arrival, stages.post.arrival]).toEqual([false, true]);
    faults.clear();
    expect([stages.pre.any, stages.post.any, stages.post.arrival]).toEqual([false, false, false]);
    faults.add('500 arrival=1 pre-verify');
    expect([stages.pre.any, stages.pre.arrival]).toEqual([true, true]);
  });

  it('decides only the rules of the stage asked for', () => {
    const { faults } = setup(['401 pre-verify', '503']);
    expect(fireSequence(faults, 1, { verified: false })).toEqual(['r1']);
    expect(fireSequence(faults, 1, { verified: true })).toEqual(['r2']);
  });

  it('repeats the same faults for the same seed, and not for another', () => {
    const runs = [1, 1, 2].map((seed) => fireSequence(setup(['503 p=0.5'], seed).faults, 64));
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]).not.toEqual(runs[2]);
    expect(runs[0]!.filter((id) => id !== null).length).toBeGreaterThan(10);
    expect(runs[0]!.filter((id) => id === null).length).toBeGreaterThan(10);
  });
});
