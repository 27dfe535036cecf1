/**
 * `listen --tls-cert` with a self-signed certificate: the banner's `send` command must work as
 * printed. It names the certificate for Node to trust (NODE_EXTRA_CA_CERTS); without it, send's
 * every attempt failed as "could not connect" (found by a new-user pass).
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startListenBanner } from '../helpers/listen-process.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeSelfSigned } from './self-signed.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('prints a send command that trusts the self-signed certificate, and that command delivers', async () => {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const tls = makeSelfSigned(dir);
  const db = join(dir, 'h.db');
  const { banner: out } = await startListenBanner(['--port', '0', '--no-console', '--db', db, '--tls-cert', tls.certFile, '--tls-key', tls.keyFile], (kill) => cleanups.push(kill));
  const suggested = /`NODE_EXTRA_CA_CERTS=(\S+) npx hookrelay send --to (https:\/\/\S+) --db (\S+)` signs with it/.exec(out);
  expect(suggested, out).not.toBeNull();
  const [, caFile, url, dbArg] = suggested!;
  const unquote = (s: string) => s.replace(/^'(.*)'$/, '$1');
  expect(unquote(caFile!)).toBe(tls.certFile);
  const args = ['send', '--to', url!, '--db', unquote(dbArg!), '--time-scale', '0.001'];
  const trusted = await runCli(args, { env: { NODE_EXTRA_CA_CERTS: unquote(caFile!) } });
  expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
  // The same command without the variable fails: the certificate is what the prefix is for.
  const untrusted = await runCli([...args, '--max-attempts', '1'], { env: { NODE_EXTRA_CA_CERTS: '' } });
  expect(untrusted.code).not.toBe(0);
  expect(untrusted.stdout).toMatch(/network/);
}, 60_000);
