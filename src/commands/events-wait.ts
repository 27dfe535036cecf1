/**
 * `hookrelay events wait`: exits 0 with the delivery as JSON on stdout once a matching delivery is
 * stored, 1 at the timeout, 2 for bad flags. Beside a running `listen`: on SQLite through a
 * read-only connection that reads forward from a cursor every 200 ms; on PostgreSQL woken by the
 * store's LISTEN/NOTIFY (src/store/postgres/pg-shared-hub.ts), with a slow read as a safety net.
 */
import { EXIT } from '../core/exit-codes.js';
import type { Command } from 'commander';
import { resolveStoreLocation } from '../config/db-path.js';
import { decodeBodyLeniently } from '../core/envelope.js';
import { parseDuration } from '../core/duration.js';
import { createEventHub } from '../runtime/event-hub.js';
import { NoStoreError, openStoreReader, type StoreLocation, type StoreReader } from '../store/open-store.js';
import type { StoredDelivery } from '../store/store.js';
import { describeFilter, matchesFilter, parseWhere, type DeliveryFilter, type WhereCondition } from '../core/delivery-filter.js';
import { watchForDelivery } from '../testing/watch-store.js';
import { asJson as storedDeliveryJson } from './events-rows.js';
import { collect, reportProblems } from './shared-options.js';

interface WaitFlags {
  trigger?: string;
  delivery?: string;
  where?: string[];
  timeout: string;
  since: string;
  db?: string;
  store?: string;
  config?: string;
  json?: boolean;
}

const MAX_TIMEOUT_MS = 24 * 3_600_000;

/** Registers `wait` on the `events` command (src/commands/events.ts). */
export function registerEventsWaitCommand(events: Command): Command {
  return events
    .command('wait')
    .description('wait until a matching delivery is stored (by a running listen), print it as JSON, exit 0; exit 1 at the timeout')
    .option('--trigger <glob>', 'the trigger, or a glob of it (`*` any run, `?` one character): trustcenter.*')
    .option('--delivery <id>', 'the delivery id (x-service-delivery)')
    .option('--where <path=value>', 'a condition on the body, e.g. data.accessRequestId=ar_1 or $.data.watermarked=true; repeat for several (all must hold)', collect)
    .option('--timeout <duration>', 'give up after this long (e.g. 30s, 2m; a bare number is seconds)', '30s')
    .option('--since <when>', 'now: only deliveries stored after the wait starts; a date (2026-06-01T10:00:00Z) or a duration ago (10m): also those received since then', 'now')
    .option('--db <file>', 'SQLite file (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--store <url>', 'a postgres:// URL instead of the SQLite file [env HOOKRELAY_STORE]')
    .option('--config <file>', 'config file to read db and store from')
    .option('--json', 'print the delivery on one line as `events list --json` and `events show --json` print a stored delivery (docs/cli-json.md), without the parsed `event`')
    .addHelpText('after', `
Examples:
  npx hookrelay events wait --trigger trustcenter.access_approved --where data.accessRequestId=ar_1 --timeout 30s
  npx hookrelay events wait --delivery 6f1c… --since 2026-06-01T10:00:00Z | jq .event.data

Exit code: 0 a matching delivery was stored (JSON on stdout), 1 none within --timeout, 2 bad flags or no store, 3 the store could not be read.`)
    .action(async (flags: WaitFlags) => {
      const problems: string[] = [];
      const timeout = parseDuration(flags.timeout, { bare: 's', min: 1, max: MAX_TIMEOUT_MS });
      if (!timeout.ok) problems.push(`--timeout: must be a duration from 1ms to 24h such as 30s or 2m, got ${JSON.stringify(flags.timeout)}`);
      const since = parseSince(flags.since, Date.now());
      if (!since.ok) problems.push(since.message);
      const where: WhereCondition[] = [];
      for (const text of flags.where ?? []) {
        const parsed = parseWhere(text);
        if (parsed.ok) where.push(...parsed.value);
        else problems.push(parsed.message);
      }
      if (flags.trigger === '') problems.push('--trigger: must not be empty');
      const location = resolveStoreLocation(flags);
      if (!location.ok) problems.push(...location.problems);
      if (problems.length > 0 || !location.ok || !timeout.ok || !since.ok) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      const filter: DeliveryFilter = { trigger: flags.trigger, deliveryId: flags.delivery, where };
      const deadline = Date.now() + timeout.ms;
      const found = await waitInStore(location.location, filter, since.value, deadline);
      if (found.kind === 'found') {
        // --json: the shared stored delivery (docs/cli-json.md); without it, as before, pretty with `event`.
        process.stdout.write(flags.json ? `${JSON.stringify(storedDeliveryJson(found.delivery))}\n` : `${JSON.stringify(asJson(found.delivery), null, 2)}\n`);
        return;
      }
      if (found.kind === 'error') {
        process.stderr.write(`hookrelay: ${found.message}\n`);
        process.exitCode = found.code;
        return;
      }
      const from = since.value === null ? 'stored after the wait started' : `received since ${new Date(since.value).toISOString()}`;
      process.stderr.write(`hookrelay: no delivery matching ${describeFilter(filter)} ${from} within ${flags.timeout}\n`);
      process.exitCode = EXIT.finding;
    });
}

type Since = { ok: true; value: number | null } | { ok: false; message: string };

/** `now` → null (only what is stored after the start); a date; or a duration ago. */
function parseSince(text: string, now: number): Since {
  if (text === 'now') return { ok: true, value: null };
  const ago = parseDuration(text, { max: 366 * 86_400_000 });
  if (ago.ok) return { ok: true, value: now - ago.ms };
  const date = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(date)) return { ok: false, message: `--since: must be now, a date such as 2026-06-01T10:00:00Z, or a duration ago such as 10m, got ${JSON.stringify(text.slice(0, 80))}` };
  return { ok: true, value: date };
}

type Found = { kind: 'found'; delivery: StoredDelivery } | { kind: 'timeout' } | { kind: 'error'; message: string; code: number };

async function waitInStore(location: StoreLocation, filter: DeliveryFilter, sinceMs: number | null, deadline: number): Promise<Found> {
  const reader = await openWhenThere(location, deadline);
  if ('error' in reader) return { kind: 'error', message: reader.error, code: reader.code };
  let wake: ((listener: () => void) => () => void) | undefined;
  let closeBridge: (() => Promise<void>) | undefined;
  try {
    if (location.kind === 'postgres') {
      const hub = createEventHub();
      const { shareHubThroughPostgres } = await import('../store/postgres/pg-shared-hub.js');
      const bridge = await shareHubThroughPostgres(location.url, hub);
      closeBridge = () => bridge.close();
      wake = (listener) => hub.on('delivery', listener);
    }
    const delivery = await watchForDelivery({
      reader,
      matches: (d) => matchesFilter(filter, d),
      triggers: filter.trigger === undefined ? undefined : [filter.trigger],
      sinceMs,
      deadline,
      clock: Date.now,
      wake,
      // NOTIFY is best effort (lost while the connection is down): a slow read catches what it missed.
      pollMs: wake ? 1_000 : 200,
      lagSeqs: location.kind === 'postgres' ? 64 : 0,
      // On stderr, so stdout stays the delivery alone; a script may start the sender once it shows.
      onReady: () => process.stderr.write(`hookrelay: waiting for ${describeFilter(filter)} ${sinceMs === null ? 'stored from now on' : `received since ${new Date(sinceMs).toISOString()}`}\n`),
    });
    return delivery ? { kind: 'found', delivery } : { kind: 'timeout' };
  } catch (err) {
    return { kind: 'error', message: (err as Error).message, code: EXIT.couldNotRun };
  } finally {
    await closeBridge?.();
    await reader.close();
  }
}

/**
 * Opens the store for reading. A SQLite file that is not there yet (the wait started before
 * `listen` made it) is waited for until the deadline.
 */
async function openWhenThere(location: StoreLocation, deadline: number): Promise<StoreReader | { error: string; code: number }> {
  for (;;) {
    try {
      return await openStoreReader(location);
    } catch (err) {
      // There but unreadable (damaged, busy, a refused connection): could not run.
      if (!(err instanceof NoStoreError)) return { error: (err as Error).message, code: EXIT.couldNotRun };
      const left = deadline - Date.now();
      // Never there: a wrong --db, or no listen, is not "no matching delivery".
      if (left <= 0) return { error: err.message, code: EXIT.usage };
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, 200)));
    }
  }
}

function asJson(delivery: StoredDelivery) {
  const { rawBody, ...rest } = delivery;
  const body = decodeBodyLeniently(rawBody);
  let event: unknown = null;
  try {
    event = JSON.parse(body);
  } catch {
    /* stored deliveries passed the envelope check; null only guards a store gone wrong */
  }
  return { ...rest, bodyBytes: rawBody.length, body, event };
}
