/**
 * `hookrelay schema [TRIGGER]`: the JSON Schema (draft 2020-12) of each trigger's delivery body
 * (spec 6.1, 6.2), or with `--format openapi` an OpenAPI 3.1 document with a `webhooks` section
 * for code generators. The same schemas the kit's types are generated from and drift is read against.
 */
import type { Command } from 'commander';
import { closestName } from '../core/closest-name.js';
import { DATA_SCHEMAS, type SchemaTrigger } from '../core/schemas/data-schemas.js';
import { TRIGGER_SCHEMAS } from '../core/schemas/envelope-schema.js';
import { openApiDocument } from '../core/schemas/openapi.js';
import { printable } from '../reporter/printable.js';
import { VERSION } from '../runtime/version.js';
import { outputOf, reportUsage } from '../sender/cli-output.js';
import { optionOfValues } from './completion-tree.js';

const FORMATS = ['json-schema', 'openapi'] as const;
const TRIGGERS = Object.keys(DATA_SCHEMAS) as SchemaTrigger[];

export function registerSchemaCommand(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of each trigger\'s delivery body (spec 6.1, 6.2), or an OpenAPI 3.1 document with --format openapi')
    .argument('[trigger]', `one trigger (${TRIGGERS.join(', ')}); all when left out`)
    .addOption(optionOfValues('--format <format>', `${FORMATS.join(' or ')}: JSON Schema 2020-12, or an OpenAPI 3.1 document whose webhooks section code generators read`, FORMATS, 'json-schema'))
    // Its output is JSON already: --json is taken so that a script can pass it to every command alike.
    .option('--json', 'the same JSON (taken, as every command takes it; docs/cli-json.md)')
    .action(function (this: Command, trigger: string | undefined, opts: { format: string }) {
      const output = outputOf(this);
      if (!(FORMATS as readonly string[]).includes(opts.format)) {
        return reportUsage(output, `--format must be ${FORMATS.join(' or ')}, not "${printable(opts.format, 40)}"`);
      }
      if (trigger !== undefined && !(TRIGGERS as string[]).includes(trigger)) {
        const meant = closestName(trigger, TRIGGERS);
        return reportUsage(output, `unknown trigger "${printable(trigger, 80)}"${meant === null ? '' : ` (did you mean ${meant}?)`}; known: ${TRIGGERS.join(', ')}`);
      }
      const chosen = trigger === undefined ? TRIGGERS : [trigger as SchemaTrigger];
      const printed = opts.format === 'openapi'
        ? openApiDocument(VERSION, chosen)
        : trigger === undefined ? TRIGGER_SCHEMAS : TRIGGER_SCHEMAS[trigger as SchemaTrigger];
      output.out(JSON.stringify(printed, null, 2));
    });
}
