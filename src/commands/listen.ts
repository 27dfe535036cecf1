/** `hookrelay listen`: flags, env and config file → config → buildApp. Nothing else lives here. */
import { EXIT } from '../core/exit-codes.js';
import { DEFAULT_DB_PATH } from '../config/data-dir.js';
import { useColor } from '../config/terminal.js';
import { shellQuote } from '../core/shell-command.js';
import { displayUrl } from '../core/url-secrets.js';
import { outputRedactor } from '../config/output-redactor.js';
import { Option, type Command } from 'commander';
import { X509Certificate } from 'node:crypto';
import { resolve } from 'node:path';
import { buildApp, type AppHandle } from '../app/build-app.js';
import { secretHint } from '../config/data-dir.js';
import { resolveListenConfig, type ListenConfig, type TlsPair } from '../config/listen-config.js';
import { LISTEN_OPTIONS } from '../config/option-specs.js';
import { printable } from '../reporter/printable.js';
import { formatRetainDuration } from '../store/retention.js';
import { attachTerminalReporter } from '../reporter/terminal-reporter.js';
import { consoleTokenNote, metricsUrl, shownConsoleUrl } from './console-url.js';
import { addSpecOptions, forwardDetailLines, reportProblems, typedOptions } from './shared-options.js';
import { isAnyAddress } from '../runtime/hosts.js';

export function registerListenCommand(program: Command): void {
  const command = program
    .command('listen')
    .description('run the receiver: verify, store durably, dedupe, and show every attempt')
    .option('--config <file>', 'config file (default: hookrelay.config.json in this folder, if present)');
  addSpecOptions(command, LISTEN_OPTIONS);
  command.addOption(new Option('--test-commit-delay <ms>', 'slow-disk simulation for crash tests').hideHelp());
  command.addHelpText(
    'after',
    `
Every flag can also come from its HOOKRELAY_* variable or from hookrelay.config.json
(keys: ${LISTEN_OPTIONS.map((s) => s.key).join(', ')}); a flag wins over the variable, the variable over the file.
With no --secret, hookrelay makes a development secret in the data folder and prints its hint (the
secret itself stays in that file).

Fault rules (docs/faults.md) are tried in order, first match wins:
  npx hookrelay listen --fault '503 retry-after=120 attempt=1' --fault 'hang attempt=2'

Routes (docs/relay.md) are tried in order, the first whose glob matches the trigger wins;
--forward-to takes every delivery no route matches:
  npx hookrelay listen --forward-to http://127.0.0.1:3000/webhooks \\
    --route 'vendor.*=http://127.0.0.1:3001/vendor' --route 'trustcenter.*=https://localhost:3443/tc' --forward-insecure

Fan-out: a route may name several targets, and every --also that matches adds its own; each target
gets its own job, retries and dead state:
  npx hookrelay listen --forward-to http://127.0.0.1:3000/webhooks --also '*=http://127.0.0.1:3005/audit'

Without a TLS proxy in front (docs/deploy.md), the receiver and the bridge listener serve HTTPS:
  npx hookrelay listen --tls-cert cert.pem --tls-key key.pem

Secrets (--secret, --forward-secret, --console-token, --bridge-token) are best given in their
HOOKRELAY_* variables: on the command line, ps shows them to every user of this machine.

Example:
  HOOKRELAY_SECRET="$WEBHOOK_SECRET" npx hookrelay listen --port 4000`,
  );
  command.action(async () => {
    const flags = typedOptions(command);
    const result = resolveListenConfig({
      flags,
      configFile: flags.config as string | undefined,
      configFileRequired: flags.config !== undefined,
    });
    if (!result.ok) {
      reportProblems(result.problems);
      process.exitCode = EXIT.usage;
      return;
    }
    await runListen(result.config, result.warnings);
  });
}

async function runListen(config: ListenConfig, warnings: string[]): Promise<void> {
  const out = process.stdout;
  let app: AppHandle;
  try {
    app = await buildApp(config);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const message =
      e.code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use: stop the other process or pass --port`
        : e.code === 'EACCES'
          ? `not allowed to listen on ${config.host}:${config.port}: pick a port above 1024 with --port`
          : e.message;
    process.stderr.write(`hookrelay: cannot start: ${message}\n`);
    process.exitCode = EXIT.couldNotRun;
    return;
  }
  // The config every part read: its development secret settled (src/app/dev-secret.ts).
  config = app.config;
  const color = useColor(out);
  const redact = outputRedactor([...config.secrets, ...(config.console?.token ? [config.console.token] : [])], config.forward, [config.storeUrl]);
  const reporter = attachTerminalReporter(app.hub, { format: config.logFormat, out, color, redact });
  if (config.logFormat === 'pretty') out.write(banner(app, config, warnings));
  else if (reporter.logger) {
    const faults = app.faults.list();
    // Tests and the benchmark read `receiver` from this line: keep it a top-level field.
    reporter.logger.info(
      {
        event: 'listening',
        receiver: app.receiverUrl,
        health: new URL('/healthz', app.receiverUrl).href,
        db: config.storeUrl ? displayUrl(config.storeUrl) : resolve(config.dbPath),
        skipVerify: config.skipVerify,
        console: app.consoleUrl ? shownConsoleUrl(app.consoleUrl, config.console?.token) : null,
        bridge: app.bridgeUrl,
        metrics: app.consoleUrl ? shownConsoleUrl(metricsUrl(app.consoleUrl), config.console?.token) : null,
        forwardTo: config.forward ? displayUrl(config.forward.to) : null,
        // `url`: the first target, as before fan-out; `urls`: every one; `also` for an --also route.
        routes: (config.forward?.routes ?? []).map(({ glob, urls, also }) => ({ glob, url: displayUrl(urls[0]!), urls: urls.map((u) => displayUrl(u)), ...(also ? { also: true } : {}) })),
        tls: config.tls ? { cert: config.tls.certFile } : null,
        retain: config.retainMs ? formatRetainDuration(config.retainMs) : 'off',
        secretHints: config.secrets.map(secretHint),
        ...(faults.length > 0 ? { faultRules: faults.map(({ id, line }) => ({ id, line })), seed: app.faults.seed } : {}),
      },
      'listening',
    );
    warnings.forEach((w) => app.hub.emit('notice', { level: 'warn', message: w }));
  }
  // Once the start is shown: what an earlier run left (relay jobs by target), and a secret another start kept first.
  for (const notice of app.startNotices) app.hub.emit('notice', notice);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      process.stderr.write(`hookrelay: ${signal} again, exiting now\n`);
      // 128 + the signal's number, as shells report it: 130 for SIGINT, 143 for SIGTERM.
      process.exit(signal === 'SIGTERM' ? 143 : EXIT.interrupted);
    }
    stopping = true;
    app.hub.emit('notice', { level: 'info', message: `${signal}: stopping — finishing in-flight commits` });
    reporter.flush();
    await app.close();
    app.hub.emit('notice', { level: 'info', message: 'stopped; the database is closed' });
    reporter.flush();
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

function banner(app: AppHandle, config: ListenConfig, warnings: string[]): string {
  const lines = [
    'hookrelay is listening',
    `  receiver   POST ${app.receiverUrl}   (health: GET ${app.receiverUrl.replace(config.path, '/healthz')})`,
    ...(isAnyAddress(config.host) ? [`             bound to ${config.host.includes(':') ? `[${config.host.replace(/^\[|\]$/g, '')}]` : config.host}: reachable on every network interface of this machine, not only here`] : []),
    config.storeUrl
      ? `  database   ${displayUrl(config.storeUrl)}   (PostgreSQL, shared by every instance on it)`
      : `  database   ${resolve(config.dbPath)}   (WAL, synchronous=FULL)`,
    `  tolerance  ${config.toleranceSeconds} s, past and future`,
    `  retention  ${config.retainMs ? `${formatRetainDuration(config.retainMs)} (pruned at start and hourly; never a delivery whose relay is pending)` : 'off: everything is kept'}`,
  ];
  if (app.bridgeUrl) {
    lines.push(`  bridge     ${app.bridgeUrl}   (${config.bridge!.tokens.map((t) => `${t.name}${t.triggers.length ? ` [${t.triggers.join(',')}]` : ''}`).join(', ')}; laptops: HOOKRELAY_CONNECT_TOKEN=… hookrelay connect <public wss:// URL>)`);
  }
  if (app.consoleUrl) {
    const given = config.console?.token;
    lines.push(`  console    ${shownConsoleUrl(app.consoleUrl, given)}${consoleTokenNote(app.consoleToken !== null, given)}`);
    lines.push(`  metrics    ${shownConsoleUrl(metricsUrl(app.consoleUrl), given)}   (Prometheus; readiness: GET ${new URL('/readyz', app.receiverUrl).href})`);
  }
  if (config.forward) {
    const f = config.forward;
    lines.push(
      `  forward    ${printable(displayUrl(f.to), 200)}   (${f.mode === 'sync' ? 'sync: the sender gets the app\'s answer' : `durable outbox, up to ${f.maxTries} tries`}; signed with ${f.secret === config.secrets[0] ? 'the primary secret' : `--forward-secret ${secretHint(f.secret)}`})`,
      ...forwardDetailLines(f),
    );
  }
  if (config.tls) lines.push(`  tls        ${printable(config.tls.certFile, 200)}   (the receiver${app.bridgeUrl ? ' and the bridge listener' : ''} serve TLS themselves)`);
  if (config.skipVerify) {
    lines.push('  SIGNATURES ARE NOT VERIFIED (--skip-verify): anyone who can reach this port can store deliveries');
  } else if (config.devSecret) {
    lines.push(
      // A hint only, as everywhere a secret is shown: the terminal's output ends up in logs and CI.
      `  secret     development secret ${secretHint(config.secrets[0]!)} ${config.devSecret.created ? 'made now and ' : ''}kept in ${config.devSecret.file}`,
      `             (your app reads it from there: \`cat ${shellQuote(config.devSecret.file)}\`)`,
      `             \`${sendCommand(app.receiverUrl, config.dbPath, config.tls)}\` signs with it; pass --secret to use your own.`,
    );
  } else if (config.secretSet) {
    lines.push(
      `  secrets    ${config.secrets.map((s, i) => `#${i + 1} ${secretHint(s)}`).join(', ')}`,
      `             ${config.secretSet.count} kept by \`webhooks create --signing\` in ${printable(config.secretSet.file, 200)} (\`hookrelay secrets list\`)${config.secrets.length > config.secretSet.count ? ', then the development secret' : ''}`,
    );
  } else {
    lines.push(`  secrets    ${config.secrets.map((s, i) => `#${i + 1} ${secretHint(s)}`).join(', ')}`);
  }
  lines.push(...faultLines(app, config));
  for (const warning of warnings) lines.push(`  warning    ${warning}`);
  lines.push('Waiting for deliveries. Ctrl-C to stop.', '');
  return `${lines.join('\n')}\n`;
}

/** The active fault rules, one a line, and the seed when a rule draws on it. */
function faultLines(app: AppHandle, config: ListenConfig): string[] {
  const rules = app.faults.list();
  if (rules.length === 0) return [];
  const width = Math.max(...rules.map((r) => r.id.length));
  const lines = rules.map((r, i) => `${i === 0 ? '  faults     ' : '             '}${printable(r.id, 64).padEnd(width)}  ${printable(r.line, 160)}`);
  if (rules.some((r) => r.rule.match?.p !== undefined)) {
    lines.push(`             seed ${app.faults.seed}${config.seed === undefined ? ` (random: --seed ${app.faults.seed} repeats this run)` : ''}`);
  }
  lines.push('             tried in order: the first matching rule answers, no match is handled normally');
  return lines;
}

/** The `send` that signs with this development secret: it finds the secret beside the database, so a custom --db goes with it. */
function sendCommand(receiverUrl: string, dbPath: string, tls: TlsPair | null | undefined): string {
  const db = resolve(dbPath) === resolve(DEFAULT_DB_PATH) ? '' : ` --db ${shellQuote(dbPath)}`;
  // A self-signed certificate (a local --tls-cert) is trusted by no one: `send` needs it named.
  const trust = tls && isSelfSigned(tls.cert) ? `NODE_EXTRA_CA_CERTS=${shellQuote(tls.certFile)} ` : '';
  return `${trust}npx hookrelay send --to ${shellQuote(receiverUrl)}${db}`;
}

function isSelfSigned(pem: string): boolean {
  try {
    const cert = new X509Certificate(pem);
    return cert.issuer === cert.subject;
  } catch {
    return false;
  }
}
