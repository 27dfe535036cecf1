/**
 * `hookrelay events wait` before src/cli.ts wires it: the `events` command with `wait` registered
 * on it, run on process.argv as the CLI runs it (usage errors exit 2).
 */
import { Command, CommanderError } from 'commander';
import { registerEventsWaitCommand } from '../../src/commands/events-wait.js';
import { registerEventsCommand } from '../../src/commands/events.js';

const program = new Command('hookrelay').exitOverride();
registerEventsWaitCommand(registerEventsCommand(program));
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
  else {
    process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
