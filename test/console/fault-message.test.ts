/** The console's fault-rule refusals say which name a mistyped one meant (issue 36, item 24). */
import { describe, expect, it } from 'vitest';
import { withSuggestion } from '../../src/console/fault-message.js';
import { faultRuleFromJson, parseFaultRule } from '../../src/core/faults/index.js';

const lineMessage = (line: string) => {
  const parsed = parseFaultRule(line);
  if (parsed.ok) throw new Error(`${line} parsed`);
  return parsed.message;
};
const jsonMessage = (rule: unknown) => {
  const read = faultRuleFromJson(rule);
  if (read.ok) throw new Error('parsed');
  return read.message;
};

describe('withSuggestion', () => {
  it.each([
    ['503 atempt=1', "unknown key 'atempt' (did you mean 'attempt'?): known keys are "],
    ['503 retry_after=5', "unknown key 'retry_after' (did you mean 'retry-after'?): known keys are "],
    ['503 tmes=2', "unknown key 'tmes' (did you mean 'times'?): known keys are "],
  ])('%s → %s…, the column kept', (line, start) => {
    const message = withSuggestion(lineMessage(line));
    expect(message.startsWith(start)).toBe(true);
    expect(message).toMatch(/ at column 5$/);
  });

  it('names a JSON rule\'s mistyped field', () => {
    expect(withSuggestion(jsonMessage({ answer: { kind: 'status', status: 503 }, limt: { times: 1 } }))).toBe("limt is not allowed, did you mean 'limit'? (allowed: id, match, answer, limit, beforeVerify)");
  });

  it.each([
    // Nothing close enough: no guess.
    lineMessage('503 zzzzzz=1'),
    // Not an unknown name at all.
    lineMessage('503 attempt=x'),
    // Already suggested (by a parser that does it itself): said once.
    "unknown key 'atempt' (did you mean 'attempt'?): known keys are attempt at column 5",
  ])('leaves %j as it is', (message) => {
    expect(withSuggestion(message)).toBe(message);
  });
});
