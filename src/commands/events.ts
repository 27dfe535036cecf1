/** `hookrelay events list | show | replay | retry | export`: read and act on the store without starting the receiver. */
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import { resolveStoreLocation, type StoreFlags } from '../config/db-path.js';
import { resolveReplaySettings, type ReplayFlags } from '../config/replay-settings.js';
import { splitSenderAttempts } from '../core/conformance/group-attempts.js';
import { decodeBodyLeniently, keptBodyText, keptInPart } from '../core/envelope.js';
import { shellQuote } from '../core/shell-command.js';
import { displayUrl } from '../core/url-secrets.js';
import { printable, RELAY_ERROR_CHARS } from '../reporter/printable.js';
import { NoStoreError, openExistingStore, openStoreReader, type StoreReader } from '../store/open-store.js';
import type { AttemptOutcome, AttemptRecord, DeliveryStore, RelayAttemptRecord, RelayJob, StoredDelivery } from '../store/store.js';
import {
  attemptItem, BodyNotKeptError, deliveryItem, EXPORT_FORMATS, itemsToCurl, itemsToHar, itemsToNdjson, itemToCapture, type ExportFormat, type ExportItem,
} from './events-export.js';
import { registerEventsRetargetCommand } from './events-retarget.js';
import { collect as collectValues, reportProblems } from './shared-options.js';

const STATUSES = ['accepted', 'duplicate', 'rejected', 'faulted', 'unavailable'] as const;

const STORE_FLAG = ['--store <url>', 'a postgres:// URL instead of the SQLite file [env HOOKRELAY_STORE]'] as const;
const DB_FLAG = ['--db <file>', 'SQLite file (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]'] as const;
const CONFIG_FLAG = ['--config <file>', 'config file to read db and store from'] as const;

/** Opens the store named by the flags (read-only on SQLite), runs `use`, and closes it; reports why not. */
async function withStore<S extends StoreReader>(flags: StoreFlags, open: typeof openStoreReader | typeof openExistingStore, use: (store: S) => Promise<void> | void): Promise<void> {
  const where = resolveStoreLocation(flags);
  if (!where.ok) {
    reportProblems(where.problems);
    process.exitCode = 2;
    return;
  }
  let store: S;
  try {
    store = (await open(where.location)) as S;
  } catch (err) {
    process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
    process.exitCode = err instanceof NoStoreError ? 2 : 1;
    return;
  }
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);

function deliveryRow(d: StoredDelivery): string {
  const dup = d.duplicateCount > 0 ? `duplicate ×${d.duplicateCount}` : 'accepted';
  return [time(d.receivedAt), dup.padEnd(14), printable(d.trigger, 40).padEnd(34), printable(d.id, 64), d.signature === 'skipped' ? 'UNVERIFIED' : ''].join('  ').trimEnd();
}

function attemptRow(a: AttemptRecord): string {
  return [time(a.receivedAt), `${a.status ?? '---'} ${a.outcome}`.padEnd(14), printable(a.trigger ?? '(no trigger)', 40).padEnd(34), printable(a.deliveryId ?? '(no id)', 64), printable(a.reason ?? '', 60)].join('  ').trimEnd();
}

/** Largest kept body `events show` prints of one attempt (the rest: `events export --attempt`). */
const MAX_SHOWN_ATTEMPT_BODY = 16 * 1024;

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

/** The kept body of a refused or faulted attempt, at most MAX_SHOWN_ATTEMPT_BODY of it. */
function bodyLines(a: AttemptRecord, note = ''): string[] {
  const body = Buffer.from(a.request!.body!);
  const shown = body.subarray(0, MAX_SHOWN_ATTEMPT_BODY);
  const cut = body.length < a.bodyBytes ? ` of ${a.bodyBytes}: the first ${body.length} kept` : '';
  return [
    `      body (${body.length} bytes${cut}${body.length > shown.length ? `, first ${shown.length} shown` : ''}${note})`,
    ...printable(decodeBodyLeniently(shown), 100_000).replace(/\\u000a/g, '\n').split('\n').map((line) => `        ${line}`),
  ];
}

/** An attempt for JSON output: the kept body as text and base64, never as a byte array; which of the sender's attempts it is, and which hop of it. */
function attemptJson(a: AttemptRecord, senderAttempt: number, hop: number) {
  const { request, ...rest } = a;
  if (!request) return { ...rest, senderAttempt, hop, request: null };
  const body = request.body === null ? null : Buffer.from(request.body);
  return { ...rest, senderAttempt, hop, request: { headers: request.headers, body: body === null ? null : decodeBodyLeniently(body), bodyBase64: body === null ? null : body.toString('base64') } };
}

/**
 * A relay try for JSON output: the kept answer's body as text and base64, never as a byte array;
 * text and `invalidUtf8` as the console reads them (keptBodyText: a cut inside a character is not invalid).
 */
function relayTryJson(r: RelayAttemptRecord) {
  const { answer, ...rest } = r;
  if (!answer) return { ...rest, answer: null };
  const body = Buffer.from(answer.body);
  const { text, invalidUtf8 } = keptBodyText(body, answer);
  return {
    ...rest,
    answer: { headers: answer.headers, headerLines: answer.headerLines, bodyBytes: answer.bodyBytes, complete: answer.complete, body: text, bodyBase64: body.toString('base64'), invalidUtf8 },
  };
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

const asJson = (d: StoredDelivery) => {
  const { rawBody, ...rest } = d;
  return { ...rest, bodyBytes: rawBody.length, body: decodeBodyLeniently(Buffer.from(rawBody)) };
};

export function registerEventsCommand(program: Command): Command {
  const events = program.command('events').description('read stored deliveries and attempts');

  events
    .command('list')
    .description('stored deliveries, newest first (or rejected/faulted attempts with --status)')
    .option('--trigger <trigger>', 'only this trigger')
    .option('--status <status>', `one of ${STATUSES.join(', ')}`)
    .option('--limit <n>', 'how many on this page (1-1000)', '20')
    .option('--cursor <n>', 'the next page: the value a previous page printed after "more:"')
    .option('--all', 'every matching delivery, streamed as NDJSON (one JSON object a line); no --limit')
    .option('--json', 'print JSON')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .action(async (flags: { trigger?: string; status?: string; limit: string; cursor?: string; all?: boolean; json?: boolean; db?: string; store?: string; config?: string }, command: Command) => {
      const problems: string[] = [];
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) problems.push(`--limit: must be a whole number from 1 to 1000 (page with --cursor, or stream them all with --all), got ${JSON.stringify(flags.limit)}`);
      const cursor = flags.cursor === undefined ? undefined : Number(flags.cursor);
      if (cursor !== undefined && (!Number.isSafeInteger(cursor) || cursor < 1)) problems.push(`--cursor: must be the number a previous page printed after "more:", got ${JSON.stringify(flags.cursor)}`);
      if (flags.all && command.getOptionValueSource('limit') === 'cli') problems.push('--all lists every delivery: leave out --limit');
      if (flags.status !== undefined && !STATUSES.includes(flags.status as never)) problems.push(`--status: must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(flags.status)}`);
      const status = flags.status as (typeof STATUSES)[number] | undefined;
      const attemptStatus = status === 'rejected' || status === 'faulted' || status === 'unavailable';
      if (attemptStatus && (flags.all || cursor !== undefined)) problems.push(`--all and --cursor page through stored deliveries; --status ${status} lists attempts (up to --limit)`);
      if (problems.length) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      await withStore(flags, openStoreReader, async (reader) => {
        if (attemptStatus) {
          const attempts = (await reader.listAttempts({ outcomes: [status as AttemptOutcome], limit: flags.trigger ? 1000 : limit }))
            .filter((a) => !flags.trigger || a.trigger === flags.trigger)
            .slice(0, limit);
          if (flags.json) process.stdout.write(`${JSON.stringify(attempts, null, 2)}\n`);
          else process.stdout.write(attempts.length ? `${attempts.map(attemptRow).join('\n')}\n` : `no ${status} attempts\n`);
          return;
        }
        const query = { trigger: flags.trigger, duplicatesOnly: status === 'duplicate' };
        if (flags.all) {
          let before = cursor;
          for (;;) {
            const page = await reader.listDeliveries({ ...query, limit: 500, before });
            if (page.items.length > 0) process.stdout.write(`${page.items.map((d) => JSON.stringify(asJson(d))).join('\n')}\n`);
            if (page.nextCursor === null) return;
            before = page.nextCursor;
          }
        }
        const page = await reader.listDeliveries({ ...query, limit, before: cursor });
        if (flags.json) process.stdout.write(`${JSON.stringify(page.items.map(asJson), null, 2)}\n`);
        else process.stdout.write(page.items.length ? `${page.items.map(deliveryRow).join('\n')}\n` : emptyListLine(flags.trigger, status === 'duplicate', cursor !== undefined));
        // On stderr, so the rows on stdout stay clean for a pipe.
        if (page.nextCursor !== null) process.stderr.write(`more: hookrelay events list --cursor ${page.nextCursor}${flags.trigger ? ` --trigger ${shellQuote(flags.trigger)}` : ''}${status ? ` --status ${status}` : ''} (or --all)\n`);
      });
    });

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
        if (flags.json) {
          const attemptsJson = senderAttempts.flatMap((hops, i) => hops.map((a, hop) => attemptJson(a, i + 1, hop)));
          process.stdout.write(`${JSON.stringify({ delivery: delivery ? asJson(delivery) : null, attempts: attemptsJson, relay: { job: relay.job, attempts: relay.attempts.map(relayTryJson) } }, null, 2)}\n`);
          return;
        }
        const lines: string[] = [];
        if (delivery) {
          lines.push(
            `delivery  ${printable(delivery.id, 200)}`,
            `trigger   ${printable(delivery.trigger, 200)}`,
            `api       ${printable(delivery.apiVersion)}${delivery.apiVersionKnown ? '' : '  (unknown version: accepted, marked)'}`,
            `received  ${time(delivery.receivedAt)}   duplicates: ${delivery.duplicateCount}`,
            `signature ${delivery.signature === 'valid' ? `valid (secret #${(delivery.secretIndex ?? 0) + 1}, t=${delivery.signatureTimestamp})` : 'NOT VERIFIED (--skip-verify)'}`,
            'headers',
            ...delivery.headers.map(([n, v]) => `  ${printable(n, 80)}: ${printable(v, 300)}`),
            `body (${delivery.rawBody.length} bytes)`,
            printable(decodeBodyLeniently(Buffer.from(delivery.rawBody)), 100_000).replace(/\\u000a/g, '\n'),
          );
        } else {
          lines.push(`no stored delivery with id ${printable(id)} — only attempts that were not accepted`);
        }
        lines.push('attempts');
        senderAttempts.forEach((hops, i) => lines.push(...senderAttemptLines(hops, i + 1)));
        if (attempts.some((a) => a.request)) {
          lines.push(`  (export one attempt for \`hookrelay verify\`: hookrelay events export ${shellQuote(id)} --attempt <#> --format capture --include-signature)`);
        }
        if (relay.job || relay.attempts.length) {
          lines.push(`relay     ${relay.job ? relayJobLine(relay.job) : 'no relay job (forwarding was off)'}`);
          for (const r of relay.attempts) lines.push(...relayTryLines(r));
        }
        process.stdout.write(`${lines.join('\n')}\n`);
      });
    });
  events
    .command('replay')
    .description('re-send a stored delivery, freshly signed and marked as a replay (recorded in its history)')
    .argument('<id>', 'delivery id')
    .option('--to <url>', 'where to send it, on this machine unless --allow-remote (default: where the relay would send it: its --route, else HOOKRELAY_FORWARD_TO)')
    .option('--allow-remote', 'allow a --to that is not on this machine')
    .option('--secret <secret>', 'sign with this secret (default: HOOKRELAY_FORWARD_SECRET, the first HOOKRELAY_SECRET, or the development secret)')
    .option('--timeout <ms>', 'give up after this long', '30000')
    .option('--route <glob=url>', "as listen's --route: where a replay without --to goes by its trigger (default: HOOKRELAY_ROUTE, or the config file's)", collectValues)
    .option('--forward-header <header>', "as listen's: 'Name: value' on the replay; repeatable (default: HOOKRELAY_FORWARD_HEADER, or the config file's)", collectValues)
    .option('--forward-ca <file>', "as listen's: PEM certificate(s) trusted for an https target (default: HOOKRELAY_FORWARD_CA)")
    .option('--forward-insecure', "as listen's: accept any certificate from an https target")
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .action(async (id: string, flags: ReplayFlags & { db?: string; store?: string }) => {
      const where = resolveStoreLocation(flags);
      const replay = resolveReplaySettings(flags, where.ok ? where.dbPath : null);
      if (!replay.ok || !where.ok) {
        reportProblems([...(where.ok ? [] : where.problems), ...(replay.ok ? [] : replay.problems)]);
        process.exitCode = 2;
        return;
      }
      const { createReplayer } = await import('../relay/replay.js');
      await withStore<DeliveryStore>(flags, openExistingStore, async (store) => {
        const replayer = createReplayer({ store, settings: replay.settings.settings, clock: Date.now });
        try {
          const result = await replayer.replay(id, replay.settings.to ?? undefined);
          if (!result) {
            process.stderr.write(`hookrelay: no stored delivery with id ${printable(id)}\n`);
            process.exitCode = 1;
            return;
          }
          process.stdout.write(`${result.ok ? 'replayed' : 'replay failed'}: ${result.status ?? '---'} from ${printable(result.target)} in ${Math.round(result.latencyMs)} ms${result.error ? ` (${result.error})` : ''}\n`);
          process.exitCode = result.ok ? 0 : 1;
        } finally {
          await replayer.close();
        }
      });
    });

  events
    .command('retry')
    .description('put a dead relay job back in the queue (a running `listen --forward-to` picks it up); only a dead one')
    .argument('<id>', 'delivery id')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .action(async (id: string, flags: { db?: string; store?: string; config?: string }) => {
      await withStore<DeliveryStore>(flags, openExistingStore, async (store) => {
        if (await store.requeueRelay(id, Date.now())) {
          process.stdout.write(`queued again: ${printable(id)}\n`);
          return;
        }
        process.stderr.write(`hookrelay: ${retryRefusal(id, (await store.relayHistory(id)).job?.state ?? null)}\n`);
        process.exitCode = 1;
      });
    });

  events
    .command('export')
    .description('stored deliveries with their raw bodies, newest first, or one delivery or one attempt of it (rejected and faulted ones too), for sharing, tests and `hookrelay verify`')
    .argument('[id]', 'only this delivery id (x-service-delivery); needed for --attempt and --format capture')
    .option('--format <format>', `one of ${EXPORT_FORMATS.join(', ')} (capture: one request as \`hookrelay verify\` reads it)`, 'ndjson')
    .option('--attempt <n>', 'one attempt of the id, numbered as `events show` numbers them (1 = its first; redirect hops are part of their attempt, which exports as the hop that ended it, as show prints it), whatever its outcome')
    .option('--include-signature', 'keep x-service-signature as received (default: its v1 MACs are written as "redacted"; `verify` then checks everything else)')
    .option('--trigger <trigger>', 'only this trigger')
    .option('--limit <n>', 'how many (1-100000)', '1000')
    .option('--url <url>', 'receiver URL to put in HAR, curl and capture output', 'http://127.0.0.1:4000/webhooks')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .addHelpText('after', `
Every format redacts the signature: a MAC and the body it signs are enough to guess a weak secret
offline, and an export is made to be shared. --include-signature keeps it, e.g. to judge a rejected
attempt again:

  npx hookrelay events export <id> --attempt 1 --format capture --include-signature > attempt.http
  npx hookrelay verify attempt.http --secret "$WEBHOOK_SECRET"

A capture records the arrival time (x-hookrelay-received-at), and verify judges the signature's t
against it, so the verdict is the receiver's.`)
    .action(async (id: string | undefined, flags: { format: string; attempt?: string; includeSignature?: boolean; trigger?: string; limit: string; url: string; db?: string; store?: string; config?: string }) => {
      const problems: string[] = [];
      if (!EXPORT_FORMATS.includes(flags.format as ExportFormat)) problems.push(`--format: must be one of ${EXPORT_FORMATS.join(', ')}, got ${JSON.stringify(flags.format)}`);
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) problems.push(`--limit: must be a whole number from 1 to 100000, got ${JSON.stringify(flags.limit)}`);
      const attemptNumber = flags.attempt === undefined ? undefined : Number(flags.attempt);
      if (attemptNumber !== undefined && (!Number.isSafeInteger(attemptNumber) || attemptNumber < 1)) problems.push(`--attempt: must be a whole number from 1 (as \`events show\` numbers attempts), got ${JSON.stringify(flags.attempt)}`);
      if (id === undefined && flags.attempt !== undefined) problems.push('--attempt needs the delivery id: hookrelay events export <id> --attempt <n>');
      if (id === undefined && flags.format === 'capture') problems.push('--format capture holds one request: give the delivery id (and --attempt <n> for one of its attempts)');
      if (problems.length) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      const format = flags.format as ExportFormat;
      const options = { includeSignature: flags.includeSignature === true };
      await withStore(flags, openStoreReader, async (reader) => {
        let items: ExportItem[];
        if (id !== undefined) {
          const item = await exportOne(reader, id, attemptNumber);
          if (!item.ok) {
            process.stderr.write(`hookrelay: ${item.message}\n`);
            process.exitCode = 1;
            return;
          }
          items = [item.item];
        } else {
          const deliveries: StoredDelivery[] = [];
          let before: number | undefined;
          while (deliveries.length < limit) {
            const page = await reader.listDeliveries({ limit: Math.min(500, limit - deliveries.length), trigger: flags.trigger, before });
            deliveries.push(...page.items);
            if (page.nextCursor === null) break;
            before = page.nextCursor;
          }
          items = deliveries.map(deliveryItem);
        }
        try {
          const out = format === 'ndjson' ? itemsToNdjson(items, options)
            : format === 'har' ? itemsToHar(items, flags.url, options)
            : format === 'curl' ? itemsToCurl(items, flags.url, options)
            : itemToCapture(items[0]!, flags.url, options);
          process.stdout.write(out);
        } catch (err) {
          if (!(err instanceof BodyNotKeptError)) throw err;
          process.stderr.write(`hookrelay: ${printable(err.message, 400)}\n`);
          process.exitCode = 1;
        }
      });
    });

  registerEventsRetargetCommand(events);
  return events;
}

/** The relay job of `events show`: its state, tries, when it is due, and the target it was queued for. */
function relayJobLine(job: RelayJob): string {
  const due = job.state === 'pending' ? `, next at ${time(job.nextAt)}` : '';
  const target = job.target === null ? '' : ` for ${printable(displayUrl(job.target), 200)}`;
  const held = job.state === 'held' ? ' (queued for a target the last relay started did not hand on to: `hookrelay events retarget` moves it)' : '';
  return `${job.state} after ${job.tries} tries${due}${target}${held}`;
}

/** Why `events retry` did not requeue: only a dead job may go back in the queue (a done one would reach the app twice). */
function retryRefusal(id: string, state: RelayJob['state'] | null): string {
  const shown = printable(id);
  if (state === 'done') return `${shown} was already handed on; retry only requeues a dead job. To send it again, marked as a replay: hookrelay events replay ${shown} --to <url>`;
  if (state === 'pending') return `${shown} is still queued for the relay; retry only requeues a dead job`;
  if (state === 'held') return `${shown} is queued for a target the running relay does not hand on to; \`hookrelay events retarget\` moves it`;
  return `${shown} has no relay job (not stored, or stored while forwarding was off)`;
}

function emptyListLine(trigger: string | undefined, duplicatesOnly: boolean, paged: boolean): string {
  if (trigger || duplicatesOnly) return `no stored delivery matches ${[trigger ? `--trigger ${printable(trigger)}` : '', duplicatesOnly ? '--status duplicate' : ''].filter(Boolean).join(' ')}${paged ? ' on this page' : ''}\n`;
  return paged ? 'no more deliveries\n' : 'no deliveries stored yet\n';
}

/**
 * One delivery (no `attempt`), or its attempt number `attempt` (oldest first, 1-based, as `events
 * show` numbers them), as an export item; or why not. An attempt that followed redirect hops
 * exports as the hop that ended it: the arrival whose answer `events show` prints as the attempt's
 * (`200 accepted`, not the first hop's `307 faulted`); every hop re-sent the same body and
 * signature, so it is also the request the receiver judged last. Its `hop` field says which.
 */
async function exportOne(reader: StoreReader, id: string, attempt: number | undefined): Promise<{ ok: true; item: ExportItem } | { ok: false; message: string }> {
  const delivery = await reader.getDelivery(id);
  const senderAttempts = async () => splitSenderAttempts((await reader.listAttempts({ deliveryId: id, limit: 1000, withRequest: true })).reverse());
  if (attempt === undefined) {
    if (delivery) return { ok: true, item: deliveryItem(delivery) };
    const count = (await senderAttempts()).length;
    return {
      ok: false,
      message: count === 0
        ? `no delivery or attempt with id ${printable(id)}`
        : `${printable(id)} was never stored (every arrival was refused or faulted): export one of its ${count} attempt${count === 1 ? '' : 's'} with --attempt 1${count > 1 ? `..${count}` : ''}`,
    };
  }
  const attempts = await senderAttempts();
  const hops = attempts[attempt - 1];
  if (!hops) return { ok: false, message: attempts.length === 0 ? `no delivery or attempt with id ${printable(id)}` : `${printable(id)} has ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}: --attempt must be 1${attempts.length > 1 ? `..${attempts.length}` : ''}` };
  const hop = hops.length - 1;
  const chosen = hops[hop]!;
  const item = attemptItem(chosen, attempt, delivery);
  // The stored delivery's body is this attempt's whenever their SHA-256 agree (the same bytes): a
  // refused or faulted body longer than the 64 KiB an attempt keeps exports whole all the same.
  const body = item.body ?? (delivery && sha256(delivery.rawBody) === chosen.bodySha256 ? Buffer.from(delivery.rawBody) : null);
  return { ok: true, item: { ...item, body, fields: { ...item.fields, hop } } };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
