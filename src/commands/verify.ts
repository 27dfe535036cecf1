/** `hookrelay verify`: check one captured request offline and say why it fails. */
import { resolveDbPath } from '../config/db-path.js';
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { checkEnvelope } from '../core/envelope.js';
import { UPPERCASE_HEX_NOTE, verify, type VerifyResult } from '../core/signature/verify.js';
import { dataDirOf, readDevSecret } from '../config/data-dir.js';
import { printable } from '../reporter/printable.js';
import { headerValues, parseCapturedRequest, type CapturedRequest } from './captured-request.js';
import { collect, reportProblems } from './shared-options.js';

interface VerifyFlags {
  signature?: string;
  body?: string;
  bodyFile?: string;
  secret?: string[];
  tolerance?: string;
  at?: string;
  db?: string;
  config?: string;
  json?: boolean;
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('check one captured request (headers + raw body) offline and say why it fails')
    .argument('[capture]', 'file holding the request: optional request line, "Name: value" header lines, a blank line, the raw body')
    .option('--signature <value>', 'the x-service-signature value (instead of a capture file)')
    .option('--body-file <file>', 'the raw body bytes (with --signature)')
    .option('--body <text>', 'the raw body as text (with --signature)')
    .option('--secret <secret>', 'secret to try; repeat for several (default: the development secret of --db)', collect)
    .option('--tolerance <seconds>', 'allowed distance of t from now, past and future', '300')
    .option('--at <unix-seconds>', 'judge as if the time were this (default: now)')
    .option('--db <file>', 'database whose data folder holds the development secret')
    .option('--config <file>', 'config file to read db from')
    .option('--json', 'print the verdict as JSON')
    .addHelpText('after', `
Examples:
  npx hookrelay verify request.txt --secret "$WEBHOOK_SECRET"
  npx hookrelay verify --signature 't=1763719200,v1=5f…' --body-file body.json --at 1763719200

Exit code: 0 valid, 1 invalid, 2 the input could not be read.`)
    .action((capture: string | undefined, flags: VerifyFlags) => {
      const problems: string[] = [];
      const request = readRequest(capture, flags, problems);
      const secrets = flags.secret ?? [];
      if (secrets.length === 0) {
        const db = resolveDbPath({ db: flags.db, config: flags.config });
        const dev = db.ok ? readDevSecret(dataDirOf(db.dbPath)) : undefined;
        if (dev) secrets.push(dev);
        else problems.push('no secret: pass --secret (repeatable), or run `hookrelay listen` once so it makes a development secret');
      }
      const tolerance = Number(flags.tolerance);
      if (!Number.isInteger(tolerance) || tolerance < 1) problems.push(`--tolerance: must be a whole number of seconds ≥ 1, got ${JSON.stringify(flags.tolerance)}`);
      const at = flags.at === undefined ? Date.now() / 1000 : Number(flags.at);
      if (!/^\d+$/.test(flags.at ?? '0')) problems.push(`--at: must be unix seconds, got ${JSON.stringify(flags.at)}`);
      if (problems.length > 0 || !request) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      const signatures = headerValues(request, 'x-service-signature');
      const verdict = verify(request.body, signatures.length === 1 ? signatures[0] : signatures, {
        secrets,
        toleranceSeconds: tolerance,
        nowSeconds: at,
        explain: true,
      });
      const envelope = checkEnvelope(request.body, {
        deliveryId: headerValues(request, 'x-service-delivery')[0],
        event: headerValues(request, 'x-service-event')[0],
      });
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ signature: verdict, envelope: envelope.ok ? { ok: true, id: envelope.envelope.id, type: envelope.envelope.type } : envelope }, null, 2)}\n`);
      } else {
        process.stdout.write(describe(verdict, tolerance, secrets.length));
        process.stdout.write(envelope.ok
          ? `envelope: ok (id ${printable(envelope.envelope.id)}, type ${printable(envelope.envelope.type)})\n`
          : `envelope: ${envelope.problem} — ${printable(envelope.message, 300)}\n`);
      }
      process.exitCode = verdict.ok ? 0 : 1;
    });
}

function readRequest(capture: string | undefined, flags: VerifyFlags, problems: string[]): CapturedRequest | null {
  if (capture !== undefined) {
    if (flags.signature !== undefined) problems.push('give either a capture file or --signature, not both');
    let bytes: Buffer;
    try {
      bytes = readFileSync(capture);
    } catch (err) {
      problems.push(`cannot read ${capture}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return null;
    }
    const parsed = parseCapturedRequest(bytes);
    if (!parsed.ok) problems.push(`${capture}: ${parsed.message}`);
    return parsed.ok ? parsed.request : null;
  }
  if (flags.signature === undefined) {
    problems.push('nothing to verify: give a capture file, or --signature with --body-file or --body');
    return null;
  }
  if ((flags.body === undefined) === (flags.bodyFile === undefined)) {
    problems.push('with --signature, give exactly one of --body-file or --body');
    return null;
  }
  let body: Buffer;
  try {
    body = flags.bodyFile !== undefined ? readFileSync(flags.bodyFile) : Buffer.from(flags.body!, 'utf8');
  } catch (err) {
    problems.push(`cannot read ${flags.bodyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return null;
  }
  return { headers: [['x-service-signature', flags.signature]], body };
}

/** What a note means for the sender under test; the note itself is what attempt records carry. */
const NOTE_DETAILS: Record<string, string> = {
  [UPPERCASE_HEX_NOTE]: ' (the same MAC, so hookrelay accepts it; the service sends lowercase, and receivers that compare hex strings, such as stripe-node, reject it)',
};

function describe(verdict: VerifyResult, tolerance: number, secretCount: number): string {
  if (verdict.ok) {
    const when = `${Math.abs(Math.round(verdict.skewSeconds))} s ${verdict.skewSeconds > 0 ? 'in the future' : 'ago'}`;
    const which = secretCount > 1 ? ` #${verdict.secretIndex + 1}` : '';
    const lines = [`valid: the signature matches secret${which}; t=${verdict.timestamp} (${new Date(verdict.timestamp * 1000).toISOString()}, ${when}, within ${tolerance} s)`];
    for (const note of verdict.notes ?? []) lines.push(`  note: ${note}${NOTE_DETAILS[note] ?? ''}`);
    return `${lines.join('\n')}\n`;
  }
  const lines = [`invalid (${verdict.reason}): ${printable(verdict.message, 400)}`];
  for (const hint of verdict.hints) lines.push(`  hint: ${printable(hint, 400)}`);
  return `${lines.join('\n')}\n`;
}
