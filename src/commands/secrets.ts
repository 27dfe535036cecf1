/** `hookrelay secrets list | remove`: the data folder's secret set (src/service/secret-set.ts), shown only as hints. */
import type { Command } from 'commander';
import { secretHint } from '../core/secret-hint.js';
import { printable } from '../reporter/printable.js';
import { EXIT_USAGE, outputOf } from '../sender/cli-output.js';
import { readSecretSet, removeFromSecretSet, secretSetPath, SecretSetError, type SecretEntry } from '../service/secret-set.js';
import { addDataOptions, dataDirOrReport } from './service-options.js';

export function registerSecretsCommand(program: Command): void {
  const secrets = program.command('secrets').description('the signing secrets kept by `webhooks create --signing` (listen verifies with them when no --secret is given)');

  addDataOptions(secrets.command('list').description('hints of the kept secrets and where each came from').option('--json', 'as JSON (hints only)')).action(function (this: Command, flags: { db?: string; config?: string; json?: boolean }) {
    const output = outputOf(this);
    const dataDir = dataDirOrReport(output, flags);
    if (dataDir === null) return;
    guarded(output, () => {
      const entries = readSecretSet(dataDir);
      const rows = entries.map((e, i) => secretRow(e, i + 1));
      if (flags.json) return output.out(JSON.stringify(rows, null, 2));
      if (rows.length === 0) return output.out(`no secrets kept in ${secretSetPath(dataDir)}`);
      for (const r of rows) output.out(`${String(r.number).padStart(3)}  ${r.hint.padEnd(12)}  ${printable(r.origin, 160)}  added ${printable(r.addedAt, 30)}`);
      output.err(`${rows.length} in ${secretSetPath(dataDir)}; listen tries them newest first`);
    });
  });

  addDataOptions(
    secrets
      .command('remove')
      .argument('<selector>', 'the number shown by `secrets list`, or a webhook id (all of its secrets)')
      .description('forget a kept secret (listen stops accepting deliveries signed with it)')
      .option('--json', 'print the removed secrets as `secrets list --json` listed them (hints only)'),
  ).action(function (this: Command, selector: string, flags: { db?: string; config?: string; json?: boolean }) {
    const output = outputOf(this);
    const dataDir = dataDirOrReport(output, flags);
    if (dataDir === null) return;
    guarded(output, () => {
      // Their numbers as `secrets list` showed them, read before they go.
      const before = flags.json ? readSecretSet(dataDir) : [];
      const removed = removeFromSecretSet(dataDir, selector);
      if (removed.length === 0) {
        output.err(`error: no kept secret has number or webhook id ${JSON.stringify(printable(selector, 80))} (see \`hookrelay secrets list\`); nothing removed`);
        process.exitCode = EXIT_USAGE;
        return;
      }
      if (flags.json) return output.out(JSON.stringify(removed.map((e) => secretRow(e, before.findIndex((k) => k.secret === e.secret && k.addedAt === e.addedAt) + 1))));
      for (const e of removed) output.out(`removed ${secretHint(e.secret)}  ${printable(e.origin, 160)}`);
    });
  });
}

/** A kept secret as `secrets list --json` and `secrets remove --json` print it: its hint, never the secret. */
function secretRow(e: SecretEntry, number: number) {
  return { number, hint: secretHint(e.secret), origin: e.origin, webhookId: e.webhookId, addedAt: e.addedAt };
}

function guarded(output: ReturnType<typeof outputOf>, work: () => void): void {
  try {
    work();
  } catch (err) {
    if (!(err instanceof SecretSetError)) throw err;
    output.err(`error: ${err.message}`);
    process.exitCode = 1;
  }
}
