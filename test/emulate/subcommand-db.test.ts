/**
 * `emulate keys --db FILE` and `emulate fire --db FILE`, the form --help and docs/emulate.md show
 * (issue 36 item 18): the subcommand's own --db is used, and wins over HOOKRELAY_EMULATE_DB. The
 * variable points at an empty folder here, so a --db that is ignored shows as "no emulator keys".
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startEmulator, type Harness } from './helpers.js';

let h: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const c of cleanups.splice(0)) c();
});

function elsewhere(): string {
  const { dir, remove } = tempDir('hookrelay-elsewhere-');
  cleanups.push(remove);
  return join(dir, 'emulator.db');
}

it('`emulate keys --db FILE` prints the keys kept beside FILE', { timeout: 30_000 }, async () => {
  h = await startEmulator();
  const run = await runCli(['emulate', 'keys', '--db', h.dbPath], { env: { HOOKRELAY_EMULATE_DB: elsewhere() } });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(h.keys.aFull);
});

it('`emulate --db FILE keys` (the parent flag) reaches keys too', { timeout: 30_000 }, async () => {
  h = await startEmulator();
  const run = await runCli(['emulate', '--db', h.dbPath, 'keys'], { env: { HOOKRELAY_EMULATE_DB: elsewhere() } });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(h.keys.aFull);
});

it('`emulate fire --db FILE` takes organization A\'s key from beside FILE', { timeout: 30_000 }, async () => {
  h = await startEmulator();
  const run = await runCli(['emulate', 'fire', '--trigger', 'sod.violation_detected', '--api-url', h.app.baseUrl, '--db', h.dbPath], {
    env: { HOOKRELAY_EMULATE_DB: elsewhere(), HOOKRELAY_API_KEY: '' },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Fired 1 × sod.violation_detected');
});

it('`emulate fire` with no keys at hand names --db, HOOKRELAY_EMULATE_DB and --api-key', { timeout: 30_000 }, async () => {
  const run = await runCli(['emulate', 'fire', '--trigger', 'sod.violation_detected', '--api-url', 'http://127.0.0.1:9/v1'], {
    env: { HOOKRELAY_EMULATE_DB: elsewhere(), HOOKRELAY_API_KEY: '' },
  });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('pass its database as --db FILE (or HOOKRELAY_EMULATE_DB)');
  expect(run.stderr).toContain('--api-key KEY (or HOOKRELAY_API_KEY)');
});
