/** `hookrelay events show`: one delivery with its headers, body, signature, every attempt and its relay history. */
import type { Command } from 'commander';
import { splitSenderAttempts } from '../core/conformance/group-attempts.js';
import { decodeBodyLeniently, keptBodyText, keptInPart } from '../core/envelope.js';
import { SHOWN_BODY_BYTES } from '../core/limits.js';
import type { SchemaDrift } from '../core/schemas/drift.js';
import { shellQuote } from '../core/shell-command.js';
import { displayUrl } from '../core/url-secrets.js';
import { printable, RELAY_ERROR_CHARS } from '../reporter/printable.js';
import { openStoreReader } from '../store/open-store.js';
import type { AttemptRecord, RelayAttemptRecord, RelayJob } from '../store/store.js';
import { asJson, attemptJson, attemptRow, relayJobJson, relayTryJson } from './events-rows.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, time, withStore } from './events-store-access.js';

/**
 * One attempt of `events show`: its row, number and attempt header; for a rejection, the hints on
 * why beside its code; what it kept of its request (headers, and the body of a refused or faulted
 * one). The signature is shown as the console shows it: exports redact it.
 */
function attemptLines(a: AttemptRecord, number: number): string[] {
  const lines = [`  #${number}  ${attemptRow(a)}  attempt ${a.attemptHeader ?? '?'}${a.retryAfter ? `  retry-after=${printable(a.retryAfter)}` : ''}`];
  for (const hint of a.hints ?? []) lines.push(`      hint: ${printable(hint, 600)}`);
  const request = a.request;
  if (!request) return lines;
  lines.push(`      headers (${request.headers.length})`, ...request.headers.map(([n, v]) => `        ${printable(n, 80)}: ${printable(v, 300)}`));
  if (request.body !== null) {
    lines.push(...bodyLines(a));
  } else if (a.outcome !== 'duplicate') {
    lines.push(`      body (${a.bodyBytes} bytes, not kept: never read)`);
  }
  return lines;
}

/**
 * The attempts of the sender (as the conformance judge counts them: `splitSenderAttempts`), each
 * numbered, with the redirect hops it followed: one entry each, not one per hop.
 */
function senderAttemptLines(hops: AttemptRecord[], number: number): string[] {
  if (hops.length === 1) return attemptLines(hops[0]!, number);
  const first = hops[0]!;
  const last = hops[hops.length - 1]!;
  const lines = [`  #${number}  ${attemptRow({ ...last, receivedAt: first.receivedAt })}  attempt ${first.attemptHeader ?? '?'}  (${hops.length - 1} redirect hop${hops.length === 2 ? '' : 's'} followed)`];
  for (const hint of last.hints ?? []) lines.push(`      hint: ${printable(hint, 600)}`);
  hops.forEach((a, i) => {
    // hookrelay's hop Locations are not recorded: the next arrival is where the sender went.
    const redirect = a.status !== null && a.status >= 300 && a.status <= 399;
    const went = redirect ? (i + 1 < hops.length ? `  → redirect to hop ${i + 1}` : '  → redirect not followed') : '';
    lines.push(`      ${(i === 0 ? 'request' : `hop ${i}`).padEnd(7)}  ${time(a.receivedAt)}  ${a.status ?? '---'} ${a.outcome}  ${printable(a.reason ?? '', 60)}${went}`.trimEnd());
    if (a.request) lines.push(`        headers (${a.request.headers.length})`, ...a.request.headers.map(([n, v]) => `          ${printable(n, 80)}: ${printable(v, 300)}`));
  });
  // Every hop re-sends the same request: its body is printed once.
  const kept = hops.find((a) => a.request?.body);
  if (kept) lines.push(...bodyLines(kept, ', sent on every hop'));
  return lines;
}

/** The kept body of a refused or faulted attempt, at most SHOWN_BODY_BYTES of it. */
function bodyLines(a: AttemptRecord, note = ''): string[] {
  const body = Buffer.from(a.request!.body!);
  const shown = body.subarray(0, SHOWN_BODY_BYTES);
  const cut = body.length < a.bodyBytes ? ` of ${a.bodyBytes}: the first ${body.length} kept` : '';
  return [
    `      body (${body.length} bytes${cut}${body.length > shown.length ? `, first ${shown.length} shown` : ''}${note})`,
    ...printable(decodeBodyLeniently(shown), 100_000).replace(/\\u000a/g, '\n').split('\n').map((line) => `        ${line}`),
  ];
}

/**
 * One relay try of `events show`: when, which try, the target's status, how long, where, why it
 * failed; then what the target answered (its header lines and the kept start of its body), or why
 * there is nothing to show.
 */
function relayTryLines(r: RelayAttemptRecord): string[] {
  const lines = [`  ${time(r.startedAt)}  ${r.replay ? 'replay' : `try ${r.try}`}  → ${r.status ?? '---'}  ${r.finishedAt - r.startedAt} ms  ${printable(displayUrl(r.target), 100)}${r.error ? `  ${printable(r.error, RELAY_ERROR_CHARS)}` : ''}`];
  const a = r.answer;
  if (!a) {
    if (r.status !== null) lines.push('      answer not kept (recorded before hookrelay kept answers)');
    return lines;
  }
  const left = a.headerLines - a.headers.length;
  lines.push(`      answer headers (${a.headerLines}${left > 0 ? `, the first ${a.headers.length} kept` : ''})`, ...a.headers.map(([n, v]) => `        ${printable(n, 80)}: ${printable(v, 300)}`));
  const body = Buffer.from(a.body);
  const size = a.complete ? `${a.bodyBytes} bytes` : `at least ${a.bodyBytes} bytes: hookrelay stopped reading, or the answer was cut`;
  const cut = keptInPart(body, a);
  const { text, invalidUtf8 } = keptBodyText(body, a);
  lines.push(`      answer body (${size}${cut ? `, the first ${body.length} kept` : ''}${invalidUtf8 ? '; not UTF-8: shown as \ufffd, --json has the exact bytes' : ''})`);
  if (body.length > 0) lines.push(...printable(text, 100_000).replace(/\\u000a/g, '\n').split('\n').map((line) => `        ${line}`));
  return lines;
}

export function registerEventsShowCommand(events: Command): void {
  events
    .command('show')
    .description('one delivery: headers, body, signature, every attempt')
    .argument('<id>', 'delivery id (x-service-delivery)')
    .option('--json', 'print JSON')
    .option('--raw', 'print only the raw body bytes, exactly as received')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .action(async (id: string, flags: { json?: boolean; raw?: boolean; db?: string; store?: string; config?: string }) => {
      await withStore(flags, openStoreReader, async (reader) => {
        const delivery = await reader.getDelivery(id);
        const attempts = (await reader.listAttempts({ deliveryId: id, limit: 1000, withRequest: true })).reverse();
        if (!delivery && attempts.length === 0) {
          process.stderr.write(`hookrelay: no delivery or attempt with id ${printable(id)}\n`);
          process.exitCode = 1;
          return;
        }
        if (flags.raw) {
          if (delivery) process.stdout.write(delivery.rawBody);
          else process.exitCode = 1;
          return;
        }
        const relay = await reader.relayHistory(id, { withAnswers: true });
        const senderAttempts = splitSenderAttempts(attempts);
        // Read here, not at intake: ajv loads with this module, only when a record is shown.
        const drift = delivery ? (await import('../runtime/trigger-drift.js')).driftOfBody(delivery.rawBody) : null;
        if (flags.json) {
          const attemptsJson = senderAttempts.flatMap((hops, i) => hops.map((a, hop) => attemptJson(a, i + 1, hop)));
          const jobs = relay.jobs.map(relayJobJson);
          // `job`: the first job, kept for scripts written before a delivery had one job per target (deprecated: read `jobs`).
          process.stdout.write(`${JSON.stringify({ delivery: delivery ? asJson(delivery) : null, drift, attempts: attemptsJson, relay: { jobs, job: jobs[0] ?? null, attempts: relay.attempts.map((r) => relayTryJson(r, id)) } }, null, 2)}\n`);
          return;
        }
        const lines: string[] = [];
        if (delivery) {
          lines.push(
            `delivery  ${printable(delivery.id, 200)}`,
            `trigger   ${printable(delivery.trigger, 200)}`,
            `api       ${printable(delivery.apiVersion)}${delivery.apiVersionKnown ? '' : '  (unknown version: accepted, marked)'}`,
            ...driftLines(drift),
            `received  ${time(delivery.receivedAt)}   duplicates: ${delivery.duplicateCount}`,
            `signature ${delivery.signature === 'valid' ? `valid (secret #${(delivery.secretIndex ?? 0) + 1}, t=${delivery.signatureTimestamp})` : 'NOT VERIFIED (--skip-verify)'}`,
            'headers',
            ...delivery.headers.map(([n, v]) => `  ${printable(n, 80)}: ${printable(v, 300)}`),
            `body (${delivery.rawBody.length} bytes)`,
            printable(decodeBodyLeniently(delivery.rawBody), 100_000).replace(/\\u000a/g, '\n'),
          );
        } else {
          lines.push(`no stored delivery with id ${printable(id)} — only attempts that were not accepted`);
        }
        lines.push('attempts');
        senderAttempts.forEach((hops, i) => lines.push(...senderAttemptLines(hops, i + 1)));
        if (attempts.some((a) => a.request)) {
          lines.push(`  (export one attempt for \`hookrelay verify\`: hookrelay events export ${shellQuote(id)} --attempt <#> --format capture --include-signature)`);
        }
        if (relay.jobs.length > 0 || relay.attempts.length > 0) {
          if (relay.jobs.length === 0) lines.push('relay     no relay job (forwarding was off)');
          else if (relay.jobs.length === 1) lines.push(`relay     ${relayJobLine(relay.jobs[0]!)}`);
          else lines.push(`relay     ${relay.jobs.length} jobs, one per target`, ...relay.jobs.map((job) => `  job  ${relayJobLine(job)}`));
          if (relay.attempts.length > 0) lines.push('relay tries');
          for (const r of relay.attempts) lines.push(...relayTryLines(r));
        }
        process.stdout.write(`${lines.join('\n')}\n`);
      });
    });
}

/** The schema drift of `events show`: a warning under the trigger, one line per finding (hostile text made printable). */
function driftLines(drift: SchemaDrift | null): string[] {
  if (drift === null) return [];
  const count = drift.problems.length + drift.more;
  return [
    `schema    WARNING: ${count} known field${count === 1 ? '' : 's'} missing or of another type than the ${printable(drift.trigger, 200)} schema says (accepted all the same: hookrelay schema ${shellQuote(drift.trigger)})`,
    ...drift.problems.map((p) => `  ${printable(p, 300)}`),
    ...(drift.more > 0 ? [`  … and ${drift.more} more`] : []),
  ];
}

/**
 * One relay job of `events show` (a delivery has one per target): its state, tries, when it is due,
 * the target it was queued for, and what that target last answered.
 */
function relayJobLine(job: RelayJob): string {
  const due = job.state === 'pending' ? `, next at ${time(job.nextAt)}` : '';
  const target = job.target === null ? '' : ` for ${printable(displayUrl(job.target), 200)}`;
  const last = job.tries === 0 ? '' : ` (last answer ${job.lastStatus ?? '---'}${job.lastError ? `: ${printable(job.lastError, RELAY_ERROR_CHARS)}` : ''})`;
  const held = job.state === 'held' ? ' (queued for a target the last relay started did not hand on to: `hookrelay events retarget` moves it)' : '';
  return `${job.state} after ${job.tries} ${job.tries === 1 ? 'try' : 'tries'}${due}${target}${last}${held}`;
}
