/** `hookrelay connect <url>`: a local hookrelay fed by a public one's bridge (docs/bridge.md). */
import { EXIT } from '../core/exit-codes.js';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { BRIDGE_TOKEN_NAME_RULE, isBridgeTokenName } from '../config/bridge-settings.js';
import { CONNECT_LOCAL_OPTIONS, resolveConnectConfig, type ConnectFlags } from '../config/connect-config.js';
import { PROCESS_LIST_NOTE } from '../config/secret-flags.js';
import { secretHint } from '../config/data-dir.js';
import { displayUrl } from '../core/url-secrets.js';
import { outputRedactor } from '../config/output-redactor.js';
import { useColor } from '../config/terminal.js';
import { attachTerminalReporter } from '../reporter/terminal-reporter.js';
import { printable } from '../reporter/printable.js';
import { consoleTokenNote, shownConsoleUrl } from './console-url.js';
import { addSpecOptions, forwardDetailLines, reportProblems, typedOptions } from './shared-options.js';

export function registerConnectCommand(program: Command): void {
  const command = program
    .command('connect')
    .description("receive a public hookrelay's deliveries on this machine through its bridge: stored here, handed to your app, nothing lost while offline")
    .argument('<url>', 'the public bridge, e.g. wss://hooks.example.com/bridge (ws:// only on this machine unless --insecure)')
    .option('--token <token>', `a token the public side was given with --bridge-token; ${PROCESS_LIST_NOTE} [env HOOKRELAY_CONNECT_TOKEN]`)
    .option('--name <name>', 'this subscriber: its cursor is kept under this name (default: the host name) [env HOOKRELAY_CONNECT_NAME]')
    .option('--insecure', 'allow ws:// to another machine (the token and deliveries travel in clear text)')
    .option('--since <when>', 'ask the public side to send a window again at the first connection: a time ago (30m, 2h, 7d) or a sequence number (seq:1200); to fill a wiped laptop store')
    .option('--config <file>', 'config file (default: hookrelay.config.json in this folder, if present)');
  addSpecOptions(command, CONNECT_LOCAL_OPTIONS);
  command.addHelpText(
    'after',
    `
Example (the public side runs: HOOKRELAY_BRIDGE_TOKEN="laptop:$TOKEN" hookrelay listen --bridge-port 4002).
The token (and --forward-secret, --console-token) are best given in the environment: on the command
line, ps shows them to every user.
  export HOOKRELAY_CONNECT_TOKEN="$TOKEN"
  npx hookrelay connect wss://hooks.example.com/bridge --forward-to http://127.0.0.1:3000/webhooks

Routes: the first --route whose glob matches the trigger wins; --forward-to takes the rest:
  npx hookrelay connect wss://hooks.example.com/bridge --forward-to http://127.0.0.1:3000/webhooks \\
    --route 'vendor.*=https://localhost:3443/vendor' --forward-ca ./dev-ca.pem
Fan-out: --also '*=http://127.0.0.1:3005/audit' hands every delivery there too (docs/relay.md "Fan-out").

A public side serving its own self-signed certificate (listen --tls-cert): trust it with --bridge-ca cert.pem`,
  );
  command.action(async (url: string) => {
    const flags = typedOptions(command) as ConnectFlags;
    const resolved = resolveConnectConfig(url, flags);
    if (!resolved.ok) {
      reportProblems(resolved.problems);
      process.exitCode = EXIT.usage;
      return;
    }
    const given = resolved.config;
    for (const warning of resolved.warnings) process.stderr.write(`hookrelay: warning: ${warning}\n`);
    let app;
    let route: string | null = null;
    try {
      const [{ buildConnect }, { describeRoute, proxyRoute }] = await Promise.all([import('../app/build-connect.js'), import('../runtime/proxy.js')]); // ws and the bridge client, on use
      const { explicit, https, http } = given.proxy ?? { explicit: null, https: null, http: null };
      // Shown only when a proxy is set at all: the banner of a direct connect stays as it was.
      if (explicit || https || http) route = describeRoute(proxyRoute(given.url, given.proxy));
      app = await buildConnect(given);
    } catch (err) {
      process.stderr.write(`hookrelay: cannot start: ${(err as Error).message}\n`);
      process.exitCode = EXIT.couldNotRun;
      return;
    }
    // The config as the node settled it (the development secret another start kept, if so).
    const config = app.config;
    // A proxy's user name and password too, wherever a line would carry them past displayUrl.
    const proxies = [config.proxy?.explicit, config.proxy?.https, config.proxy?.http].map((source) => source?.url);
    const redact = outputRedactor([config.token], config.forward, [config.url, config.storeUrl, ...proxies]);
    attachTerminalReporter(app.hub, { format: config.logFormat, out: process.stdout, color: useColor(process.stdout), redact });
    if (config.logFormat === 'pretty') {
      process.stdout.write(
        [
          'hookrelay is connecting',
          `  bridge     ${printable(displayUrl(config.url), 200)} as ${config.name} (token ${secretHint(config.token)})`,
          ...(route ? [`  proxy      ${printable(route, 240)}`] : []),
          `  database   ${config.storeUrl ? 'PostgreSQL' : resolve(config.dbPath)}`,
          ...(config.forward ? [`  forward    ${printable(displayUrl(config.forward.to), 200)}   (signed with ${config.devSecret ? `the development secret in ${config.devSecret.file}` : `--forward-secret ${secretHint(config.forward.secret)}`})`, ...forwardDetailLines(config.forward)] : ['  forward    off: deliveries are stored and shown; pass --forward-to to hand them to your app']),
          ...(app.consoleUrl ? [`  console    ${shownConsoleUrl(app.consoleUrl, config.console?.token)}${consoleTokenNote(app.consoleToken !== null, config.console?.token)}`] : []),
          'Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
    }
    // Once the start is shown: the relay jobs an earlier run left, by target.
    for (const notice of app.startNotices) app.hub.emit('notice', notice);
    let stopping = false;
    const stop = async (code: number) => {
      if (stopping) return;
      stopping = true;
      await app.close();
      process.exitCode = code;
    };
    process.once('SIGINT', () => void stop(0));
    process.once('SIGTERM', () => void stop(0));
    void app.refused.then(async (message) => {
      // The terminal (pretty or JSON) has shown it as an error already; silent shows nothing else.
      if (config.logFormat === 'silent') process.stderr.write(`hookrelay: ${message}\n`);
      // Refused by the public side (a wrong or revoked token, a version it does not speak): could not run.
      await stop(EXIT.couldNotRun);
    });
  });
}

export function registerBridgeCommand(program: Command): void {
  const bridge = program.command('bridge').description('the bridge between a public hookrelay and laptops (docs/bridge.md)');
  bridge
    .command('token')
    .description('print a fresh random bridge token (32 random bytes, base64url)')
    .option('--name <name>', 'print it as NAME:TOKEN, ready for --bridge-token')
    .option('--json', 'print one object: the name (or null), the token, and the value for --bridge-token; it holds the token, as the plain output does (docs/cli-json.md)')
    .action((flags: { name?: string; json?: boolean }) => {
      if (flags.name !== undefined && !isBridgeTokenName(flags.name)) {
        // Not echoed: a token pasted here by mistake would be printed.
        reportProblems([`--name must be ${BRIDGE_TOKEN_NAME_RULE} (listen --bridge-token refuses any other NAME)`]);
        process.exitCode = EXIT.usage;
        return;
      }
      const token = randomBytes(32).toString('base64url');
      const value = `${flags.name ? `${flags.name}:` : ''}${token}`;
      process.stdout.write(flags.json ? `${JSON.stringify({ name: flags.name ?? null, token, bridgeToken: value })}\n` : `${value}\n`);
    });
}
