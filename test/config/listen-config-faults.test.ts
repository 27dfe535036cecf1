/** `listen --fault / --fault-file / --seed`, their HOOKRELAY_* variables and config file keys. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatFaultRule } from '../../src/core/faults/index.js';
import { resolveListenConfig, type ListenConfigResult } from '../../src/config/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

function resolve(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, file?: Record<string, unknown>): ListenConfigResult {
  const dir = folder();
  const configFile = join(dir, 'hookrelay.config.json');
  if (file) writeFileSync(configFile, JSON.stringify(file));
  return resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db'), ...flags }, env, configFile });
}

function lines(result: ListenConfigResult): string[] {
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return (result.config.faultRules ?? []).map(formatFaultRule);
}

function problems(result: ListenConfigResult): string[] {
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('--fault', () => {
  it('takes repeated rules in order', () => {
    expect(lines(resolve({ fault: ['503 retry-after=120 attempt=1', 'hang attempt=2'] }))).toEqual(['503 retry-after=120 attempt=1', 'hang attempt=2']);
  });

  it('warns about a rule that an earlier one hides, naming both', () => {
    const result = resolve({ fault: ['503 trigger=vendor.*', '500 trigger=vendor.rating_dropped', '429 trigger=control.*'] });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.warnings.filter((w) => w.includes('never fires'))).toEqual([
      'fault rule 2 (500 trigger=vendor.rating_dropped) never fires: rule 1 (503 trigger=vendor.*) answers every arrival it matches first',
    ]);
  });

  it('refuses a bad rule with the position and the reason', () => {
    expect(problems(resolve({ fault: ['5O3'] }))).toEqual(['--fault "5O3": status must be 3 digits at column 1']);
  });

  it('lists every bad rule together with the other problems', () => {
    const found = problems(resolve({ fault: ['503', '5O3', '503 hang'], port: 'x' }));
    expect(found).toHaveLength(3);
    expect(found).toContain('--fault #2 "5O3": status must be 3 digits at column 1');
    expect(found).toContain('--fault #3 "503 hang": conflicting answers: 503 and hang (a rule has one answer) at column 5');
    expect(found.some((p) => p.startsWith('--port'))).toBe(true);
  });

  it('refuses two rules with the same id', () => {
    expect(problems(resolve({ fault: ['503 id=a', '500 id=a'] }))).toEqual(['fault rules: rule 2 has the id a of rule 1 (ids must be unique)']);
  });

  it('has no rules by default', () => {
    expect(lines(resolve({}))).toEqual([]);
  });
});

describe('HOOKRELAY_FAULT and the config file', () => {
  it('reads one rule per line from the environment, commas and all', () => {
    const env = { HOOKRELAY_FAULT: "429 retry-after='Wed, 21 Oct 2026 07:28:00 GMT' attempt=1\n\nhang attempt=2\n" };
    expect(lines(resolve({}, env))).toEqual(["429 retry-after='Wed, 21 Oct 2026 07:28:00 GMT' attempt=1", 'hang attempt=2']);
  });

  it('names the variable in a refusal', () => {
    expect(problems(resolve({}, { HOOKRELAY_FAULT: '503\n5O3' }))).toEqual(['HOOKRELAY_FAULT #2 "5O3": status must be 3 digits at column 1']);
  });

  it('lets a flag win over the variable, and the variable over the file', () => {
    const file = { fault: ['500'] };
    expect(lines(resolve({ fault: ['503'] }, { HOOKRELAY_FAULT: '410' }, file))).toEqual(['503']);
    expect(lines(resolve({}, { HOOKRELAY_FAULT: '410' }, file))).toEqual(['410']);
    expect(lines(resolve({}, {}, file))).toEqual(['500']);
  });

  it('names the config file key in a refusal', () => {
    const [problem] = problems(resolve({}, {}, { fault: ['5O3'] }));
    expect(problem).toMatch(/hookrelay\.config\.json "fault" "5O3": status must be 3 digits at column 1$/);
  });
});

describe('--fault-file', () => {
  it('reads JSON {rules: [...]} with JSON rules and one-line texts, after the --fault rules', () => {
    const file = join(folder(), 'rules.json');
    writeFileSync(file, JSON.stringify({ rules: ['503 attempt=1', { match: { attempt: 2 }, answer: { kind: 'hang' } }] }));
    expect(lines(resolve({ faultFile: file, fault: ['410 times=1'] }))).toEqual(['410 times=1', '503 attempt=1', 'hang attempt=2']);
  });

  it('reads a text file of one rule per line, skipping blanks and # comments', () => {
    const file = join(folder(), 'rules.txt');
    writeFileSync(file, '# the three-step story\n503 retry-after=120 attempt=1\n\nhang attempt=2\n');
    expect(lines(resolve({ faultFile: file }))).toEqual(['503 retry-after=120 attempt=1', 'hang attempt=2']);
  });

  it.each([
    ['rules.json', JSON.stringify({ rules: [{ answer: { kind: 'status', status: 99 } }] }), 'rules[0].answer.status must be an integer 100-599'],
    ['rules.json', JSON.stringify({ rules: ['5O3'] }), 'rules[0]: status must be 3 digits at column 1'],
    ['rules.json', '{"rules": [', 'not valid JSON'],
    ['rules.txt', '503\n5O3\n', 'line 2: status must be 3 digits at column 1'],
  ])('refuses a bad %s, naming the file and the place', (name, text, expected) => {
    const file = join(folder(), name);
    writeFileSync(file, text);
    const [problem] = problems(resolve({ faultFile: file }));
    expect(problem).toContain(`--fault-file ${file}`);
    expect(problem).toContain(expected);
  });

  it('refuses a file that is not there', () => {
    const file = join(folder(), 'missing.json');
    expect(problems(resolve({ faultFile: file }))).toEqual([`--fault-file ${file}: not found`]);
  });

  it('comes from HOOKRELAY_FAULT_FILE too', () => {
    const file = join(folder(), 'rules.txt');
    writeFileSync(file, 'reset p=0.1\n');
    expect(lines(resolve({}, { HOOKRELAY_FAULT_FILE: file }))).toEqual(['reset p=0.1']);
  });
});

describe('--seed', () => {
  it('is kept when given, from a flag or HOOKRELAY_SEED', () => {
    const a = resolve({ seed: '42' });
    const b = resolve({}, { HOOKRELAY_SEED: '7' });
    expect(a.ok && a.config.seed).toBe(42);
    expect(b.ok && b.config.seed).toBe(7);
  });

  it('is absent when not given (buildApp draws one)', () => {
    const r = resolve({});
    expect(r.ok && r.config.seed).toBeUndefined();
  });

  it('must be a whole number from 0 to 2^32-1', () => {
    expect(problems(resolve({ seed: '-1' }))[0]).toMatch(/^--seed: must be a whole number from 0 to 4294967295/);
  });
});
