/** What `listen` leaves and says at start: nothing after a failed start; a banner whose send command works as printed. */
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { startListenBanner } from '../helpers/listen-process.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dir(): string {
  const made = tempDir();
  cleanups.push(made.remove);
  return made.dir;
}

describe('listen at start', () => {
  it('creates no data folder and no development secret when its port is busy', async () => {
    const busy = createServer();
    busy.listen(0, '127.0.0.1');
    await once(busy, 'listening');
    cleanups.push(() => new Promise((resolve) => busy.close(resolve)));
    const port = (busy.address() as { port: number }).port;
    const data = join(dir(), 'never-made');
    const result = await runCli(['listen', '--port', String(port), '--console-port', '0', '--db', join(data, 'hookrelay.db')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use`));
    expect(existsSync(data)).toBe(false);
  });

  it('creates nothing when the console port is busy, and deletes nothing it did not create', async () => {
    const busy = createServer();
    busy.listen(0, '127.0.0.1');
    await once(busy, 'listening');
    cleanups.push(() => new Promise((resolve) => busy.close(resolve)));
    const port = (busy.address() as { port: number }).port;
    const root = dir();
    const data = join(root, 'never-made');
    const result = await runCli(['listen', '--port', '0', '--console-port', String(port), '--db', join(data, 'hookrelay.db')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(new RegExp(`console port ${port} on 127.0.0.1 is already in use`));
    expect(existsSync(data)).toBe(false);
  });

  it('hides a console token the user gave, in the banner as in the JSON line', async () => {
    const token = 'tok_given_by_the_user_1234';
    const { child, banner } = await startListenBanner(['--port', '0', '--console-port', '0', '--console-token', token, '--db', join(dir(), 'h.db')], (kill) => cleanups.push(kill));
    child.kill('SIGKILL');
    expect(banner).not.toContain(token);
    expect(banner).toMatch(/console {4}http:\/\/\S+\/\?token=\[redacted\] {3}\(its token is the one given: --console-token or HOOKRELAY_CONSOLE_TOKEN\)/);
    expect(banner).toMatch(/metrics {4}http:\/\/\S+\/metrics\?token=\[redacted\]/);
  }, 30_000);

  it('says in its banner when the receiver is bound to every interface, and not otherwise', async () => {
    const bannerOf = async (host: string) => {
      const { child, banner } = await startListenBanner(['--host', host, '--port', '0', '--no-console', '--db', join(dir(), 'h.db')], (kill) => cleanups.push(kill));
      child.kill('SIGKILL');
      return banner;
    };
    expect(await bannerOf('0.0.0.0')).toContain('bound to 0.0.0.0: reachable on every network interface of this machine');
    expect(await bannerOf('127.0.0.1')).not.toContain('bound to');
  }, 30_000);

  it('names --host when it is not an address of this machine, and creates nothing', async (ctx) => {
    // Where non-local binds are allowed (net.ipv4.ip_nonlocal_bind), any address binds: nothing to test.
    const probe = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(0, '192.0.2.1', () => probe.close(() => resolve(true)));
    });
    if (bound) ctx.skip();
    const data = join(dir(), 'never-made');
    // 192.0.2.1 (TEST-NET-1, RFC 5737) is never an address of this machine.
    const result = await runCli(['listen', '--host', '192.0.2.1', '--port', '0', '--no-console', '--db', join(data, 'hookrelay.db')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('cannot start: cannot listen on 192.0.2.1 (--host): not an address of this machine (EADDRNOTAVAIL)');
    expect(existsSync(data)).toBe(false);
  });

  it('two starts that each made a development secret for one data folder end up naming the same one', async () => {
    const data = join(dir(), 'shared');
    const file = join(data, 'dev-secret');
    const [a, b] = await Promise.all(
      ['a', 'b'].map((name) => buildApp(testListenConfig(join(data, `${name}.db`), { secrets: [`whsec_dev_${name.repeat(48)}`], devSecret: { created: true, file } }))),
    );
    cleanups.push(() => a!.close(), () => b!.close());
    const kept = readFileSync(file, 'utf8').trim();
    expect(a!.config.secrets[0]).toBe(kept);
    expect(b!.config.secrets[0]).toBe(kept);
  });

  it('prints a send command that carries a custom --db, and keeps the secret it names', async () => {
    const db = join(dir(), 'custom place', 'x.db');
    const { banner: out } = await startListenBanner(['--port', '0', '--console-port', '0', '--db', db], (kill) => cleanups.push(kill));
    const receiver = /POST (http:\/\/\S+)/.exec(out)![1]!;
    expect(out).toContain(`\`npx hookrelay send --to ${receiver} --db '${db}'\` signs with it`);
    // The banner names the secret by its hint and its file, never in full (its output ends up in logs).
    const secret = readFileSync(join(db, '..', 'dev-secret'), 'utf8').trim();
    expect(out).not.toContain(secret);
    expect(out).toContain(`whsec_…${secret.slice(-4)}`);
    expect(out).toContain(`cat '${join(db, '..', 'dev-secret')}'`);
    const sent = await runCli(['send', '--to', receiver, '--db', db]);
    expect(sent.code).toBe(0);
  }, 30_000);

  it('does not print "(default: true)" beside --no-console in its help', async () => {
    const help = await runCli(['listen', '--help']);
    const line = help.stdout.split('\n').find((l) => l.includes('--no-console'))!;
    expect(line).toMatch(/do not start the browser console/);
    expect(line).not.toMatch(/default: true/);
  });
});
