/**
 * Fault rules given at startup: `--fault` texts (or HOOKRELAY_FAULT, one rule per line, or the
 * config file's `fault` list) and a `--fault-file`. Every bad rule is reported, with where it
 * came from, the column and the reason, so startup can list all problems at once.
 */
import { readFileSync } from 'node:fs';
import { MAX_RULES, faultRulesFromJson, parseFaultRule, type FaultRule } from '../core/faults/index.js';

export interface RuleSourceResult {
  rules: FaultRule[];
  problems: string[];
}

/** Parses one-line rules; `where` names their source (`--fault`, `HOOKRELAY_FAULT`, …). */
export function rulesFromLines(lines: readonly string[], where: string): RuleSourceResult {
  const rules: FaultRule[] = [];
  const problems: string[] = [];
  lines.forEach((line, i) => {
    const parsed = parseFaultRule(line);
    if (parsed.ok) rules.push(parsed.rule);
    else problems.push(`${where}${lines.length > 1 ? ` #${i + 1}` : ''} ${JSON.stringify(clip(line))}: ${parsed.message}`);
  });
  return { rules, problems };
}

/**
 * Reads a rule file: JSON `{"rules": [...]}` (each entry a JSON rule or a one-line text), or a
 * text file with one one-line rule per line (blank lines and lines starting with `#` skipped).
 */
export function rulesFromFile(path: string, where = `--fault-file ${path}`): RuleSourceResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { rules: [], problems: [`${where}: ${code === 'ENOENT' ? 'not found' : `cannot be read (${code ?? (err as Error).message})`}`] };
  }
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { rules: [], problems: [`${where}: not valid JSON (${(err as Error).message})`] };
    }
    const read = faultRulesFromJson(value);
    // Every bad rule, each at its rules[i] path, as the text form gives every bad line.
    return read.ok ? { rules: read.rules, problems: [] } : { rules: [], problems: read.problems.map((problem) => `${where}: ${problem.message}`) };
  }
  const rules: FaultRule[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const parsed = parseFaultRule(line);
    if (parsed.ok) rules.push(parsed.rule);
    else problems.push(`${where} line ${i + 1}: ${parsed.message}`);
  });
  return { rules, problems };
}

/** The rules of all sources in order; refuses duplicate ids and more than MAX_RULES rules. */
export function combineRules(lists: readonly FaultRule[][]): RuleSourceResult {
  const rules = lists.flat();
  const problems: string[] = [];
  if (rules.length > MAX_RULES) problems.push(`fault rules: at most ${MAX_RULES} rules, got ${rules.length}`);
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    if (rule.id === undefined) return;
    const first = seen.get(rule.id);
    if (first !== undefined) problems.push(`fault rules: rule ${i + 1} has the id ${rule.id} of rule ${first + 1} (ids must be unique)`);
    else seen.set(rule.id, i);
  });
  return { rules, problems };
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
