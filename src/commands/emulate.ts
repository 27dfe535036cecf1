/** `hookrelay emulate`, `emulate keys`, `emulate fire`: the service's webhook API on localhost (docs/emulate.md). */
import { EXIT } from '../core/exit-codes.js';
import type { Command } from 'commander';
import { dataDirOf, secretHint } from '../config/data-dir.js';
import { DEFAULT_EMULATOR_DB, resolveEmulateConfig, resolveEmulatorDbPath, resolveFireConfig, type EmulateFlags, type EmulatorConfig, type FireFlags } from '../config/emulate-config.js';
import type { EngineEvent } from '../emulator/delivery-engine.js';
import { postEvent } from '../emulator/control-client.js';
import { readKeysFile, type KeysFile } from '../emulator/key-material.js';
import { PROCESS_LIST_NOTE } from '../config/secret-flags.js';
import { API_KEY_FLAG_WARNING } from '../config/service-settings.js';
import { PROXY_OPTION } from '../config/option-specs.js';
import { printable } from '../reporter/printable.js';
import { displayUrl } from '../core/url-secrets.js';
import type { ProxySettings, ProxySource } from '../runtime/proxy.js';
import { collect, reportProblems, typedOptions } from './shared-options.js';

export function registerEmulateCommand(program: Command): void {
  // `emulate --db FILE keys` says where as well as `emulate keys --db FILE`; the latter wins.
  const parentDb = (): string | undefined => typedOptions(emulate).db as string | undefined;
  const emulate = program
    .command('emulate')
    .description("emulate the service's webhook API on localhost (/v1/webhooks…, keys and scopes, rate limits) with a durable delivery engine")
    .option('--port <port>', 'API port (default: 4100) [env HOOKRELAY_EMULATE_PORT]')
    .option('--host <host>', 'address to bind (default: 127.0.0.1) [env HOOKRELAY_EMULATE_HOST]')
    .option('--db <path>', 'SQLite file; its folder keeps the API keys and the encryption key (default: .hookrelay/emulator.db) [env HOOKRELAY_EMULATE_DB]')
    .option('--time-scale <factor>', 'multiply every wait between attempts, as send does (default: 1) [env HOOKRELAY_EMULATE_TIME_SCALE]')
    .option('--ssrf <mode>', 'endpoint rule: loopback (also http(s) to 127.0.0.1, ::1, localhost) or strict (the service: public https only) (default: loopback) [env HOOKRELAY_EMULATE_SSRF]')
    .option('--plan <plan>', 'core (Trust Center triggers not entitled) or premium (default: core) [env HOOKRELAY_EMULATE_PLAN]')
    .option('--webhook-cap <n>', "the plan's webhook-count cap per organization (default: 10) [env HOOKRELAY_EMULATE_WEBHOOK_CAP]")
    .option('--rate-limit <mode>', 'on (300 reads, 120 writes a minute per key), off, or a window scale such as 0.01 (default: on) [env HOOKRELAY_EMULATE_RATE_LIMIT]')
    .option('--seed <n>', 'seed of the retry jitter and sample data (default: random) [env HOOKRELAY_EMULATE_SEED]')
    .option('--key <NAME:SCOPES>', 'add an API key to organization A, e.g. ci:webhooks:read; repeatable [env HOOKRELAY_EMULATE_KEY, one per line]', collect)
    .option('--proxy <url>', `the delivery engine's HTTP proxy (http://[user:password@]host:port) for every attempt, loopback endpoints included; without it HTTPS_PROXY or HTTP_PROXY apply, never to loopback; NO_PROXY is honoured; docs/operate.md [env ${PROXY_OPTION.env}]`)
    .addHelpText('after', '\nSee docs/emulate.md for a tour. `hookrelay emulate keys` prints the keys again; `hookrelay emulate fire --trigger T` fires an event.')
    // emulate's options end at its subcommand, so `emulate keys --db FILE` reaches keys' own --db
    // instead of being taken by this one.
    .enablePositionalOptions()
    .action(async () => {
      const resolved = resolveEmulateConfig(typedOptions(emulate) as EmulateFlags);
      if (!resolved.ok) {
        reportProblems(resolved.problems);
        process.exitCode = EXIT.usage;
        return;
      }
      for (const warning of resolved.config.warnings ?? []) process.stderr.write(`hookrelay: warning: ${warning}\n`);
      await serve(resolved.config);
    });

  emulate
    .command('keys')
    .description('print the API keys of the emulator again')
    .option('--db <path>', 'the emulator database whose folder keeps the keys (default: .hookrelay/emulator.db) [env HOOKRELAY_EMULATE_DB]')
    .option('--json', 'print one object: each organization with its keys; it holds the keys, as the plain output does (docs/cli-json.md)')
    .action((flags: { db?: string; json?: boolean }) => {
      const where = resolveEmulatorDbPath({ db: flags.db ?? parentDb() });
      if (!where.ok) {
        reportProblems(where.problems);
        process.exitCode = EXIT.usage;
        return;
      }
      const file = readKeysQuietly(where.dbPath);
      if (file === null) return;
      process.stdout.write(flags.json ? `${JSON.stringify(keysJson(file))}\n` : formatKeys(file).join('\n') + '\n');
    });

  emulate
    .command('fire [trigger]')
    .description('fire a trigger in a running emulator: one delivery per active webhook of the organization subscribed to it')
    .option('--trigger <name>', 'the trigger (see `hookrelay triggers`); required')
    .option('--count <n>', 'how many events', '1')
    .option('--data <json>', "the event's data (spec 6.2 fields, identifiers only); fields left out get sample values")
    .option('--api-url <url>', 'the emulator (default: http://127.0.0.1:4100/v1) [env HOOKRELAY_API_URL]')
    .option('--api-key <key>', `an API key with webhooks:write (default: organization A's full key from the data folder); ${PROCESS_LIST_NOTE} [env HOOKRELAY_API_KEY]`)
    .option('--db <path>', 'the emulator database whose folder keeps the keys (default: .hookrelay/emulator.db) [env HOOKRELAY_EMULATE_DB]')
    .option('--json', 'print one object: the trigger, how many events, the records created and each delivery (docs/cli-json.md)')
    .action(async (positional: string | undefined, flags: FireFlags & { json?: boolean }) => {
      // `emulate fire trustcenter.access_requested` is `emulate fire --trigger trustcenter.access_requested`.
      if (positional !== undefined && flags.trigger === undefined) flags = { ...flags, trigger: positional };
      const resolved = resolveFireConfig({ ...flags, db: flags.db ?? parentDb() });
      if (!resolved.ok) {
        reportProblems(resolved.problems);
        process.exitCode = EXIT.usage;
        return;
      }
      const { config } = resolved;
      if (flags.apiKey !== undefined) process.stderr.write(`${API_KEY_FLAG_WARNING}\n`);
      let apiKey = config.apiKey;
      if (apiKey === null) {
        const file = readKeysQuietly(config.dbPath, ', or pass a key with webhooks:write as --api-key KEY (or HOOKRELAY_API_KEY)');
        if (file === null) return;
        apiKey = file.keys.find((k) => k.organizationId === file.organizations[0]!.id && k.scopes.includes('webhooks:write'))?.key ?? null;
        if (apiKey === null) {
          process.stderr.write('hookrelay: no key with webhooks:write in the keys file; pass --api-key\n');
          process.exitCode = EXIT.usage;
          return;
        }
      }
      let answer;
      try {
        answer = await postEvent(config.apiUrl, apiKey, config.body);
      } catch (err) {
        process.stderr.write(`hookrelay: cannot reach the emulator at ${printable(config.apiUrl, 200)}: ${(err as Error).message}. Is \`hookrelay emulate\` running?\n`);
        process.exitCode = EXIT.couldNotRun;
        return;
      }
      const body = answer.body as { data?: { type: string; deliveries: Array<{ deliveryId: string; webhookId: string }>; recordIds?: string[] }; error?: string; code?: string };
      if (answer.status !== 201 || body.data === undefined) {
        const keyHint = answer.status === 401 ? `; this run sent the key ${secretHint(apiKey)}: \`hookrelay emulate keys\` lists the emulator's keys` : '';
        process.stderr.write(`hookrelay: the emulator answered ${answer.status} ${printable(String(body.code ?? ''), 40)}: ${printable(String(body.error ?? JSON.stringify(answer.body)), 500)}${keyHint}\n`);
        // What it refused as given (400, 404, 422) is usage; a key it does not take, or a failure of its own, is could not run.
        process.exitCode = answer.status === 400 || answer.status === 404 || answer.status === 409 || answer.status === 422 ? EXIT.usage : EXIT.couldNotRun;
        return;
      }
      const { deliveries } = body.data;
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ trigger: body.data.type, count: config.body.count, recordIds: body.data.recordIds ?? [], deliveries: deliveries.map((d) => ({ deliveryId: d.deliveryId, webhookId: d.webhookId })) })}\n`);
        return;
      }
      const recordName = body.data.type === 'sod.violation_detected' ? 'SoD violation' : 'access request';
      for (const id of body.data.recordIds ?? []) process.stdout.write(`Created ${recordName} ${id}\n`);
      if (deliveries.length === 0) process.stdout.write(`Fired ${config.body.count} × ${body.data.type}: no active webhook of the organization subscribes to it, so nothing is sent.\n`);
      else {
        process.stdout.write(`Fired ${config.body.count} × ${body.data.type}: ${deliveries.length} deliver${deliveries.length === 1 ? 'y' : 'ies'}\n`);
        for (const d of deliveries) process.stdout.write(`  delivery ${d.deliveryId} → webhook ${d.webhookId}\n`);
      }
    });
}

async function serve(config: EmulatorConfig): Promise<void> {
  let app;
  try {
    const { buildEmulator } = await import('../app/build-emulator.js'); // fastify and the engine, on use
    app = await buildEmulator(config, { onEvent: (event) => process.stdout.write(formatEvent(event) + '\n') });
  } catch (err) {
    process.stderr.write(`hookrelay: cannot start the emulator: ${(err as Error).message}\n`);
    process.exitCode = EXIT.couldNotRun;
    return;
  }
  const started = app;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await started.close();
      process.stdout.write('hookrelay emulate: stopped; the database is closed\n');
    } catch (err) {
      process.stderr.write(`hookrelay: the emulator did not stop cleanly: ${(err as Error).message}\n`);
      process.exitCode = EXIT.couldNotRun;
    }
  };
  // Before the banner: its "Ctrl-C to stop" holds from the moment it shows (a signal that came
  // before the handler would end the process with no stop line and the database not closed).
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  const ssrf =
    config.ssrf === 'loopback'
      ? 'loopback: public https, and also http or https to 127.0.0.0/8, ::1 and localhost (the service allows public https only: --ssrf strict)'
      : 'strict (the service): public https only; private, loopback, link-local and metadata addresses are refused';
  const rate = config.rateLimitScale === null ? 'off' : `300 reads and 120 writes a minute per key${config.rateLimitScale === 1 ? '' : ` (window ×${config.rateLimitScale})`}`;
  const proxyLines = config.proxy ? proxyLine(config.proxy) : [];
  process.stdout.write(
    [
      `hookrelay emulate: the service's webhook API at ${app.baseUrl}`,
      `  database    ${config.dbPath} (API keys and the encryption key beside it, owner-only)`,
      `  endpoints   ${ssrf}`,
      `  plan        ${config.plan}${config.plan === 'core' ? ' (the four Trust Center triggers are premium: not entitled)' : ''}; at most ${config.webhookCap} webhooks per organization`,
      `  rate limits ${rate}`,
      ...(config.timeScale === 1 ? [] : [`  waits       ×${config.timeScale} between attempts`]),
      ...proxyLines,
      `  emulator-only: POST ${app.baseUrl}/_emulator/events {"type": TRIGGER} (or \`hookrelay emulate fire --trigger TRIGGER\`) fires an event`,
      '',
      ...formatKeys(app.keys),
      '',
      'Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

/** Which attempts go through which proxy (src/runtime/proxy.ts decides each); nothing when none is set. */
function proxyLine(proxy: ProxySettings): string[] {
  const shown = (source: ProxySource) => `${printable(displayUrl(source.url).replace(/\/$/, ''), 200)} (${source.from})`;
  const named = proxy.noProxy.length > 0;
  if (proxy.explicit) return [`  proxy       every attempt through ${shown(proxy.explicit)}, loopback endpoints too${named ? ' (the hosts NO_PROXY names directly)' : ''}`];
  const parts = [...(proxy.https ? [`https endpoints through ${shown(proxy.https)}`] : []), ...(proxy.http ? [`http endpoints through ${shown(proxy.http)}`] : [])];
  return parts.length === 0 ? [] : [`  proxy       ${parts.join('; ')}; loopback${named ? ' and the hosts NO_PROXY names' : ''} directly`];
}

/** `emulate keys --json`: each organization with its keys (the keys themselves: printing them is the command's purpose). */
function keysJson(file: KeysFile): { organizations: Array<{ id: string; name: string; keys: Array<{ name: string; key: string; scopes: string[] }> }> } {
  return {
    organizations: file.organizations.map((org) => ({
      id: org.id,
      name: org.name,
      keys: file.keys.filter((k) => k.organizationId === org.id).map((k) => ({ name: k.name, key: k.key, scopes: [...k.scopes] })),
    })),
  };
}

function formatKeys(file: KeysFile): string[] {
  const lines = ['API keys (send as Authorization: Bearer KEY; `hookrelay emulate keys` prints them again):'];
  for (const org of file.organizations) {
    lines.push(`  ${org.name}  ${org.id}`);
    for (const k of file.keys.filter((key) => key.organizationId === org.id)) lines.push(`    ${k.name.padEnd(8)} ${k.key}   ${k.scopes.join(',')}`);
  }
  return lines;
}

/** The keys beside `dbPath`, or null after saying where else they may be (`orElse`: another way out). */
function readKeysQuietly(dbPath: string, orElse = ''): KeysFile | null {
  try {
    const file = readKeysFile(dataDirOf(dbPath));
    if (file !== null) return file;
    const start = `hookrelay emulate${dbPath === DEFAULT_EMULATOR_DB ? '' : ` --db ${dbPath}`}`;
    process.stderr.write(
      `hookrelay: no emulator keys in ${printable(dataDirOf(dbPath), 300)}. An emulator keeps them beside its database: ` +
        `for one started in another folder, pass its database as --db FILE (or HOOKRELAY_EMULATE_DB)${orElse}; ` +
        `else start \`${printable(start, 340)}\` once first\n`,
    );
    // No keys where the flags point: usage.
    process.exitCode = EXIT.usage;
    return null;
  } catch (err) {
    // A keys file that is there but cannot be read: could not run.
    process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
    process.exitCode = EXIT.couldNotRun;
    return null;
  }
}

function formatEvent(event: EngineEvent): string {
  if (event.type === 'suspended') {
    return `webhook ${event.webhookId} suspended (${event.reason === 'endpoint_gone' ? 'the endpoint answered 410' : 'autoDisableAfter consecutive failed deliveries'}); ${event.closedWaiting} waiting retr${event.closedWaiting === 1 ? 'y' : 'ies'} closed as webhook_inactive`;
  }
  const { delivery, attempt } = event;
  let where = '';
  try {
    const url = new URL(event.endpoint);
    where = `${url.origin}${url.pathname}`;
  } catch {
    /* never stored unparsed */
  }
  const answer = attempt.responseStatus !== null ? String(attempt.responseStatus) : (attempt.errorMessage ?? '');
  const next = delivery.status === 'retrying' ? `, next attempt at ${delivery.nextAttemptAt}` : '';
  return `${delivery.trigger} ${delivery.id} attempt ${attempt.attemptNumber} → ${printable(where, 200)}: ${answer}${attempt.failureClass ? ` (${attempt.failureClass})` : ''}; ${delivery.status}${next}`;
}
