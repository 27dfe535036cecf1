#!/usr/bin/env node
/** The command line: turns arguments into calls. Each command lives in src/commands/. */
import { VERSION } from './runtime/version.js';
import { mistypedEnvWarnings } from './config/known-env.js';
import { watchFailures } from './reporter/json-failure.js';
import { Command, CommanderError, Help, type Option } from 'commander';
type Register = (program: Command) => Promise<unknown>;

/**
 * Every command, in the order `--help` lists them, and how to register it. A command's module is
 * imported only when it is registered: a run registers only the command it names (every one for
 * the root help, `help`, or a name that needs a suggestion), so `listen` does not load the sender,
 * the service client or the emulator (cold start is measured in npm run bench).
 */
const COMMANDS: Array<[name: string, register: Register]> = [
  ['listen', async (p) => (await import('./commands/listen.js')).registerListenCommand(p)],
  ['verify', async (p) => (await import('./commands/verify.js')).registerVerifyCommand(p)],
  ['events', async (p) => (await import('./commands/events-wait.js')).registerEventsWaitCommand((await import('./commands/events.js')).registerEventsCommand(p))],
  ['send', async (p) => (await import('./commands/send.js')).registerSendCommand(p)],
  ['schedule', async (p) => (await import('./commands/schedule.js')).registerScheduleCommand(p)],
  ['triggers', async (p) => (await import('./commands/triggers.js')).registerTriggersCommand(p)],
  ['schema', async (p) => (await import('./commands/schema.js')).registerSchemaCommand(p)],
  ['check', async (p) => (await import('./commands/check.js')).registerCheckCommand(p)],
  ['db', async (p) => (await import('./commands/db.js')).registerDbCommand(p)],
  ['status', async (p) => (await import('./commands/status.js')).registerStatusCommand(p)],
  ['connect', async (p) => (await import('./commands/connect.js')).registerConnectCommand(p)],
  ['bridge', async (p) => (await import('./commands/connect.js')).registerBridgeCommand(p)],
  ['emulate', async (p) => (await import('./commands/emulate.js')).registerEmulateCommand(p)],
  ['webhooks', async (p) => (await import('./commands/webhooks.js')).registerWebhooksCommand(p)],
  ['secrets', async (p) => (await import('./commands/secrets.js')).registerSecretsCommand(p)],
  ['reconcile', async (p) => (await import('./commands/reconcile.js')).registerReconcileCommand(p)],
  ['mcp', async (p) => (await import('./commands/mcp.js')).registerMcpCommand(p)],
  ['completion', async (p) => (await import('./commands/completion.js')).registerCompletionCommand(p, () => buildProgram(['node', 'hookrelay']))],
];

/** Commands whose first argument is a subcommand. */
const GROUPS = new Set(['events', 'db', 'bridge', 'webhooks', 'secrets']);

export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command('hookrelay')
    .description('Receive, verify, store, relay and fake-fail the Compliance and Vendor-Risk API\'s signed webhooks — and send them.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    // A default given as text shows as written, `(default: 1)`, like the defaults spelled out in
    // descriptions, not JSON-quoted as `(default: "1")`.
    .configureHelp({ optionDescription: describeOption })
    .exitOverride(); // inherited by every command registered below
  const named = COMMANDS.find(([name]) => name === argv[2]);
  for (const [, register] of named ? [named] : COMMANDS) await register(program);
  return program;
}

function describeOption(this: Help, option: Option): string {
  const { defaultValue } = option;
  if (typeof defaultValue === 'string' && defaultValue !== '' && !/\s/.test(defaultValue)) option.defaultValueDescription ??= defaultValue;
  return Help.prototype.optionDescription.call(this, option);
}

// `hookrelay triggers --live | head` closes the pipe early: that ends the output, it is not a crash.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

for (const warning of mistypedEnvWarnings(process.env)) process.stderr.write(`${warning}\n`);

// With --json, a failure also ends with one JSON object on stderr (reporter/json-failure.ts).
if (process.argv.includes('--json')) watchFailures(commandWords(process.argv));
try {
  // Usage errors (unknown flag, missing value) exit 2, like every other refused input; help and
  // --version exit 0.
  await (await buildProgram(process.argv)).parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
  else {
    process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}

/** `events list`, `db backup`, `status`: the command a run named, for the hint of a usage error. */
function commandWords(argv: readonly string[]): string | undefined {
  const [first, second] = argv.slice(2);
  if (!first || !COMMANDS.some(([name]) => name === first)) return undefined;
  return second && /^[a-z][a-z-]*$/.test(second) && GROUPS.has(first) ? `${first} ${second}` : first;
}
