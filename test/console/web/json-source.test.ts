import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNodeOf, parseJsonSource, type JsonNode } from '../../../web/src/json-source.js';

/** The tree as JSON.parse would give it (numbers through Number). */
function toValue(node: JsonNode): unknown {
  switch (node.kind) {
    case 'object': return Object.fromEntries(node.entries.map(([k, v]) => [k, toValue(v)]));
    case 'array': return node.items.map(toValue);
    case 'string': return node.value;
    case 'number': return Number(node.text);
    case 'bool': return node.value;
    default: return null;
  }
}

const numbers = (text: string): string[] => {
  const out: string[] = [];
  const walk = (n: JsonNode) => {
    if (n.kind === 'number') out.push(n.text);
    else if (n.kind === 'object') n.entries.forEach(([, v]) => walk(v));
    else if (n.kind === 'array') n.items.forEach(walk);
  };
  const parsed = parseJsonSource(text);
  if (!parsed.ok) throw new Error(parsed.error);
  walk(parsed.value);
  return out;
};

describe('parseJsonSource (issue 13, item 11)', () => {
  it.each([
    ['12345678901234567890', ['12345678901234567890']],
    ['1.000', ['1.000']],
    ['{"a": -0.0, "b": [1E+2, 2e-7, 0.1000000000000000055511151231257827]}', ['-0.0', '1E+2', '2e-7', '0.1000000000000000055511151231257827']],
    [' \t\r\n{"n":9007199254740993} ', ['9007199254740993']],
  ])('keeps the digits of %s', (text, expected) => {
    expect(numbers(text)).toEqual(expected);
  });

  it('keeps every entry of an object that repeats a key, in order', () => {
    expect(parseJsonSource('{"a":1,"a":2}')).toEqual({ ok: true, value: { kind: 'object', entries: [['a', { kind: 'number', text: '1' }], ['a', { kind: 'number', text: '2' }]] } });
  });

  it('decodes string escapes, surrogate pairs included, and leaves markup as text', () => {
    const parsed = parseJsonSource('"\\u003cscript\\u003e \\ud83d\\ude00 \\"\\\\\\/\\b\\f\\n\\r\\t"');
    expect(parsed).toEqual({ ok: true, value: { kind: 'string', value: '<script> \u{1F600} "\\/\b\f\n\r\t' } });
  });

  it.each(['', '01', '1.', '.5', '+1', '-', '1e', 'NaN', 'Infinity', '[1,]', '{"a":1,}', '{a:1}', "'x'", '"\u0001"', '"\\x41"', '"\\u12"', '[1] 2', 'tru', '{"a" 1}', '"abc'])(
    'refuses %j, as JSON.parse does',
    (text) => {
      expect(() => JSON.parse(text)).toThrow();
      const parsed = parseJsonSource(text);
      expect(parsed.ok).toBe(false);
    },
  );

  it('refuses nesting deeper than its cap instead of overflowing the stack', () => {
    const parsed = parseJsonSource('['.repeat(100_000) + ']'.repeat(100_000));
    expect(parsed).toMatchObject({ ok: false, error: expect.stringContaining('nested deeper') });
  });

  it('agrees with JSON.parse on any JSON value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 1);
        const parsed = parseJsonSource(text);
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(toValue(parsed.value)).toEqual(JSON.parse(text));
      }),
      { seed: 13, numRuns: 300 },
    );
  });

  it('accepts exactly what JSON.parse accepts, on random text (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\s{}[\]",:0-9eE.+\-a-z\\]{0,12}$/), (text) => {
        let native = true;
        try {
          JSON.parse(text);
        } catch {
          native = false;
        }
        expect(parseJsonSource(text).ok).toBe(native);
      }),
      { seed: 13, numRuns: 2000 },
    );
  });

  it('turns API values into the same tree shape', () => {
    expect(jsonNodeOf({ a: [1, 'x', true, null] })).toEqual({
      kind: 'object',
      entries: [['a', { kind: 'array', items: [{ kind: 'number', text: '1' }, { kind: 'string', value: 'x' }, { kind: 'bool', value: true }, { kind: 'null' }] }]],
    });
  });
});
