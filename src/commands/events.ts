/** `hookrelay events list | show`: read the store without starting the receiver. */
import { resolveDbPath } from '../config/db-path.js';
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { decodeBodyLeniently } from '../core/envelope.js';
import { openDatabase } from '../store/sqlite/open-database.js';
import { createSqliteReader } from '../store/sqlite/sqlite-reader.js';
import type { AttemptOutcome, AttemptRecord, StoredDelivery } from '../store/store.js';
import { printable } from '../reporter/printable.js';
import { reportProblems } from './shared-options.js';
import { dataDirOf, readDevSecret } from '../config/data-dir.js';
import { createSqliteStore } from '../store/sqlite/sqlite-store.js';
import { EXPORT_FORMATS, toCurl, toHar, toNdjson, type ExportFormat } from './events-export.js';

type Reader = ReturnType<typeof createSqliteReader>;

const STATUSES = ['accepted', 'duplicate', 'rejected', 'faulted', 'unavailable'] as const;

function withReader<T>(flags: { db?: string; config?: string }, use: (reader: Reader) => T): T | undefined {
  const db = resolveDbPath(flags);
  if (!db.ok) {
    reportProblems(db.problems);
    process.exitCode = 2;
    return undefined;
  }
  if (!existsSync(db.dbPath)) {
    process.stderr.write(`hookrelay: no database at ${resolve(db.dbPath)}: start \`hookrelay listen\` first, or pass --db\n`);
    process.exitCode = 2;
    return undefined;
  }
  const handle = openDatabase(db.dbPath, { readonly: true });
  try {
    return use(createSqliteReader(handle));
  } finally {
    handle.close();
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
    .option('--limit <n>', 'how many (1-1000)', '20')
    .option('--json', 'print JSON')
    .option('--db <file>', 'SQLite file (default .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--config <file>', 'config file to read db from')
    .action((flags: { trigger?: string; status?: string; limit: string; json?: boolean; db?: string; config?: string }) => {
      const problems: string[] = [];
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) problems.push(`--limit: must be a whole number from 1 to 1000, got ${JSON.stringify(flags.limit)}`);
      if (flags.status !== undefined && !STATUSES.includes(flags.status as never)) problems.push(`--status: must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(flags.status)}`);
      if (problems.length) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      withReader(flags, (reader) => {
        const status = flags.status as (typeof STATUSES)[number] | undefined;
        if (status === 'rejected' || status === 'faulted' || status === 'unavailable') {
          const attempts = reader
            .listAttempts({ outcomes: [status as AttemptOutcome], limit: flags.trigger ? 1000 : limit })
            .filter((a) => !flags.trigger || a.trigger === flags.trigger)
            .slice(0, limit);
          if (flags.json) process.stdout.write(`${JSON.stringify(attempts, null, 2)}\n`);
          else process.stdout.write(attempts.length ? `${attempts.map(attemptRow).join('\n')}\n` : `no ${status} attempts\n`);
          return;
        }
        const page = reader.listDeliveries({ limit, trigger: flags.trigger, duplicatesOnly: status === 'duplicate' });
        if (flags.json) process.stdout.write(`${JSON.stringify(page.items.map(asJson), null, 2)}\n`);
        else process.stdout.write(page.items.length ? `${page.items.map(deliveryRow).join('\n')}\n` : 'no deliveries stored yet\n');
      });
    });

  events
    .command('show')
    .description('one delivery: headers, body, signature, every attempt')
    .argument('<id>', 'delivery id (x-service-delivery)')
    .option('--json', 'print JSON')
    .option('--raw', 'print only the raw body bytes, exactly as received')
    .option('--db <file>', 'SQLite file (default .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--config <file>', 'config file to read db from')
    .action((id: string, flags: { json?: boolean; raw?: boolean; db?: string; config?: string }) => {
      withReader(flags, (reader) => {
        const delivery = reader.getDelivery(id);
        const attempts = reader.listAttempts({ deliveryId: id, limit: 1000 }).reverse();
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
        const relay = reader.relayHistory(id);
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ delivery: delivery ? asJson(delivery) : null, attempts, relay }, null, 2)}\n`);
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
        for (const a of attempts) lines.push(`  ${attemptRow(a)}  attempt ${a.attemptHeader ?? '?'}${a.retryAfter ? `  retry-after=${printable(a.retryAfter)}` : ''}`);
        if (relay.job || relay.attempts.length) {
          lines.push(`relay     ${relay.job ? `${relay.job.state} after ${relay.job.tries} tries${relay.job.state === 'pending' ? `, next at ${time(relay.job.nextAt)}` : ''}` : 'no relay job (forwarding was off)'}`);
          for (const r of relay.attempts) {
            lines.push(`  ${time(r.startedAt)}  ${r.replay ? 'replay' : `try ${r.try}`}  → ${r.status ?? '---'}  ${r.finishedAt - r.startedAt} ms  ${printable(r.target, 100)}${r.error ? `  ${printable(r.error, 100)}` : ''}`);
          }
        }
        process.stdout.write(`${lines.join('\n')}\n`);
      });
    });
  events
    .command('replay')
    .description('re-send a stored delivery, freshly signed and marked as a replay (recorded in its history)')
    .argument('<id>', 'delivery id')
    .option('--to <url>', 'where to send it (default: HOOKRELAY_FORWARD_TO)')
    .option('--secret <secret>', 'sign with this secret (default: HOOKRELAY_FORWARD_SECRET, the first HOOKRELAY_SECRET, or the development secret)')
    .option('--timeout <ms>', 'give up after this long', '30000')
    .option('--db <file>', 'SQLite file (default .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--config <file>', 'config file to read db from')
    .action(async (id: string, flags: { to?: string; secret?: string; timeout: string; db?: string; config?: string }) => {
      const problems: string[] = [];
      const target = flags.to ?? process.env.HOOKRELAY_FORWARD_TO;
      if (!target) problems.push('no target: pass --to URL (or set HOOKRELAY_FORWARD_TO)');
      else if (!/^https?:\/\//.test(target)) problems.push(`--to: must be an http or https URL, got ${JSON.stringify(target)}`);
      const timeout = Number(flags.timeout);
      if (!Number.isInteger(timeout) || timeout < 1) problems.push(`--timeout: must be a whole number of milliseconds, got ${JSON.stringify(flags.timeout)}`);
      const db = resolveDbPath(flags);
      if (!db.ok) problems.push(...db.problems);
      const secret = flags.secret ?? process.env.HOOKRELAY_FORWARD_SECRET ?? process.env.HOOKRELAY_SECRET?.split(',')[0] ?? (db.ok ? readDevSecret(dataDirOf(db.dbPath)) : undefined);
      if (!secret) problems.push('no secret to sign with: pass --secret (or run `hookrelay listen` once to make a development secret)');
      if (db.ok && !existsSync(db.dbPath)) problems.push(`no database at ${resolve(db.dbPath)}: start \`hookrelay listen\` first, or pass --db`);
      if (problems.length || !db.ok) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      const [{ Agent }, { replayDelivery }] = await Promise.all([import('undici'), import('../relay/replay.js')]);
      const store = await createSqliteStore(db.dbPath);
      const dispatcher = new Agent();
      try {
        const result = await replayDelivery({ store, dispatcher, secret: secret!, timeoutMs: timeout, extraHeaders: [], clock: Date.now }, id, target!);
        if (!result) {
          process.stderr.write(`hookrelay: no stored delivery with id ${printable(id)}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`${result.ok ? 'replayed' : 'replay failed'}: ${result.status ?? '---'} from ${printable(result.target)} in ${Math.round(result.latencyMs)} ms${result.error ? ` (${result.error})` : ''}\n`);
        process.exitCode = result.ok ? 0 : 1;
      } finally {
        await dispatcher.close();
        await store.close();
      }
    });

  events
    .command('retry')
    .description('put a dead relay job back in the queue (a running `listen --forward-to` picks it up); only a dead one')
    .argument('<id>', 'delivery id')
    .option('--db <file>', 'SQLite file (default .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--config <file>', 'config file to read db from')
    .action(async (id: string, flags: { db?: string; config?: string }) => {
      const db = resolveDbPath(flags);
      if (!db.ok || !existsSync(db.dbPath)) {
        reportProblems(db.ok ? [`no database at ${resolve(db.dbPath)}`] : db.problems);
        process.exitCode = 2;
        return;
      }
      const store = await createSqliteStore(db.dbPath);
      try {
        if (await store.requeueRelay(id, Date.now())) {
          process.stdout.write(`queued again: ${printable(id)}\n`);
          return;
        }
        process.stderr.write(`hookrelay: ${retryRefusal(id, (await store.relayHistory(id)).job?.state ?? null)}\n`);
        process.exitCode = 1;
      } finally {
        await store.close();
      }
    });

  events
    .command('export')
    .description('stored deliveries with their raw bodies, newest first, for sharing and for tests')
    .option('--format <format>', `one of ${EXPORT_FORMATS.join(', ')}`, 'ndjson')
    .option('--trigger <trigger>', 'only this trigger')
    .option('--limit <n>', 'how many (1-100000)', '1000')
    .option('--url <url>', 'receiver URL to put in HAR and curl output', 'http://127.0.0.1:4000/webhooks')
    .option('--db <file>', 'SQLite file (default .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--config <file>', 'config file to read db from')
    .action((flags: { format: string; trigger?: string; limit: string; url: string; db?: string; config?: string }) => {
      const problems: string[] = [];
      if (!EXPORT_FORMATS.includes(flags.format as ExportFormat)) problems.push(`--format: must be one of ${EXPORT_FORMATS.join(', ')}, got ${JSON.stringify(flags.format)}`);
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) problems.push(`--limit: must be a whole number from 1 to 100000, got ${JSON.stringify(flags.limit)}`);
      if (problems.length) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      withReader(flags, (reader) => {
        const items: StoredDelivery[] = [];
        let before: number | undefined;
        while (items.length < limit) {
          const page = reader.listDeliveries({ limit: Math.min(500, limit - items.length), trigger: flags.trigger, before });
          items.push(...page.items);
          if (page.nextCursor === null) break;
          before = page.nextCursor;
        }
        const format = flags.format as ExportFormat;
        process.stdout.write(format === 'ndjson' ? toNdjson(items) : format === 'har' ? toHar(items, flags.url) : toCurl(items, flags.url));
      });
    });

  return events;
}

/** Why `events retry` did not requeue: only a dead job may go back in the queue (a done one would reach the app twice). */
function retryRefusal(id: string, state: 'pending' | 'done' | 'dead' | null): string {
  const shown = printable(id);
  if (state === 'done') return `${shown} was already handed on; retry only requeues a dead job. To send it again, marked as a replay: hookrelay events replay ${shown} --to <url>`;
  if (state === 'pending') return `${shown} is still queued for the relay; retry only requeues a dead job`;
  return `${shown} has no relay job (not stored, or stored while forwarding was off)`;
}
