/** rule-sources.ts: a rule file lists every bad rule, JSON or text, as repeated --fault flags do (docs/faults.md). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { rulesFromFile } from '../../src/faults/rule-sources.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** A rule file in a fresh temp folder. */
function ruleFile(name: string, text: string): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

// The file of tour finding F6: three bad rules, of which only the first used to be reported.
const THREE_BAD = '{"rules":[{"answer":{"kind":"reset","retryAfter":3}},{"match":{"attempt":"x"},"answer":{"kind":"hang"}},"5O3"]}';

describe('rulesFromFile', () => {
  it('gives one problem for each bad rule of a JSON file, each naming the file and its rules[i] path, as the text form gives one for each bad line', () => {
    const file = ruleFile('r3.json', THREE_BAD);
    const read = rulesFromFile(file);
    expect(read.rules).toEqual([]);
    expect(read.problems).toHaveLength(3);
    expect(read.problems[0]).toBe(`--fault-file ${file}: rules[0].answer.retryAfter is not allowed with kind reset (allowed: kind)`);
    expect(read.problems[1]).toMatch(new RegExp(`^--fault-file ${file}: rules\\[1\\]\\.match\\.attempt `));
    expect(read.problems[2]).toBe(`--fault-file ${file}: rules[2]: status must be 3 digits at column 1`);
    // The same three rules as text.
    const text = ruleFile('r3.txt', 'reset retry-after=3\nhang attempt=x\n5O3\n');
    expect(rulesFromFile(text).problems.map((p) => /line \d+/.exec(p)?.[0])).toEqual(['line 1', 'line 2', 'line 3']);
  });

  it('listen refuses to start with the three listed among the settings problems', () => {
    const file = ruleFile('r3.json', THREE_BAD);
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const result = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db'), faultFile: file }, env: {}, configFile: join(dir, 'hookrelay.config.json') });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.filter((p) => p.startsWith(`--fault-file ${file}: `));
    expect(problems.map((p) => /rules\[\d\]/.exec(p)?.[0])).toEqual(['rules[0]', 'rules[1]', 'rules[2]']);
  });
});
