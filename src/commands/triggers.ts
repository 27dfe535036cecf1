/** `hookrelay triggers`: the trigger catalogue of spec 6.2. */
import type { Command } from 'commander';
import { TRIGGER_CATALOGUE } from '../core/triggers.js';
import { outputOf } from '../sender/cli-output.js';

export function registerTriggersCommand(program: Command): void {
  program
    .command('triggers')
    .description('print the trigger catalogue (spec 6.2): tier, description and data fields')
    .option('--json', 'print the catalogue as JSON')
    .action(function (this: Command, opts: { json?: boolean }) {
      const output = outputOf(this);
      if (opts.json) return output.out(JSON.stringify(TRIGGER_CATALOGUE, null, 2));
      const width = Math.max(...TRIGGER_CATALOGUE.map((e) => e.trigger.length));
      for (const e of TRIGGER_CATALOGUE) {
        output.out(`${e.trigger.padEnd(width)}  ${e.tier.padEnd(7)}  ${e.description}`);
        output.out(`${''.padEnd(width)}  ${''.padEnd(7)}  data: ${e.dataFields.length > 0 ? e.dataFields.join(', ') : '(not shown in the spec)'}`);
      }
      output.out('');
      output.out('Spec 6.2 names the four Trust Center triggers as premium tier and gives no tier for the other three (shown as core).');
    });
}
