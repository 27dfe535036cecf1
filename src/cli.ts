#!/usr/bin/env node
/** The command line: turns arguments into calls. Each command lives in src/commands/. */
import { VERSION } from './runtime/version.js';
import { Command, CommanderError } from 'commander';
import { registerCheckCommand } from './commands/check.js';
import { registerBridgeCommand, registerConnectCommand } from './commands/connect.js';
import { registerDbCommand } from './commands/db.js';
import { registerEmulateCommand } from './commands/emulate.js';
import { registerEventsCommand } from './commands/events.js';
import { registerEventsWaitCommand } from './commands/events-wait.js';
import { registerListenCommand } from './commands/listen.js';
import { registerScheduleCommand } from './commands/schedule.js';
import { registerSendCommand } from './commands/send.js';
import { registerTriggersCommand } from './commands/triggers.js';
import { registerVerifyCommand } from './commands/verify.js';
import { registerWebhooksCommand } from './commands/webhooks.js';
import { registerSecretsCommand } from './commands/secrets.js';
import { registerReconcileCommand } from './commands/reconcile.js';

export function buildProgram(): Command {
  const program = new Command('hookrelay')
    .description('Receive, verify, store, relay and fake-fail the Compliance API\'s signed webhooks — and send them.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride(); // inherited by every command registered below
  registerListenCommand(program);
  registerVerifyCommand(program);
  registerEventsWaitCommand(registerEventsCommand(program));
  registerSendCommand(program);
  registerScheduleCommand(program);
  registerTriggersCommand(program);
  registerCheckCommand(program);
  registerDbCommand(program);
  registerConnectCommand(program);
  registerBridgeCommand(program);
  registerEmulateCommand(program);
  registerWebhooksCommand(program);
  registerSecretsCommand(program);
  registerReconcileCommand(program);
  return program;
}

// `hookrelay triggers --live | head` closes the pipe early: that ends the output, it is not a crash.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

try {
  // Usage errors (unknown flag, missing value) exit 2, like every other refused input; help and
  // --version exit 0.
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
  else {
    process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
