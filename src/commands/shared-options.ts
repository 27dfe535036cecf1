/** Flag plumbing shared by commands: repeatable flags, typed options, problem reports. */
import type { Command } from 'commander';
import type { OptionSpec } from '../config/option-specs.js';

export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Only the options the user typed: commander defaults are not used, so precedence stays ours. */
export function typedOptions(command: Command): Record<string, unknown> {
  const opts = command.opts();
  const typed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) {
    if (command.getOptionValueSource(key) === 'cli') typed[key] = value;
  }
  return typed;
}

export function reportProblems(problems: readonly string[], stream: NodeJS.WritableStream = process.stderr): void {
  stream.write(`hookrelay: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} with the settings:\n`);
  for (const problem of problems) stream.write(`  - ${problem}\n`);
}

/** One commander option per settings row, its env variable and default in the help. */
export function addSpecOptions(command: Command, specs: readonly OptionSpec[]): void {
  for (const spec of specs) {
    const env = `[env ${spec.env}]`;
    // A --no-X flag's default is "X on": saying "(default: true)" beside "--no-X" reads backwards.
    const def = spec.default === undefined || spec.flag.startsWith('--no-') || (Array.isArray(spec.default) && spec.default.length === 0) ? '' : ` (default: ${String(spec.default)})`;
    if (spec.kind.type === 'bool') command.option(spec.flag, `${spec.description}${def} ${env}`);
    else if (spec.kind.type === 'strings') command.option(`${spec.flag} <value>`, `${spec.description} ${env}`, collect);
    else command.option(`${spec.flag} <value>`, `${spec.description}${def} ${env}`);
  }
}
