/**
 * `webhooks update --help` (issue 36 item 21): PATCH sends only the flags given, so no policy flag
 * shows a default there; `create`, which sends its policy over the defaults, still shows them.
 */
import { expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

it('update shows no defaults, and says a field left out keeps its current value', { timeout: 30_000 }, async () => {
  const run = await runCli(['webhooks', 'update', '--help']);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('--max-attempts <n>');
  expect(run.stdout).not.toMatch(/default/i);
  expect(run.stdout.replace(/\s+/g, ' ')).toContain('the others keep their current values');
});

it('create still shows the defaults it sends', { timeout: 30_000 }, async () => {
  const run = await runCli(['webhooks', 'create', '--help']);
  expect(run.code).toBe(0);
  expect(run.stdout.replace(/\s+/g, ' ')).toContain('--max-attempts <n> attempts in all, 1 to 10 (default: 6)');
});
