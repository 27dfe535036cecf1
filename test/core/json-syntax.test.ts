/** json-syntax.ts: why a text is not JSON, quoting none of it (a config file may hold a secret). */
import { describe, expect, it } from 'vitest';
import { jsonSyntaxProblem } from '../../src/core/json-syntax.js';

const problemOf = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (err) {
    return jsonSyntaxProblem(err, text);
  }
  throw new Error('parsed');
};

describe('jsonSyntaxProblem', () => {
  it.each([
    '{"secret": whsec_TOPSECRET_0123456789}',
    '{"secret": "whsec_TOPSECRET_0123456789" "x": 1}',
    '{"secret": "whsec_TOPSECRET_0123456789\n"}',
    '{"secret": "whsec_TOPSECRET_0123456789"',
    '{"a": 1}\n{"secret": "whsec_TOPSECRET_0123456789"}',
  ])('never quotes the text: %j', (text) => {
    const problem = problemOf(text);
    expect(problem.length).toBeGreaterThan(5);
    expect(problem).not.toContain('TOPSECRET');
    expect(problem).not.toContain('whsec');
  });

  it('says where, when the parser gives a position', () => {
    expect(problemOf('{"a": 1,\n  "b" 2}')).toMatch(/ at line 2, column 7$/);
  });
});
