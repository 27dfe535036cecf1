/**
 * The two commands whose purpose is to print a secret, with --json: `bridge token` (a fresh token)
 * and `emulate keys` (the emulator's API keys). The JSON holds what the plain output holds, no more;
 * a failure still ends in one JSON error object on stderr.
 */
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startEmulator, type Harness } from '../emulate/helpers.js';

let h: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const c of cleanups.splice(0)) c();
});

it('`bridge token --json` prints the name, the token and the value for --bridge-token', async () => {
  const named = await runCli(['bridge', 'token', '--name', 'laptop', '--json']);
  expect(named.code).toBe(0);
  const parsed = JSON.parse(named.stdout) as { name: string; token: string; bridgeToken: string };
  expect(Object.keys(parsed)).toEqual(['name', 'token', 'bridgeToken']);
  expect(parsed.name).toBe('laptop');
  expect(parsed.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(parsed.bridgeToken).toBe(`laptop:${parsed.token}`);
  const plain = JSON.parse((await runCli(['bridge', 'token', '--json'])).stdout) as { name: null; token: string; bridgeToken: string };
  expect(plain.name).toBeNull();
  expect(plain.bridgeToken).toBe(plain.token);

  const bad = await runCli(['bridge', 'token', '--name', 'bad name', '--json']);
  expect(bad.code).toBe(2);
  expect(bad.stdout).toBe('');
  const error = JSON.parse(bad.stderr.trim().split('\n').at(-1)!) as { error: { code: string; problems: string[] } };
  expect(error.error).toMatchObject({ code: 'usage', problems: [expect.stringMatching(/^--name must be/)] });
});

it('`emulate keys --json` prints each organization with its keys, as the plain output lists them', { timeout: 30_000 }, async () => {
  h = await startEmulator();
  const run = await runCli(['emulate', 'keys', '--db', h.dbPath, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const parsed = JSON.parse(run.stdout) as { organizations: Array<{ id: string; name: string; keys: Array<{ name: string; key: string; scopes: string[] }> }> };
  const keys = parsed.organizations.flatMap((org) => org.keys.map((k) => k.key));
  expect(keys).toContain(h.keys.aFull);
  const plain = await runCli(['emulate', 'keys', '--db', h.dbPath]);
  for (const key of keys) expect(plain.stdout).toContain(key);
  for (const org of parsed.organizations) expect(plain.stdout).toContain(org.id);

  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const none = await runCli(['emulate', 'keys', '--db', `${dir}/emulator.db`, '--json']);
  expect(none.code).not.toBe(0);
  expect(none.stdout).toBe('');
  expect(JSON.parse(none.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { message: expect.stringMatching(/no emulator keys/) } });
});
