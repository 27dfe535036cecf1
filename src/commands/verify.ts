/**
 * `hookrelay verify`: the receiver's verdict on one captured request, offline, and why it fails.
 * The verdict comes from the receiver's own checks (ingest/pipeline.ts), in its order and
 * with its codes; the hints are the ones the receiver keeps with a rejected attempt (ingest/rejection-hints.ts).
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { dataDirOf } from '../config/data-dir.js';
import { readFolderSecrets } from '../config/folder-secrets.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from '../config/option-specs.js';
import { resolveOptions } from '../config/resolve-config.js';
import { PROCESS_LIST_NOTE, secretFlagWarnings } from '../config/secret-flags.js';
import { formatSeconds, roundSeconds } from '../core/signature/verify.js';
import { SIGNATURE_HEADER_NAME } from '../core/signature/signature-header.js';
import { UPPERCASE_HEX_NOTE } from '../core/signature/verify-verdict.js';
import type { Arrival } from '../ingest/arrival.js';
import { capturedArrival } from '../ingest/captured-arrival.js';
import { explainedJson, explainRedacted, explainRequest, redactedJson, type ExplainedRequest } from '../ingest/explain-request.js';
import { printable } from '../reporter/printable.js';
import { outputOf } from '../sender/cli-output.js';
import { capturedReceivedAt, headerValues, isRedactedSignature, parseCapturedRequest, type CapturedRequest } from './captured-request.js';
import { collect, reportProblems } from './shared-options.js';
import { unreadableBecause } from '../core/file-errors.js';

interface VerifyFlags {
  signature?: string;
  header?: string[];
  body?: string;
  bodyFile?: string;
  secret?: string[];
  tolerance?: string;
  bodyLimit?: string;
  at?: string;
  db?: string;
  config?: string;
  json?: boolean;
}

/** The receiver's settings verify judges with, looked up as `listen` looks them up. */
const RECEIVER_KEYS = ['secret', 'tolerance', 'bodyLimit', 'db'];
const RECEIVER_SPECS = LISTEN_OPTIONS.filter((s) => RECEIVER_KEYS.includes(s.key));

/** `listen`'s default, shown in the help. */
const listenDefault = (key: string): string => String(LISTEN_OPTIONS.find((s) => s.key === key)?.default);

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description("give the receiver's verdict on one captured request (headers + raw body), offline, and say why it fails")
    .argument('[capture]', 'file holding the request: optional request line, "Name: value" header lines, a blank line, the raw body')
    .option('--body-file <file>', 'the raw body bytes (instead of a capture file)')
    .option('--body <text>', 'the raw body as text (instead of a capture file)')
    .option('--signature <value>', 'the x-service-signature value (with --body-file or --body)')
    .option('--header <line>', "a request header, 'Name: value' (with --body-file or --body); repeat for each", collect)
    .option('--secret <secret>', `secret to try; repeat for several (default: as listen: HOOKRELAY_SECRET, the config file, else the secrets in the data folder of --db: those kept by webhooks create --signing, then the development secret); ${PROCESS_LIST_NOTE}`, collect)
    .option('--tolerance <seconds>', `allowed distance of t from now, past and future (default: as listen, ${listenDefault('tolerance')})`)
    .option('--body-limit <bytes>', `largest body the receiver reads (default: as listen, ${listenDefault('bodyLimit')})`)
    .option('--at <unix-seconds>', 'judge as if the time were this (default: now)')
    .option('--db <file>', 'database whose data folder holds the development secret')
    .option('--config <file>', `config file to read secret, tolerance, bodyLimit and db from (default: ./hookrelay.config.json when present)`)
    .option('--json', 'print the verdict as JSON')
    .addHelpText('after', `
The verdict is the receiver's: its checks in its order, and the first that fails gives the status
and code \`listen\` answers with: size (413 PAYLOAD_TOO_LARGE, 431 HEADERS_TOO_LARGE) → signature (400 SIGNATURE_MISSING,
SIGNATURE_MALFORMED, SIGNATURE_NO_V1, SIGNATURE_MISMATCH, TIMESTAMP_TOO_OLD, TIMESTAMP_IN_FUTURE)
→ envelope and headers (400 INVALID_JSON, INVALID_ENVELOPE, DELIVERY_ID_MISMATCH,
EVENT_TYPE_MISMATCH). The envelope is checked against x-service-delivery and x-service-event, so
give them: in the capture file, or with --header. Settings not given as flags are read as listen
reads them (flag > HOOKRELAY_* > hookrelay.config.json > default). Fault rules, --skip-verify,
dedupe and the store are not judged.

Examples:
  npx hookrelay verify request.txt --secret "$WEBHOOK_SECRET"
  npx hookrelay verify --body-file body.json --signature 't=1763719200,v1=5f…' \\
      --header 'x-service-delivery: 6f1c…' --header 'x-service-event: trustcenter.access_requested' --at 1763719200

A capture written by \`hookrelay events export <id> --attempt N --format capture\` records when the
receiver got it (x-hookrelay-received-at): the signature's t is judged against that time unless --at
is given. Its signature is redacted unless exported with --include-signature; verify then runs every
other check and says the signature could not be.

Exit code: 0 the receiver would accept it, 1 it would refuse it, 2 the input could not be read,
3 the signature was redacted and every other check passes (the verdict cannot be told).`)
    .action(function (this: Command, capture: string | undefined, flags: VerifyFlags) {
      const output = outputOf(this);
      const problems: string[] = [];
      const request = readRequest(capture, flags, problems);
      const settings = resolveOptions(
        RECEIVER_SPECS,
        {
          flags: { secret: flags.secret, tolerance: flags.tolerance, bodyLimit: flags.bodyLimit, db: flags.db },
              configFile: flags.config,
          configFileRequired: flags.config !== undefined,
        },
        CONFIG_FILE_KEYS,
      );
      problems.push(...settings.problems);
      for (const warning of secretFlagWarnings(RECEIVER_SPECS, settings.sources)) output.err(`warning: ${warning}`);
      const secrets = [...((settings.values.secret as string[] | undefined) ?? [])];
      // An exported capture whose signature was redacted: nothing to check it with, nor a secret needed.
      const redacted = request !== null && headerValues(request, SIGNATURE_HEADER_NAME).some(isRedactedSignature);
      if (secrets.length === 0 && settings.problems.length === 0 && !redacted) {
        // As listen given no secret: the kept secrets of `webhooks create --signing`, then the development secret.
        const kept = readFolderSecrets(dataDirOf(settings.values.db as string));
        if (kept.ok) secrets.push(...kept.secrets);
        else problems.push(kept.problem);
        if (secrets.length === 0 && problems.length === 0) problems.push('no secret: set HOOKRELAY_SECRET or pass --secret (repeatable), or run `hookrelay listen` once so it makes a development secret');
      }
      if (!/^\d+$/.test(flags.at ?? '0')) problems.push(`--at: must be unix seconds, got ${JSON.stringify(flags.at)}`);
      if (problems.length > 0 || !request) {
        reportProblems(problems, { write: (text: string) => (output.err(text.replace(/\n$/, '')), true) } as unknown as NodeJS.WritableStream);
        process.exitCode = 2;
        return;
      }
      // A capture exported by hookrelay records when the receiver got it: judged then, as the receiver judged it.
      const recordedAt = capture === undefined ? null : capturedReceivedAt(request);
      const nowSeconds = flags.at !== undefined ? Number(flags.at) : recordedAt !== null ? recordedAt / 1000 : Date.now() / 1000;
      const toleranceSeconds = settings.values.tolerance as number;
      const bodyLimitBytes = settings.values.bodyLimit as number;

      const arrival = capturedArrival({ headers: request.headers, body: request.body, receivedAt: nowSeconds * 1000, bodyLimitBytes });
      if (redacted) {
        judgeRedacted(arrival, { toleranceSeconds, bodyLimitBytes, flagMode: capture === undefined, json: flags.json === true }, output);
        return;
      }
      const report = explainRequest(arrival, { secrets, toleranceSeconds, bodyLimitBytes }, capture === undefined ? 'flags' : 'capture');
      output.out(flags.json ? JSON.stringify(withResponseStatus(explainedJson(report)), null, 2) : describe(report, toleranceSeconds, secrets.length, flags.at === undefined ? recordedAt : null));
      process.exitCode = report.verdict.ok ? 0 : 1;
    });
}

function readRequest(capture: string | undefined, flags: VerifyFlags, problems: string[]): CapturedRequest | null {
  const requestFlags = (['signature', 'header', 'body', 'bodyFile'] as const).filter((key) => flags[key] !== undefined);
  if (capture !== undefined) {
    if (requestFlags.length > 0) problems.push('give either a capture file or the request as flags (--body-file or --body, --signature, --header), not both');
    let bytes: Buffer;
    try {
      bytes = readFileSync(capture);
    } catch (err) {
      problems.push(`cannot read ${capture}: ${unreadableBecause(err)}`);
      return null;
    }
    const parsed = parseCapturedRequest(bytes);
    if (!parsed.ok) {
      problems.push(`${capture}: ${parsed.message}`);
      return null;
    }
    problems.push(...parsed.request.headers.flatMap(([name, value]) => headerProblems(name, value, capture)));
    return parsed.request;
  }
  if (flags.body === undefined && flags.bodyFile === undefined) {
    problems.push('nothing to verify: give a capture file, or the body with --body-file or --body (and its headers with --signature and --header)');
    return null;
  }
  if (flags.body !== undefined && flags.bodyFile !== undefined) {
    problems.push('give exactly one of --body-file or --body');
    return null;
  }
  const headers: Array<[string, string]> = [];
  if (flags.signature !== undefined) headers.push([SIGNATURE_HEADER_NAME, flags.signature]);
  for (const line of flags.header ?? []) {
    const colon = line.indexOf(':');
    if (colon <= 0) {
      problems.push(`--header: must be 'Name: value', got ${JSON.stringify(printable(line, 80))}`);
      continue;
    }
    const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    problems.push(...headerProblems(name, value, '--header'));
    headers.push([name, value]);
  }
  let body: Buffer;
  try {
    body = flags.bodyFile !== undefined ? readFileSync(flags.bodyFile) : Buffer.from(flags.body!, 'utf8');
  } catch (err) {
    problems.push(`cannot read ${flags.bodyFile}: ${unreadableBecause(err)}`);
    return null;
  }
  return { headers, body };
}

/** RFC 9110 5.1 token; an HTTP server refuses a request with another name, or a control character in a value, before any check. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function headerProblems(name: string, value: string, where: string): string[] {
  if (!HEADER_NAME.test(name)) return [`${where}: ${JSON.stringify(printable(name, 80))} is not a header name an HTTP server accepts`];
  if (BAD_VALUE.test(value)) return [`${where}: the value of ${name} holds a control character an HTTP server refuses`];
  return [];
}

/** What a note means for the sender under test; the note itself is what attempt records carry. */
const NOTE_DETAILS: Record<string, string> = {
  [UPPERCASE_HEX_NOTE]: ' (the same MAC, so hookrelay accepts it; the service sends lowercase, and receivers that compare hex strings, such as stripe-node, reject it)',
};

/** Exit code of a capture whose signature was redacted and whose other checks all pass: the verdict cannot be told. */
export const EXIT_SIGNATURE_REDACTED = 3;

const REDACTED_NOTE = 'the signature was redacted by `hookrelay events export` (its v1 reads "redacted"), so it cannot be checked: export it again with --include-signature to judge it';

/**
 * A capture whose signature an export redacted: every other check, in the receiver's order, with
 * the signature's taken as passed. A refusal by one of them is the receiver's answer whatever the
 * signature (exit 1); otherwise the verdict cannot be told (exit EXIT_SIGNATURE_REDACTED).
 */
function judgeRedacted(
  arrival: Arrival,
  context: { toleranceSeconds: number; bodyLimitBytes: number; flagMode: boolean; json: boolean },
  output: ReturnType<typeof outputOf>,
): void {
  const judged = explainRedacted(arrival, context, context.flagMode ? 'flags' : 'capture');
  const { verdict, hints } = judged;
  if (context.json) {
    output.out(JSON.stringify(withResponseStatus(redactedJson(judged)), null, 2));
  } else {
    const lines = verdict.ok
      ? ['unverified: the signature was redacted; every other check passes, so the receiver would accept it only if the signature is right']
      : [`invalid: the receiver would answer ${verdict.rejection.status} ${verdict.rejection.code} whatever the signature: ${printable(verdict.rejection.message, 400)}`];
    lines.push(`  signature: ${REDACTED_NOTE}`);
    if (verdict.ok) lines.push(`  envelope: ok (id ${printable(verdict.envelope.envelope.id)}, type ${printable(verdict.envelope.envelope.type)})`);
    for (const hint of hints) lines.push(`  hint: ${printable(hint, 600)}`);
    output.out(lines.join('\n'));
  }
  process.exitCode = verdict.ok ? EXIT_SIGNATURE_REDACTED : 1;
}

function describe({ verdict, signature, hints }: ExplainedRequest, tolerance: number, secretCount: number, recordedAt: number | null): string {
  const lines = verdict.ok
    ? ['valid: the receiver would accept it (200)']
    : [`invalid: the receiver would answer ${verdict.rejection.status} ${verdict.rejection.code}: ${printable(verdict.rejection.message, 400)}`];
  if (recordedAt !== null) lines.push(`  judged at ${new Date(recordedAt).toISOString()}, when the receiver got it (the capture's x-hookrelay-received-at; --at judges at another time)`);
  if (signature?.ok) {
    const skew = roundSeconds(signature.skewSeconds);
    const when = `${formatSeconds(Math.abs(skew))} s ${skew > 0 ? 'in the future' : 'ago'}`;
    const which = secretCount > 1 ? ` #${signature.secretIndex + 1}` : '';
    lines.push(`  signature: matches secret${which}; t=${signature.timestamp} (${new Date(signature.timestamp * 1000).toISOString()}, ${when}, within ${tolerance} s)`);
    for (const note of signature.notes ?? []) lines.push(`  note: ${note}${NOTE_DETAILS[note] ?? ''}`);
  }
  if (verdict.ok) lines.push(`  envelope: ok (id ${printable(verdict.envelope.envelope.id)}, type ${printable(verdict.envelope.envelope.type)})`);
  for (const hint of hints) lines.push(`  hint: ${printable(hint, 600)}`);
  return lines.join('\n');
}

/** The verdict's status is the HTTP status the receiver answers: `responseStatus` beside the deprecated `status` (docs/cli-json.md, Names). */
function withResponseStatus<J extends { verdict: { status: number | null } }>(json: J) {
  return { ...json, verdict: { ...json.verdict, responseStatus: json.verdict.status } };
}
