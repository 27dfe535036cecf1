/** A commander program with one registered command and captured stdout/stderr, for command tests. */
import { Command } from 'commander';

export interface CliRun {
  out: string;
  err: string;
  exitCode: number | undefined;
}

/** Runs `args` through a fresh program built by `register`; restores process.exitCode afterwards. */
export async function runCli(register: (program: Command) => void, args: string[]): Promise<CliRun> {
  let out = '';
  let err = '';
  const program = new Command()
    .exitOverride()
    .configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (err += s) });
  register(program);
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(args, { from: 'user' });
    const exitCode = process.exitCode === undefined ? undefined : Number(process.exitCode);
    return { out, err, exitCode };
  } finally {
    process.exitCode = before;
  }
}
