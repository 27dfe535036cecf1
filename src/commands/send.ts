/** `hookrelay send`: the built-in sender (spec 6.1, 6.3, 6.4, 3). This file only translates flags and prints. */
import type { Command } from 'commander';
import { formatDuration, formatMs } from '../core/retry-policy/format-duration.js';
import type { RetryPolicy } from '../core/retry-policy/policy.js';
import type { Delivery } from '../core/retry-policy/delivery-state.js';
import { COULD_NOT_CONNECT } from '../core/retry-policy/classify-outcome.js';
import { EXIT_DELIVERY_FAILED, EXIT_INTERRUPTED, outputOf, reportProblems, reportUsage, type CommandOutput } from '../sender/cli-output.js';
import { systemClock } from '../sender/clock.js';
import { runDeliveries } from '../sender/engine.js';
import { formatEvent, formatSummary } from '../sender/format-timeline.js';
import { emptyTally, refusalAdvice, tallyRefusal } from '../sender/refusal-advice.js';
import { checkCommandFor } from '../sender/check-command.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from '../sender/attempt-timeout.js';
import { addPolicyOptions } from '../sender/policy-options.js';
import { resolveSendSettings, type SendFlags, type SendSettings } from '../config/send-settings.js';
import { resolveApiUrlOnly, type ServiceFlags } from '../config/service-settings.js';
import { addLiveCatalogueOptions, triggerIsLive } from './live-trigger-check.js';
import { LISTEN_OPTIONS } from '../config/option-specs.js';
import { PROCESS_LIST_NOTE } from '../config/secret-flags.js';

const SECRET_ENV = LISTEN_OPTIONS.find((spec) => spec.key === 'secret')!.env;

export function registerSendCommand(program: Command): void {
  const command = program
    .command('send')
    .description('send signed deliveries to a receiver, retrying exactly as spec 6.4 says')
    // Not a commander requiredOption: commander checks those before unknown options, so `--too x`
    // said "required option --to" instead of "unknown option --too (Did you mean --to?)".
    .option('--to <url>', 'the receiver endpoint (http or https); required')
    .option('--trigger <name>', 'the trigger (see `hookrelay triggers`)', 'trustcenter.access_requested')
    .option('--data <json>', "the body's data object, instead of sample data")
    .option('--payload <file>', 'send this file as the body, byte for byte (its "id" becomes x-service-delivery)')
    // Read as listen reads it: the row, its variable and its process-list note are listen's (option-specs.ts).
    .option('--secret <secret>', `signing secret (default: as listen: ${SECRET_ENV}, the config file, else the secrets in the data folder of --db: the newest kept by webhooks create --signing, then the development secret); ${PROCESS_LIST_NOTE} [env ${SECRET_ENV}]`)
    .option('--unsigned', 'send without x-service-signature');
  addPolicyOptions(command)
    .option('--count <n>', 'how many deliveries', '1')
    .option('--concurrency <n>', 'attempts in flight at once', '10')
    .option('--time-scale <factor>', 'multiply every wait between attempts (0.001 runs the ~5 h 41 min default schedule in ~20 s)', '1')
    .option('--seed <n>', 'seed for jitter and sample data (printed in the summary)')
    .option('--timeout <ms>', 'attempt timeout in milliseconds (spec 6.4: 10 s)', String(DEFAULT_ATTEMPT_TIMEOUT_MS))
    .option('--block-private', "emulate the service's SSRF rule: endpoints resolving to private or reserved addresses fail as blocked")
    .option('--auto-disable-after <n>', 'suspend the webhook after this many failed deliveries in a row, 1 to 100', '15')
    .option('--no-disable-on-gone', 'do not suspend the webhook when the endpoint answers 410')
    .option('--db <path>', 'database whose data folder holds the development secret (looked up like listen: HOOKRELAY_DB, hookrelay.config.json, .hookrelay/hookrelay.db)')
    .option('--json', 'print the Delivery records (spec 2.11) as a JSON array instead of the timeline');
  addLiveCatalogueOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  npx hookrelay send --to http://127.0.0.1:4000/webhooks
  HOOKRELAY_SECRET="$WEBHOOK_SECRET" npx hookrelay send --to http://127.0.0.1:3000/hooks --trigger trustcenter.access_approved
  npx hookrelay send --to http://127.0.0.1:3000/hooks --count 20 --time-scale 0.001 --json > deliveries.json`,
    )
    .action(async function (this: Command, flags: SendFlags) {
      await send(flags, outputOf(this), this);
    });
}

async function send(flags: SendFlags & ServiceFlags, output: CommandOutput, command: Command): Promise<void> {
  const json = flags.json === true;
  const checked = resolveSendSettings(flags, systemClock.now);
  if (!checked.ok) {
    return 'problems' in checked ? reportProblems(output, checked.problems, json, systemClock.now()) : reportUsage(output, checked.message);
  }
  const settings = checked.settings;
  for (const warning of settings.signingWarnings) output.err(warning);
  // With an API address, the live catalogue's session prints the same proxy warnings.
  if (resolveApiUrlOnly(flags) === undefined) for (const warning of settings.warnings) output.err(warning);
  if (!(await triggerIsLive(command, flags, settings.deliveries[0]!.trigger, output))) return;
  // Loaded here, not at start-up: every other command runs without undici.
  const [{ createHttpTransport }, { describeRoute, proxyRoute }] = await Promise.all([import('../sender/http-attempt.js'), import('../runtime/proxy.js')]);
  const route = proxyRoute(settings.url, settings.proxy);
  if (!json) printHeading(settings, output, describeRoute(route));
  const transport = createHttpTransport({ timeoutMs: settings.timeoutMs, blockPrivate: settings.blockPrivate, proxy: settings.proxy });
  const started = systemClock.now();
  const ctx = { total: settings.deliveries.length, timeScale: settings.timeScale, policy: settings.policy };
  const refusals = emptyTally();
  // Ctrl-C stops sending and still prints what was done; a second one quits at once.
  const interrupt = new AbortController();
  const onSigint = (): void => {
    if (interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED);
    output.err('Interrupted: no new attempts; finishing the attempts in flight (at most the attempt timeout). Ctrl-C again to quit now.');
    interrupt.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const result = await runDeliveries(
      {
        url: settings.url,
        deliveries: settings.deliveries,
        secret: settings.secret,
        policy: settings.policy,
        failureHandling: settings.failureHandling,
        webhookId: settings.webhookId,
        concurrency: settings.concurrency,
        timeScale: settings.timeScale,
        signal: interrupt.signal,
        onEvent: json
          ? undefined
          : (event) => {
              tallyRefusal(refusals, event);
              formatEvent(event, ctx).forEach((line) => output.out(line));
            },
      },
      { transport, clock: systemClock, random: settings.random },
    );
    if (json) {
      output.out(JSON.stringify(result.deliveries, null, 2));
    } else {
      const elapsedMs = systemClock.now() - started;
      formatSummary({ url: settings.url, deliveries: result.deliveries, webhook: result.webhook, elapsedMs, seed: settings.seed, interrupted: result.interrupted }).forEach((line) => output.out(line));
      refusalAdvice(refusals, { signed: settings.secret !== null, how: settings.signing, flaw: settings.secretFlaw }).forEach((line) => output.out(line));
      const judge = checkCommandFor({ startedAt: started, policy: settings.policy, failureHandling: settings.failureHandling, timeoutMs: settings.timeoutMs, timeScale: settings.timeScale, ...(flags.db === undefined ? {} : { db: flags.db }) });
      const attempted = result.deliveries.some((d) => d.attemptCount > 0);
      if (anyReached(result.deliveries)) output.out(`Judge this run (hookrelay listen records it): ${judge}`);
      else if (attempted) output.out(noRunToJudge(result.deliveries, 'proxy' in route ? describeRoute(route) : null));
    }
    if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
    else if (result.deliveries.some((d) => d.status === 'failed')) process.exitCode = EXIT_DELIVERY_FAILED;
  } finally {
    process.off('SIGINT', onSigint);
    await transport.close();
  }
}

/** Whether any attempt reached a receiver, which could have recorded it: one that connected, answered or not. */
function anyReached(deliveries: readonly Delivery[]): boolean {
  return deliveries.some((d) => d.attempts.some((a) => a.finishedAt !== null && a.failureClass !== 'blocked' && !(a.failureClass === 'network' && a.errorMessage === COULD_NOT_CONNECT)));
}

/**
 * Why no attempt reached a receiver: --block-private refused the address before any connection
 * (the service's SSRF rule), or nothing answered at --to.
 */
function noRunToJudge(deliveries: readonly Delivery[], proxy: string | null): string {
  const finished = deliveries.flatMap((d) => d.attempts).filter((a) => a.finishedAt !== null);
  const blocked = finished.filter((a) => a.failureClass === 'blocked').length;
  const noRun = 'so there is no run for `hookrelay check` to judge';
  if (blocked > 0 && blocked === finished.length) {
    return `No attempt reached a receiver: --block-private blocked every one (the endpoint resolves to a private or reserved address, which the service refuses to send to), ${noRun}. Leave out --block-private to send to a receiver on this machine or network.`;
  }
  // Through a proxy, "could not connect" may be the proxy's: name it first.
  const ask = proxy !== null ? `is the proxy ${proxy} up, and is a receiver listening at --to?` : 'is it listening at --to?';
  if (blocked > 0) return `No attempt reached a receiver (--block-private blocked ${blocked}, the others could not connect), ${noRun}: ${ask}`;
  return `No attempt reached a receiver (none could connect${proxy !== null ? ' through the proxy' : ''}), ${noRun}: ${ask}`;
}

function printHeading(settings: SendSettings, output: CommandOutput, route: string): void {
  const n = settings.deliveries.length;
  const { autoDisableAfter, disableOnGone } = settings.failureHandling;
  output.out(`Sending ${n} deliver${n === 1 ? 'y' : 'ies'} of ${settings.deliveries[0]!.trigger} to ${settings.url}`);
  output.out(`  signing: ${settings.signing}`);
  output.out(`  policy: ${describePolicy(settings.policy)}; autoDisableAfter ${autoDisableAfter}, disableOnGone ${disableOnGone}`);
  output.out(`  attempt timeout ${formatMs(settings.timeoutMs)}${settings.timeScale === 1 ? '' : `; waits ×${settings.timeScale}`}${settings.blockPrivate ? '; private addresses blocked' : ''}`);
  // Only when a proxy is set at all: the heading of a run without one stays as it was.
  const { explicit, https, http } = settings.proxy;
  if (explicit || https || http) output.out(`  proxy: ${route}`);
}

function describePolicy(policy: RetryPolicy): string {
  if (!policy.enabled) return 'retries disabled (one attempt)';
  const backoff = policy.backoff === 'fixed' ? `fixed ${formatDuration(policy.initialDelaySeconds)}` : `exponential from ${formatDuration(policy.initialDelaySeconds)} ×4 ±20%`;
  return `${policy.maxAttempts} attempt${policy.maxAttempts === 1 ? '' : 's'}, ${backoff}, cap ${formatDuration(policy.maxDelaySeconds)}, retryOn ${policy.retryOn.join(',') || '(none)'}`;
}
