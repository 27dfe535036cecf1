/** Flag plumbing shared by commands: repeatable flags, the --db and --config lookup, exit codes. */
import type { Command } from 'commander';
import { LISTEN_OPTIONS } from '../config/option-specs.js';
import { resolveOptions } from '../config/resolve-config.js';

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

/** The database path by flag > HOOKRELAY_DB > config file > default, or the problems found. */
export function resolveDbPath(flags: { db?: string; config?: string }): { ok: true; dbPath: string } | { ok: false; problems: string[] } {
  const dbSpec = LISTEN_OPTIONS.filter((s) => s.key === 'db');
  const resolved = resolveOptions(
    dbSpec,
    { flags: { db: flags.db }, env: process.env, configFile: flags.config, configFileRequired: flags.config !== undefined },
    LISTEN_OPTIONS.map((s) => s.key),
  );
  if (resolved.problems.length > 0) return { ok: false, problems: resolved.problems };
  return { ok: true, dbPath: resolved.values.db as string };
}

export function reportProblems(problems: readonly string[], stream: NodeJS.WritableStream = process.stderr): void {
  stream.write(`hookrelay: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} with the settings:\n`);
  for (const problem of problems) stream.write(`  - ${problem}\n`);
}
