import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SLACK, LOCAL_SLACK, resolveCheckOptions, type CheckOptions, type CheckOptionsInput } from '../../../src/core/conformance/options.js';
import { TIME_SCALE_MARK_HEADER, markOf, optionsAtScale, readTimeScaleMark } from '../../../src/core/conformance/time-scale-mark.js';

const H = TIME_SCALE_MARK_HEADER;

function options(input: CheckOptionsInput = {}): CheckOptions {
  const resolved = resolveCheckOptions(input);
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  return resolved.options;
}

describe('readTimeScaleMark', () => {
  it('names the header in lower case, as Node stores it', () => {
    expect(H).toBe('x-hookrelay-time-scale');
  });

  it.each<[Array<[string, string]>, number | null]>([
    [[], null],
    [[['content-type', 'application/json']], null],
    [[[H, '0.01']], 0.01],
    [[[H, '2']], 2],
    [[['X-Hookrelay-Time-Scale', '0.5']], 0.5],
    [[['content-type', 'x'], [H, '0.25']], 0.25],
    [[[H, ' 0.5 ']], 0.5],
    [[[H, '\t3\t']], 3],
    [[[H, '.5']], 0.5],
    [[[H, '5.']], 5],
    [[[H, '1e-3']], 0.001],
    [[[H, '1E2']], 100],
    [[[H, '2.5e+1']], 25],
    [[[H, '0010']], 10],
    [[[H, '0']], null],
    [[[H, '0.000']], null],
    [[[H, '0e5']], null],
    [[[H, '-1']], null],
    [[[H, '+1']], null],
    [[[H, '']], null],
    [[[H, '   ']], null],
    [[[H, 'abc']], null],
    [[[H, '0x10']], null],
    [[[H, '1,5']], null],
    [[[H, '1/100']], null],
    [[[H, 'Infinity']], null],
    [[[H, 'NaN']], null],
    [[[H, '1e999']], null],
    [[[H, '1e']], null],
    [[[H, '.']], null],
    [[[H, '1 2']], null],
    [[[H, '2'], [H, '3']], 2],
    [[[H, 'abc'], [H, '3']], null],
  ])('%j → %s', (headers, scale) => {
    expect(readTimeScaleMark(headers)).toBe(scale);
  });

  it('reads back every positive finite number as JavaScript writes it', () => {
    fc.assert(
      fc.property(fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true, noDefaultInfinity: true }), (scale) => {
        expect(readTimeScaleMark([[H, String(scale)]])).toBe(scale);
      }),
      { seed: 31, numRuns: 500 },
    );
  });

  it('never marks a scale of zero or less', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const scale = readTimeScaleMark([[H, value]]);
        if (scale !== null) {
          expect(scale).toBeGreaterThan(0);
          expect(Number.isFinite(scale)).toBe(true);
        }
      }),
      { seed: 32, numRuns: 500 },
    );
  });
});

describe('optionsAtScale', () => {
  it('returns the very same options when the scale does not change', () => {
    const base = options();
    expect(optionsAtScale(base, 1)).toBe(base);
    const scaled = options({ timeScale: 0.01 });
    expect(optionsAtScale(scaled, 0.01)).toBe(scaled);
  });

  it('moves a run judged at 1 to a scaled delivery with the local slack, changing nothing else', () => {
    const base = options({ toleranceSeconds: 42 });
    const before = structuredClone(base);
    const scaled = optionsAtScale(base, 0.01);
    expect(scaled).toEqual({ ...base, timeScale: 0.01, slack: LOCAL_SLACK });
    expect(base).toEqual(before);
  });

  it('moves a scaled run to an unscaled delivery with the default slack', () => {
    const scaled = options({ timeScale: 0.01 });
    expect(scaled.slack).toEqual(LOCAL_SLACK);
    expect(optionsAtScale(scaled, 1)).toEqual({ ...scaled, timeScale: 1, slack: DEFAULT_SLACK });
  });

  it('keeps the local slack between two scales other than 1', () => {
    expect(optionsAtScale(options({ timeScale: 0.1 }), 0.001).slack).toEqual(LOCAL_SLACK);
  });

  it.each([0.01, 1, 7])('keeps a slack that was given, at scale %s', (target) => {
    const given = options({ timeScale: 0.5, slack: { earlyMs: 5, lateMs: 7 } });
    expect(given.slackGiven).toBe(true);
    expect(optionsAtScale(given, target)).toMatchObject({ timeScale: target, slack: { earlyMs: 5, lateMs: 7 } });
  });

  it('lets the slack follow the scale when slackGiven is false', () => {
    const base = { ...options({ timeScale: 0.5 }), slack: { earlyMs: 5, lateMs: 7 }, slackGiven: false };
    expect(optionsAtScale(base, 1).slack).toEqual(DEFAULT_SLACK);
    expect(optionsAtScale(base, 2).slack).toEqual(LOCAL_SLACK);
  });
});

describe('markOf', () => {
  const marks = new Map([
    ['evt_a', 0.01],
    ['evt_b', 0.5],
  ]);

  it.each<[ReadonlyMap<string, number> | undefined, Array<string | null>, number | null]>([
    [undefined, ['evt_a'], null],
    [marks, [], null],
    [marks, ['evt_a'], 0.01],
    [marks, ['evt_b', 'evt_a'], 0.5],
    [marks, ['evt_a', 'evt_b'], 0.01],
    [marks, [null, 'evt_b'], 0.5],
    [marks, ['evt_x', null, 'evt_a'], 0.01],
    [marks, ['evt_x', null], null],
    [marks, ['EVT_A'], null],
  ])('%j under %j → %s', (m, ids, expected) => {
    expect(markOf(m, ids)).toBe(expected);
  });
});
