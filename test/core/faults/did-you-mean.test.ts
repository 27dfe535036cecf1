/** A refused fault rule says which name a mistyped one meant, in the core parser, so the CLI's --fault and the console say it alike (issue 36, item 24). */
import { describe, expect, it } from 'vitest';
import { faultRuleFromJson, parseFaultRule } from '../../../src/core/faults/index.js';

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

describe('did you mean, in the fault rule parser', () => {
  it.each([
    ['503 atempt=1', "unknown key 'atempt' (did you mean 'attempt'?): known keys are "],
    ['503 retry_after=5', "unknown key 'retry_after' (did you mean 'retry-after'?): known keys are "],
    ['503 tmes=2', "unknown key 'tmes' (did you mean 'times'?): known keys are "],
  ])('%s → %s…, the column kept', (line, start) => {
    const message = lineMessage(line);
    expect(message.startsWith(start)).toBe(true);
    expect(message).toMatch(/ at column 5$/);
  });

  it("names a JSON rule's mistyped field", () => {
    expect(jsonMessage({ answer: { kind: 'status', status: 503 }, limt: { times: 1 } })).toBe("limt is not allowed, did you mean 'limit'? (allowed: id, match, answer, limit, beforeVerify)");
  });

  it('guesses nothing when no known name is close', () => {
    expect(lineMessage('503 zzzzzz=1')).not.toMatch(/did you mean/);
  });
});
