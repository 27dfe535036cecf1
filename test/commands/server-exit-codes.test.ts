/**
 * The long-running commands keep the one exit-code table (docs/exit-codes.md): a start that cannot
 * happen is 3 (could not run), a bad flag or a value refused as given is 2. `listen`'s busy port and
 * store are in listen-start.test.ts and instance-lock.test.ts.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startEmulator, type Harness } from '../emulate/helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('exit codes of the servers', () => {
  it('connect refused by the public side for its token: 3', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const pub = await buildApp(testListenConfig(join(dir, 'public.db'), { bridge: { port: 0, host: '127.0.0.1', retainMs: 86_400_000, tokens: [{ name: 'laptop', token: 'right-token-0123456789abcdefghijklmnop', triggers: [] }] } }));
    cleanups.push(() => pub.close());
    const run = await runCli(['connect', pub.bridgeUrl!, '--db', join(dir, 'laptop.db'), '--no-console'], { env: { HOOKRELAY_CONNECT_TOKEN: 'wrong-token-0123456789abcdefghijklmnop' } });
    expect(run.code).toBe(3);
    expect(run.stdout + run.stderr).toMatch(/refused this client: 401/);
    expect(run.stdout + run.stderr).not.toContain('wrong-token-0123456789abcdefghijklmnop');
  }, 30_000);

  it('connect with a bad flag value: 2', async () => {
    const run = await runCli(['connect', 'ftp://example.com/bridge', '--no-console'], { env: { HOOKRELAY_CONNECT_TOKEN: 'some-token-0123456789abcdefghijklmnop' } });
    expect(run.code).toBe(2);
  });

  it('emulate fire: a value the emulator refuses as given is 2, an emulator that is not there is 3', async () => {
    let h: Harness | undefined = await startEmulator();
    cleanups.push(() => h?.close());
    const refused = await runCli(['emulate', 'fire', '--trigger', 'sod.violation_detected', '--api-url', h.app.baseUrl, '--api-key', h.keys.aFull, '--data', '{"nope":1}']);
    expect(refused.code, refused.stderr).toBe(2);
    const url = h.app.baseUrl;
    await h.close();
    h = undefined;
    const gone = await runCli(['emulate', 'fire', '--trigger', 'sod.violation_detected', '--api-url', url, '--api-key', 'hrk_whatever_0123456789']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/cannot reach the emulator/);
  }, 30_000);
});
