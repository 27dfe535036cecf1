/** The new flags as the CLI shows and refuses them: in --help, and a bad file stops the start before anything is created. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeSelfSigned } from './self-signed.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('listen and connect flags', () => {
  it('refuses a mismatched key and a bad route in one report, exits 2, and creates no data folder', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const a = makeSelfSigned(dir, 'a');
    const b = makeSelfSigned(dir, 'b');
    const data = join(dir, 'data', 'h.db');
    const result = await runCli(['listen', '--db', data, '--port', '0', '--no-console', '--tls-cert', a.certFile, '--tls-key', b.keyFile, '--forward-to', 'http://127.0.0.1:3000/', '--route', 'vendor.*']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/2 problems with the settings/);
    expect(result.stderr).toMatch(/--tls-key ".*b\.key" is not the private key of --tls-cert ".*a\.crt"/);
    expect(result.stderr).toMatch(/--route: "vendor\.\*" has no "="/);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  }, 30_000);

  it('lists --route, --forward-insecure, --forward-ca and --tls-* in listen --help, and --route and --bridge-ca in connect --help', async () => {
    const listen = await runCli(['listen', '--help']);
    for (const flag of ['--route <value>', '--forward-insecure', '--forward-ca <value>', '--tls-cert <value>', '--tls-key <value>', 'HOOKRELAY_ROUTE']) expect(listen.stdout).toContain(flag);
    const connect = await runCli(['connect', '--help']);
    for (const flag of ['--route <value>', '--forward-insecure', '--forward-ca <value>', '--bridge-ca <value>']) expect(connect.stdout).toContain(flag);
    expect(connect.stdout).not.toContain('--tls-cert <value>');
  }, 30_000);
});
