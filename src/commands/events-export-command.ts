/** `hookrelay events export`: stored deliveries, or one delivery or one attempt of it, in one of the formats of events-export.ts. */
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import { splitSenderAttempts } from '../core/conformance/group-attempts.js';
import { printable } from '../reporter/printable.js';
import { createProgressLine } from '../reporter/progress-line.js';
import { openStoreReader, type StoreReader } from '../store/open-store.js';
import type { StoredDelivery } from '../store/store.js';
import { attemptItem, BodyNotKeptError, deliveryItem, EXPORT_FORMATS, formatExport, type ExportFormat, type ExportItem } from './events-export.js';
import { exportHeaders } from './captured-request.js';
import { asJson, attemptJson } from './events-rows.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, withStore } from './events-store-access.js';
import { reportProblems } from './shared-options.js';
import { optionOfValues } from './completion-tree.js';

export function registerEventsExportCommand(events: Command): void {
  events
    .command('export')
    .description('stored deliveries with their raw bodies, newest first, or one delivery or one attempt of it (rejected and faulted ones too), for sharing, tests and `hookrelay verify`')
    .argument('[id]', 'only this delivery id (x-service-delivery); needed for --attempt and --format capture')
    .addOption(optionOfValues('--format <format>', `one of ${EXPORT_FORMATS.join(', ')} (capture: one request as \`hookrelay verify\` reads it)`, EXPORT_FORMATS, 'ndjson'))
    .option('--attempt <n>', 'one attempt of the id, numbered as `events show` numbers them (1 = its first; redirect hops are part of their attempt, which exports as the hop that ended it, as show prints it), whatever its outcome')
    .option('--include-signature', 'keep x-service-signature as received (default: its v1 MACs are written as "redacted"; `verify` then checks everything else)')
    .option('--trigger <trigger>', 'only this trigger')
    .option('--limit <n>', 'how many (1-100000)', '1000')
    .option('--url <url>', 'receiver URL to put in HAR, curl and capture output', 'http://127.0.0.1:4000/webhooks')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .option('--json', 'NDJSON of the shapes `events list --json` and `events show --json` print: a stored delivery a line, or with --attempt the attempt (docs/cli-json.md); the signature redacted as in every format')
    .addHelpText('after', `
Every format redacts the signature: a MAC and the body it signs are enough to guess a weak secret
offline, and an export is made to be shared. --include-signature keeps it, e.g. to judge a rejected
attempt again:

  npx hookrelay events export <id> --attempt 1 --format capture --include-signature > attempt.http
  npx hookrelay verify attempt.http --secret "$WEBHOOK_SECRET"

A capture records the arrival time (x-hookrelay-received-at), and verify judges the signature's t
against it, so the verdict is the receiver's.`)
    .action(async function (this: Command, id: string | undefined, flags: { format: string; attempt?: string; includeSignature?: boolean; trigger?: string; limit: string; url: string; db?: string; store?: string; config?: string; json?: boolean }) {
      const problems: string[] = [];
      if (!EXPORT_FORMATS.includes(flags.format as ExportFormat)) problems.push(`--format: must be one of ${EXPORT_FORMATS.join(', ')}, got ${JSON.stringify(flags.format)}`);
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) problems.push(`--limit: must be a whole number from 1 to 100000, got ${JSON.stringify(flags.limit)}`);
      const attemptNumber = flags.attempt === undefined ? undefined : Number(flags.attempt);
      if (attemptNumber !== undefined && (!Number.isSafeInteger(attemptNumber) || attemptNumber < 1)) problems.push(`--attempt: must be a whole number from 1 (as \`events show\` numbers attempts), got ${JSON.stringify(flags.attempt)}`);
      if (id === undefined && flags.attempt !== undefined) problems.push('--attempt needs the delivery id: hookrelay events export <id> --attempt <n>');
      if (id === undefined && flags.format === 'capture') problems.push('--format capture holds one request: give the delivery id (and --attempt <n> for one of its attempts)');
      if (flags.json && this.getOptionValueSource('format') === 'cli') problems.push('--json is its own output: leave out --format (--format ndjson is the export record for sharing, with the body in base64)');
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
          if (flags.json) return void process.stdout.write(`${JSON.stringify(redacted(item.json, options.includeSignature))}\n`);
          items = [item.item];
        } else {
          const deliveries: StoredDelivery[] = [];
          const progress = createProgressLine({ label: 'read (deliveries)', total: null, stream: process.stderr });
          let before: number | undefined;
          while (deliveries.length < limit) {
            const page = await reader.listDeliveries({ limit: Math.min(500, limit - deliveries.length), trigger: flags.trigger, before });
            deliveries.push(...page.items);
            progress.update(deliveries.length, deliveries.length);
            if (page.nextCursor === null) break;
            before = page.nextCursor;
          }
          progress.end();
          if (flags.json) return void process.stdout.write(deliveries.map((d) => `${JSON.stringify(redacted(asJson(d), options.includeSignature))}\n`).join(''));
          items = deliveries.map(deliveryItem);
        }
        try {
          process.stdout.write(formatExport(format, items, flags.url, options));
        } catch (err) {
          if (!(err instanceof BodyNotKeptError)) throw err;
          process.stderr.write(`hookrelay: ${printable(err.message, 400)}\n`);
          process.exitCode = 1;
        }
      });
    });
}

/**
 * One delivery (no `attempt`), or its attempt number `attempt` (oldest first, 1-based, as `events
 * show` numbers them), as an export item; or why not. An attempt that followed redirect hops
 * exports as the hop that ended it: the arrival whose answer `events show` prints as the attempt's
 * (`200 accepted`, not the first hop's `307 faulted`); every hop re-sent the same body and
 * signature, so it is also the request the receiver judged last. Its `hop` field says which.
 */
async function exportOne(reader: StoreReader, id: string, attempt: number | undefined): Promise<{ ok: true; item: ExportItem; json: Exported } | { ok: false; message: string }> {
  const delivery = await reader.getDelivery(id);
  const senderAttempts = async () => splitSenderAttempts((await reader.listAttempts({ deliveryId: id, limit: 1000, withRequest: true })).reverse());
  if (attempt === undefined) {
    if (delivery) return { ok: true, item: deliveryItem(delivery), json: asJson(delivery) };
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
  return { ok: true, item: { ...item, body, fields: { ...item.fields, hop } }, json: attemptJson(chosen, attempt, hop) };
}

type Exported = ReturnType<typeof asJson> | ReturnType<typeof attemptJson>;

/** A delivery's or an attempt's JSON with the signature header's MACs redacted, as every export has them unless --include-signature. */
function redacted(record: Exported, includeSignature: boolean): Exported {
  if ('request' in record) return record.request === null ? record : { ...record, request: { ...record.request, headers: exportHeaders(record.request.headers, includeSignature) } };
  return { ...record, headers: exportHeaders(record.headers, includeSignature) };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
