/**
 * `hookrelay webhooks list | show | create | update | enable | disable | delete | deliveries |
 * replay`: the service's webhook API (spec 4.2, 4.3) from the terminal. `--json` prints exactly
 * the API's `data` (a create's signingSecret as its hint, unless --print-secret).
 */
import type { Command } from 'commander';
import { secretHint } from '../core/secret-hint.js';
import { validateFailureHandling, validateRetryPolicy, type FieldProblem } from '../core/retry-policy/validate-policy.js';
import { printable } from '../reporter/printable.js';
import { serviceAttemptLine } from './service-attempt-line.js';
import { reportProblems as reportFieldProblems } from '../sender/cli-output.js';
import { addPolicyOptions, integerOrText, policyFromFlags, type PolicyFlags } from '../sender/policy-options.js';
import type { Delivery, Webhook } from '../service/resources.js';
import { addToSecretSet, readSecretSet, secretSetPath } from '../service/secret-set.js';
import { collect } from './shared-options.js';
import { addDataOptions, addServiceOptions, dataDirOrReport, openSession, reportUsageProblems, runWithSession, type ServiceSession } from './service-options.js';
import type { ServiceFlags } from '../config/service-settings.js';

interface CommonFlags extends ServiceFlags {
  json?: boolean;
}

interface WriteFlags extends CommonFlags, PolicyFlags {
  name?: string;
  endpoint?: string;
  trigger?: string[];
  header?: string[];
  failureHandling?: string;
}

interface CreateFlags extends WriteFlags {
  signing?: boolean;
  printSecret?: boolean;
  db?: string;
  config?: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function registerWebhooksCommand(program: Command): void {
  const webhooks = program.command('webhooks').description('manage the service\'s webhooks through its API (docs/manage.md)');

  session(webhooks.command('list').description('list the webhooks of the key\'s organization'), async (s, flags) => {
    const { value, data } = await s.api.list();
    if (flags.json) return s.output.out(json(data));
    if (value.length === 0) return s.output.out('no webhooks');
    for (const w of value) s.output.out(webhookRow(w));
  });

  session(webhooks.command('show').argument('<id>', 'webhook id').description('one webhook (never its secret: the service returns it only once)'), async (s, flags, id) => {
    const { value, data } = await s.api.get(id!);
    if (flags.json) return s.output.out(json(data));
    for (const line of webhookDetail(value)) s.output.out(line);
  });

  const create = addPolicyOptions(
    addDataOptions(
      webhooks
        .command('create')
        .description('register a webhook; with --signing its once-only secret goes straight into the data folder\'s secret set')
        .option('--name <name>', 'name, 1 to 120 characters')
        .option('--endpoint <url>', 'public HTTPS URL the service delivers to')
        .option('--trigger <trigger>', 'trigger to subscribe to; repeatable (see `hookrelay triggers --live`)', collect)
        .option('--signing', 'sign deliveries: the secret is kept in the secret set, only its hint printed')
        .option('--print-secret', 'also print the signing secret, once (for use elsewhere)')
        .option('--header <header>', "custom header sent with every delivery, 'Name: value'; repeatable", collect)
        .option('--failure-handling <json>', 'failureHandling as JSON, e.g. \'{"autoDisableAfter":5}\''),
    ),
  );
  session(create, async (s, f) => {
    const flags = f as CreateFlags;
    const problems: string[] = [];
    const fieldProblems: FieldProblem[] = [];
    if (!flags.name) problems.push('missing --name');
    if (!flags.endpoint) problems.push('missing --endpoint URL (a public https URL the service can reach)');
    if (!flags.trigger || flags.trigger.length === 0) problems.push('missing --trigger (repeat it for several)');
    if (flags.printSecret && !flags.signing) problems.push('--print-secret needs --signing (without signing there is no secret)');
    const headers = parseHeaders(flags.header ?? [], problems);
    const anyPolicy = flags.retryPolicy !== undefined || flags.maxAttempts !== undefined || flags.backoff !== undefined || flags.initialDelay !== undefined || flags.maxDelay !== undefined || flags.retryOn !== undefined;
    const policy = anyPolicy ? policyFromFlags(flags) : null;
    if (policy && !policy.ok) fieldProblems.push(...policy.problems);
    const handling = flags.failureHandling === undefined ? null : parseHandling(flags.failureHandling, fieldProblems);
    let dataDir: string | null = null;
    if (flags.signing) {
      dataDir = dataDirOrReport(s.output, flags);
      if (dataDir === null) return;
      // Read the set before asking for a secret the service shows only once: a damaged set is found now, not after.
      readSecretSet(dataDir);
    }
    if (problems.length > 0) return reportUsageProblems(s.output, problems);
    if (fieldProblems.length > 0) return reportFieldProblems(s.output, fieldProblems, flags.json === true, Date.now());
    const created = await s.api.create({
      name: flags.name!,
      triggers: flags.trigger!,
      endpoint: flags.endpoint!,
      ...(headers.length > 0 ? { customHeaders: headers } : {}),
      ...(flags.signing ? { signingEnabled: true } : {}),
      ...(policy?.ok ? { retryPolicy: policy.value } : {}),
      ...(handling ? { failureHandling: handling } : {}),
    });
    let kept: string | null = null;
    if (created.signingSecret !== null && dataDir !== null) {
      try {
        addToSecretSet(dataDir, { secret: created.signingSecret, webhookId: created.webhook.id, origin: `webhook ${created.webhook.id} created ${new Date().toISOString()}` }, Date.now());
        kept = secretSetPath(dataDir);
      } catch (err) {
        // The service will never show this secret again: losing it silently would force a recreate.
        s.output.err(`error: could not keep the signing secret in ${secretSetPath(dataDir)}: ${(err as Error).message}`);
        s.output.err(`the service shows it only once; here it is, keep it now: ${created.signingSecret}`);
        process.exitCode = 1;
      }
    }
    if (flags.json) {
      // The API leaves signingSecret out when the webhook does not sign; the JSON contract says null.
      const signingSecret = created.signingSecret === null ? null : flags.printSecret ? created.signingSecret : secretHint(created.signingSecret);
      s.output.out(json({ ...(created.data as Record<string, unknown>), signingSecret }));
    } else {
      s.output.out(`created ${webhookRow(created.webhook)}`);
    }
    if (created.signingSecret !== null) {
      if (kept !== null) s.output.err(`signing secret ${secretHint(created.signingSecret)} kept in ${kept}: \`hookrelay listen\` verifies with it when no --secret is given`);
      if (flags.printSecret) s.output.err(`signing secret (shown this once): ${created.signingSecret}`);
    }
  });

  const update = addPatchPolicyOptions(
    webhooks
      .command('update')
      .argument('<id>', 'webhook id')
      .description('change a webhook (PATCH: only the fields given change; policy objects are partial)')
      .option('--name <name>', 'new name')
      .option('--endpoint <url>', 'new endpoint')
      .option('--trigger <trigger>', 'the new trigger list; repeatable', collect)
      .option('--header <header>', "the new custom headers, 'Name: value'; repeatable", collect)
      .option('--failure-handling <json>', 'failureHandling fields to change, as JSON'),
  );
  session(update, async (s, f, id) => {
    const flags = f as WriteFlags;
    const problems: string[] = [];
    const fieldProblems: FieldProblem[] = [];
    const body: Record<string, unknown> = {};
    if (flags.name !== undefined) body.name = flags.name;
    if (flags.endpoint !== undefined) body.endpoint = flags.endpoint;
    if (flags.trigger !== undefined) body.triggers = flags.trigger;
    if (flags.header !== undefined) body.customHeaders = parseHeaders(flags.header, problems);
    const policy = partialPolicy(flags, fieldProblems);
    if (policy !== null) body.retryPolicy = policy;
    if (flags.failureHandling !== undefined) {
      const handling = parseHandling(flags.failureHandling, fieldProblems);
      if (handling) body.failureHandling = handling;
    }
    if (problems.length === 0 && fieldProblems.length === 0 && Object.keys(body).length === 0) problems.push('nothing to change: give --name, --endpoint, --trigger, --header, a policy flag or --failure-handling');
    if (problems.length > 0) return reportUsageProblems(s.output, problems);
    if (fieldProblems.length > 0) return reportFieldProblems(s.output, fieldProblems, flags.json === true, Date.now());
    const { value, data } = await s.api.update(id!, body);
    if (flags.json) return s.output.out(json(data));
    s.output.out(`updated ${webhookRow(value)}`);
  });

  for (const [name, status] of [['enable', 'active'], ['disable', 'disabled']] as const) {
    session(
      webhooks.command(name).argument('<id>', 'webhook id').description(name === 'enable' ? 'set a disabled or suspended webhook active again' : 'stop deliveries (waiting retries fail as webhook_inactive)'),
      async (s, flags, id) => {
        const { value, data } = await s.api.update(id!, { status });
        if (flags.json) return s.output.out(json(data));
        s.output.out(`${name}d ${webhookRow(value)}`);
      },
    );
  }

  session(webhooks.command('delete').argument('<id>', 'webhook id').description('delete a webhook for good (its secret stays in the secret set)'), async (s, flags, id) => {
    const { value, data } = await s.api.remove(id!);
    if (flags.json) return s.output.out(json(data));
    s.output.out(value ? `deleted webhook ${printable(id!, 64)}` : `the service answered deleted: false for ${printable(id!, 64)}`);
    s.output.err(`its signing secret, if kept, stays in the secret set until \`hookrelay secrets remove ${printable(id!, 64)}\``);
  });

  const deliveries = webhooks
    .command('deliveries')
    .argument('<id>', 'webhook id')
    .description('the webhook\'s deliveries, newest first, each with every attempt')
    .option('--status <status>', 'only deliveries in this state: pending, retrying, succeeded or failed')
    .option('--limit <n>', 'show at most this many deliveries (default: 50)')
    .option('--follow', 'keep polling within the read budget; print new deliveries and changes of state')
    .option('--interval <seconds>', 'with --follow, seconds between polls (default: 5)');
  session(deliveries, async (s, f, id) => {
    const flags = f as CommonFlags & { status?: string; limit?: string; follow?: boolean; interval?: string };
    const problems: string[] = [];
    const statuses = ['pending', 'retrying', 'succeeded', 'failed'];
    if (flags.status !== undefined && !statuses.includes(flags.status)) problems.push(`--status must be one of ${statuses.join(', ')} (got ${JSON.stringify(flags.status)})`);
    const limit = flags.limit === undefined ? 50 : integerOrText(flags.limit);
    if (typeof limit !== 'number' || limit < 1 || limit > 100_000) problems.push(`--limit must be an integer from 1 to 100000 (got ${JSON.stringify(flags.limit)})`);
    const interval = flags.interval === undefined ? 5 : Number(flags.interval);
    if (!Number.isFinite(interval) || interval < 0.05 || interval > 3600) problems.push(`--interval must be seconds from 0.05 to 3600 (got ${JSON.stringify(flags.interval)})`);
    if (problems.length > 0) return reportUsageProblems(s.output, problems);
    const max = limit as number;
    const wanted = (d: Delivery) => flags.status === undefined || d.status === flags.status;
    const seen = new Map<string, string>();
    let shown = 0;
    const raw: unknown[] = [];
    for await (const page of s.api.deliveries(id!, { limit: Math.min(100, max) })) {
      page.items.forEach((d, i) => {
        seen.set(d.id, stateKey(d));
        if (!wanted(d) || shown >= max) return;
        shown++;
        if (flags.json) raw.push(page.raw[i]);
        else for (const line of deliveryLines(d)) s.output.out(line);
      });
      if (shown >= max) break;
    }
    if (flags.json && !flags.follow) return s.output.out(json(raw));
    if (flags.json) for (const item of raw) s.output.out(JSON.stringify(item));
    if (!flags.json && shown === 0) s.output.out('no deliveries');
    if (!flags.follow) return;
    s.output.err(`following: polling every ${interval} s (Ctrl-C to stop)`);
    let stop = false;
    const onSignal = () => (stop = true);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      while (!stop) {
        await new Promise((r) => setTimeout(r, interval * 1000));
        if (stop) break;
        // The newest page is where new deliveries and most changes show up; a full re-read would spend the budget.
        for await (const page of s.api.deliveries(id!, { limit: 100 })) {
          for (const [i, d] of page.items.entries()) {
            const before = seen.get(d.id);
            const now = stateKey(d);
            if (before === now) continue;
            seen.set(d.id, now);
            if (!wanted(d)) continue;
            if (flags.json) s.output.out(JSON.stringify(page.raw[i]));
            else for (const line of deliveryLines(d, before === undefined ? 'new' : 'changed')) s.output.out(line);
          }
          break;
        }
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });

  session(webhooks.command('replay').argument('<id>', 'webhook id').argument('<deliveryId>', 'the delivery to send again').description('ask the service to deliver one delivery again (a new delivery, isReplay)'), async (s, flags, id, deliveryId) => {
    const { value, data } = await s.api.replay(id!, deliveryId!);
    if (flags.json) return s.output.out(json(data));
    s.output.out(`replay ${printable(value.id, 64)} of ${printable(deliveryId!, 64)} queued (${printable(value.status, 20)})`);
  });
}

/** Adds the service flags and --json to a subcommand and runs its action inside a session. */
function session(command: Command, action: (s: ServiceSession, flags: CommonFlags, ...args: string[]) => Promise<void>): void {
  addServiceOptions(command).option('--json', 'print exactly the API\'s data as JSON');
  command.action(async function (this: Command, ...args: unknown[]) {
    const flags = this.opts() as CommonFlags;
    const s = openSession(this, flags);
    if (s === null) return;
    const positional = args.slice(0, -2).map(String);
    await runWithSession(s, flags.json === true, () => action(s, flags, ...positional));
  });
}

function parseHeaders(values: readonly string[], problems: string[]): Array<{ name: string; value: string }> {
  const headers: Array<{ name: string; value: string }> = [];
  for (const text of values) {
    const colon = text.indexOf(':');
    const name = colon > 0 ? text.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/.test(name)) {
      problems.push(`--header ${JSON.stringify(text.slice(0, 60))}: must be 'Name: value' with a header name of 1 to 128 token characters`);
      continue;
    }
    headers.push({ name, value: text.slice(colon + 1).trim() });
  }
  return headers;
}

function parseHandling(text: string, problems: FieldProblem[]): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    problems.push({ field: 'failureHandling', message: `is not valid JSON (${(err as Error).message})` });
    return null;
  }
  const checked = validateFailureHandling(parsed);
  if (!checked.ok) {
    problems.push(...checked.problems);
    return null;
  }
  return parsed as Record<string, unknown>;
}

/**
 * update's policy flags: create's, without their defaults. PATCH sends only the fields given and the
 * webhook keeps the rest (spec 4.3), so a default in update's help would be a value never sent.
 */
function addPatchPolicyOptions(command: Command): Command {
  addPolicyOptions(command);
  for (const option of command.options) {
    if (option.long === '--retry-policy') option.description = 'retryPolicy fields to change, as JSON (spec 2.11); the others keep their current values';
    else option.description = option.description.replace(/ \(default: [^)]*\)$/, '');
  }
  return command;
}

/** PATCH takes partial policy objects (spec 4.3): only the fields given, checked against the defaults. */
function partialPolicy(flags: PolicyFlags, problems: FieldProblem[]): Record<string, unknown> | null {
  const singles: Record<string, unknown> = {};
  if (flags.maxAttempts !== undefined) singles.maxAttempts = integerOrText(flags.maxAttempts);
  if (flags.backoff !== undefined) singles.backoff = flags.backoff.trim();
  if (flags.initialDelay !== undefined) singles.initialDelaySeconds = integerOrText(flags.initialDelay);
  if (flags.maxDelay !== undefined) singles.maxDelaySeconds = integerOrText(flags.maxDelay);
  if (flags.retryOn !== undefined) singles.retryOn = flags.retryOn.trim() === '' || flags.retryOn.trim() === 'none' ? [] : flags.retryOn.split(',').map((x) => x.trim()).filter(Boolean);
  if (flags.retryPolicy === undefined && Object.keys(singles).length === 0) return null;
  const whole = policyFromFlags(flags);
  if (!whole.ok) {
    problems.push(...whole.problems);
    return null;
  }
  if (flags.retryPolicy !== undefined) return JSON.parse(flags.retryPolicy) as Record<string, unknown>;
  const checked = validateRetryPolicy(singles);
  if (!checked.ok) problems.push(...checked.problems);
  return singles;
}

const stateKey = (d: Delivery) => `${d.status}/${d.attemptCount}/${d.attempts.length}/${d.nextAttemptAt ?? ''}`;

function webhookRow(w: Webhook): string {
  const triggers = w.triggers.map((t) => printable(t, 60)).join(',');
  const signing = w.signing.enabled ? `signed ${w.signing.secretHint ? printable(w.signing.secretHint, 20) : ''}`.trim() : 'unsigned';
  return [printable(w.id, 64), printable(w.status, 12).padEnd(9), `"${printable(w.name, 60)}"`, printable(w.endpoint, 120), triggers, signing].join('  ');
}

function webhookDetail(w: Webhook): string[] {
  const lines = [
    `id          ${printable(w.id, 64)}`,
    `name        ${printable(w.name, 120)}`,
    `status      ${printable(w.status, 20)}${w.disabledReason ? ` (${printable(w.disabledReason, 200)})` : ''}`,
    `endpoint    ${printable(w.endpoint, 300)}`,
    `triggers    ${w.triggers.map((t) => printable(t, 80)).join(', ')}`,
    `signing     ${w.signing.enabled ? `on, secret ${printable(w.signing.secretHint ?? '(no hint)', 30)}` : 'off'}`,
  ];
  if (w.customHeaders.length > 0) lines.push(`headers     ${w.customHeaders.map((h) => `${printable(h.name, 128)}: ${printable(h.valueHint ?? '…', 30)}`).join(', ')}`);
  if (w.consecutiveFailures !== null) lines.push(`failures    ${w.consecutiveFailures} in a row`);
  if (w.lastSuccessAt) lines.push(`last ok     ${printable(w.lastSuccessAt, 40)}`);
  if (w.lastFailureAt) lines.push(`last fail   ${printable(w.lastFailureAt, 40)}`);
  if (w.status !== 'active') lines.push(`fix         hookrelay webhooks enable ${printable(w.id, 64)}`);
  return lines;
}

export function deliveryLines(d: Delivery, mark?: 'new' | 'changed'): string[] {
  const head = [
    mark ? `${mark}:`.padEnd(9) : '',
    printable(d.createdAt ?? '', 30),
    printable(d.id, 64),
    printable(d.trigger, 60),
    printable(d.status, 12),
    `attempts ${d.attemptCount}`,
    d.nextAttemptAt ? `next ${printable(d.nextAttemptAt, 30)}` : '',
    d.isReplay ? `replay of ${printable(d.replayOfDeliveryId ?? '?', 64)}` : '',
  ].filter(Boolean).join('  ');
  return [head, ...d.attempts.map((a) => `    ${serviceAttemptLine(a)}`)];
}

