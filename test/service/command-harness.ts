/** Runs the service commands in this process with captured output (the program is built as cli.ts builds it). */
import { Command, CommanderError } from 'commander';
import { registerReconcileCommand } from '../../src/commands/reconcile.js';
import { registerSecretsCommand } from '../../src/commands/secrets.js';
import { registerSendCommand } from '../../src/commands/send.js';
import { registerTriggersCommand } from '../../src/commands/triggers.js';
import { registerWebhooksCommand } from '../../src/commands/webhooks.js';

export interface Ran {
  code: number;
  out: string;
  err: string;
}

/** `hookrelay <args>` with HOOKRELAY_* taken from `env` only (the rest of process.env is left alone). */
export async function runService(args: string[], env: Record<string, string | undefined> = {}): Promise<Ran> {
  let out = '';
  let err = '';
  const program = new Command('hookrelay').exitOverride().configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (err += s) });
  registerWebhooksCommand(program);
  registerSecretsCommand(program);
  registerReconcileCommand(program);
  registerTriggersCommand(program);
  registerSendCommand(program);
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith('HOOKRELAY_')) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
  process.exitCode = undefined;
  let code: number;
  try {
    await program.parseAsync(args, { from: 'user' });
    code = typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode === 0 ? 0 : 2;
  } finally {
    process.exitCode = undefined;
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
  return { code, out, err };
}
