/**
 * `hookrelay mcp` as a process, for the stdio tests: the command registered on a program as
 * src/cli.ts registers every command (cli.ts is not changed by this piece of work; once its
 * COMMANDS table lists `mcp`, the tests can run the CLI itself through test/helpers/cli-entry.ts).
 */
import { Command, CommanderError } from 'commander';
import { registerMcpCommand } from '../../src/commands/mcp.js';

const program = new Command('hookrelay').exitOverride();
registerMcpCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  process.exitCode = err.exitCode === 0 ? 0 : 2;
}
