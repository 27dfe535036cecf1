/** Flag plumbing shared by commands: repeatable flags, typed options, problem reports. */
import type { Command } from 'commander';

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
