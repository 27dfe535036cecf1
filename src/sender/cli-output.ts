/** Output helpers for the sender's commands: stdout/stderr through commander's output configuration. */
import type { Command } from 'commander';
import { EXIT } from '../core/exit-codes.js';
import type { FieldProblem } from '../core/retry-policy/validate-policy.js';
import { validationErrorEnvelope } from '../core/retry-policy/validate-policy.js';

/** Exit code for refused input (flags, policy, payload). Failed deliveries exit 1 (core/exit-codes.ts). */
export const EXIT_USAGE = EXIT.usage;
export const EXIT_DELIVERY_FAILED = EXIT.finding;
/** `send` stopped by Ctrl-C (128 + SIGINT, as shells report it), after printing its summary. */
export const EXIT_INTERRUPTED = EXIT.interrupted;

export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

/** Lines to the command's configured stdout / stderr (tests capture them with configureOutput). */
export function outputOf(command: Command): CommandOutput {
  const config = command.configureOutput();
  const writeOut = config.writeOut ?? ((s: string) => process.stdout.write(s));
  const writeErr = config.writeErr ?? ((s: string) => process.stderr.write(s));
  return { out: (line) => writeOut(`${line}\n`), err: (line) => writeErr(`${line}\n`) };
}

/**
 * Reports refused fields in the spec's 422 VALIDATION_ERROR style (section 7) on stderr: the
 * error envelope as JSON with --json, else one line per field. Sets exit code 2.
 */
export function reportProblems(output: CommandOutput, problems: readonly FieldProblem[], json: boolean, nowMs: number): void {
  if (json) {
    output.err(JSON.stringify(validationErrorEnvelope(problems, new Date(nowMs).toISOString()), null, 2));
  } else {
    // Said as what it is: these flags are refused here, as the service would refuse the same policy.
    output.err(`error: the service would refuse ${problems.length === 1 ? 'this setting' : 'these settings'} (422 VALIDATION_ERROR):`);
    for (const p of problems) output.err(`  ${p.field} ${p.message}`);
  }
  process.exitCode = EXIT_USAGE;
}

/** Reports a refused flag or input with a message naming the cause. Sets exit code 2. */
export function reportUsage(output: CommandOutput, message: string): void {
  output.err(`error: ${message}`);
  process.exitCode = EXIT_USAGE;
}
