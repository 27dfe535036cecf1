/** `hookrelay triggers`: the trigger catalogue of spec 6.2; `--live` reads it from the API (GET /webhooks/triggers). */
import type { Command } from 'commander';
import { resolveApiUrlOnly } from '../config/service-settings.js';
import { TRIGGER_CATALOGUE } from '../core/triggers.js';
import { printable } from '../reporter/printable.js';
import { outputOf } from '../sender/cli-output.js';
import { addServiceOptions, openSession, runWithSession } from './service-options.js';

export function registerTriggersCommand(program: Command): void {
  addServiceOptions(
    program
      .command('triggers')
      .description('print the trigger catalogue (spec 6.2): tier, description and data fields; --live reads it from the API')
      .option('--json', 'print the catalogue as JSON (with --live: the API\'s data, each entry with this build\'s dataFields, null for a trigger it does not know)')
      .option('--live', 'read the catalogue from GET /webhooks/triggers (needs --api-url and a key); shows tier and entitled'),
  ).action(async function (this: Command, opts: { json?: boolean; live?: boolean; apiUrl?: string; apiKey?: string }) {
    const output = outputOf(this);
    if (opts.live && resolveApiUrlOnly(opts) !== undefined) {
      const s = openSession(this, opts);
      if (s === null) return;
      await runWithSession(s, opts.json === true, async () => {
        const { value, data } = await s.api.triggers();
        if (opts.json) return s.output.out(JSON.stringify(withDataFields(data), null, 2));
        const width = Math.max(7, ...value.map((e) => Math.min(60, e.trigger.length)));
        s.output.out(`${'trigger'.padEnd(width)}  tier     entitled  description`);
        for (const e of value) {
          const entitled = e.entitled === null ? '?' : e.entitled ? 'yes' : 'no';
          s.output.out(`${printable(e.trigger, 60).padEnd(width)}  ${printable(e.tier, 8).padEnd(7)}  ${entitled.padEnd(8)}  ${printable(e.description, 200)}`);
        }
        s.output.out('');
        s.output.out(`live catalogue of ${printable(s.apiUrl, 200)}: ${value.length} trigger${value.length === 1 ? '' : 's'}; subscribe only to entitled ones (403 otherwise)`);
      });
      return;
    }
    if (opts.json) return output.out(JSON.stringify(TRIGGER_CATALOGUE, null, 2));
    const width = Math.max(...TRIGGER_CATALOGUE.map((e) => e.trigger.length));
    for (const e of TRIGGER_CATALOGUE) {
      output.out(`${e.trigger.padEnd(width)}  ${e.tier.padEnd(7)}  ${e.description}`);
      output.out(`${''.padEnd(width)}  ${''.padEnd(7)}  data: ${e.dataFields.length > 0 ? e.dataFields.join(', ') : '(not shown in the spec)'}`);
    }
    output.out('');
    output.out('Spec 6.2 names the four Trust Center triggers as premium tier and gives no tier for the other three (shown as core).');
    if (opts.live) output.out('FALLBACK: no --api-url (or HOOKRELAY_API_URL), so this is the built-in catalogue, not the live one; entitlement is unknown.');
  });
}

const KNOWN = new Map<string, readonly string[]>(TRIGGER_CATALOGUE.map((e) => [e.trigger, e.dataFields]));

/**
 * The API's catalogue as it gave it, each entry with `dataFields` as `triggers --json` has them (the
 * API does not give them): this build's for a trigger it knows, null for one it does not. An entry
 * that has its own `dataFields` keeps them.
 */
function withDataFields(data: unknown): unknown {
  if (!Array.isArray(data)) return data;
  return data.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || 'dataFields' in entry) return entry;
    const trigger = (entry as { trigger?: unknown }).trigger;
    return { ...entry, dataFields: (typeof trigger === 'string' ? KNOWN.get(trigger) : undefined) ?? null };
  });
}
