/** `hookrelay emulate fire` as a user runs it: a wrong key is named by its hint, with where the right keys are. */
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startEmulator, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('a wrong --api-key: 401, the key by its hint only, and `hookrelay emulate keys` named', { timeout: 30_000 }, async () => {
  h = await startEmulator();
  const wrong = 'hrk_this_key_was_never_issued_0123abcd';
  const run = await runCli(['emulate', 'fire', '--trigger', 'sod.violation_detected', '--api-url', h.app.baseUrl, '--api-key', wrong]);
  expect(run.code).toBe(3);
  expect(run.stderr).toContain('the emulator answered 401 UNAUTHORIZED: invalid API key; this run sent the key …abcd: `hookrelay emulate keys` lists the emulator\'s keys');
  expect(run.stdout + run.stderr).not.toContain(wrong);
  // Issue 36 item 22: a key typed as a flag is in the process list; fire says so as every --api-key does.
  expect(run.stderr).toContain('warning: --api-key is visible to every user of this machine in the process list; prefer HOOKRELAY_API_KEY');
});
