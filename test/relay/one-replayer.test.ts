/**
 * One replayer (src/relay/replay.ts) for the console of `listen`, `hookrelay events replay` and the
 * console of `connect`: a replay with no URL goes where the relay would send the delivery (its
 * --route), trusts that https target's certificate by --forward-ca, and carries --forward-header,
 * the same from each. The CLI's copy used to ignore all three.
 */
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect } from '../../src/app/build-connect.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeSelfSigned, type SelfSigned } from '../tls/self-signed.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

interface Seen {
  replay: string | undefined;
  team: string | undefined;
  id: string | undefined;
}

/** An https app with a self-signed certificate that keeps the marks of each request. */
async function httpsApp(pair: SelfSigned): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ replay: req.headers['x-hookrelay-replay'] as string, team: req.headers['x-team'] as string, id: req.headers['x-service-delivery'] as string });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/vendor`, seen };
}

async function consoleReplay(consoleUrl: string, id: string): Promise<{ ok: boolean; target: string }> {
  const origin = new URL(consoleUrl).origin;
  const res = await request(new URL(`/api/deliveries/${encodeURIComponent(id)}/replay`, consoleUrl).href, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: '{}',
  });
  const body = (await res.body.json()) as { data: { ok: boolean; target: string } };
  return body.data;
}

describe('one replayer: console, CLI and connect', () => {
  it('replays to the route, trusting --forward-ca, with --forward-header, from each of them', async () => {
    const dir = folder();
    const pair = makeSelfSigned(dir);
    const vendorApp = await httpsApp(pair);
    const app = await startTarget();
    cleanups.push(() => app.close());
    const route = `vendor.*=${vendorApp.url}`;
    const db = join(dir, 'listen.db');
    const resolved = resolveListenConfig({
      flags: { port: 0, consolePort: 0, logFormat: 'silent', secret: [TEST_SECRET], db, forwardTo: app.url, route: [route], forwardCa: pair.certFile, forwardHeader: ['X-Team: blue'] },
      env: {},
      configFile: join(dir, 'none.json'),
    });
    if (!resolved.ok) throw new Error(resolved.problems.join('; '));
    const listen: AppHandle = await buildApp({ ...resolved.config, bridge: { port: 0, host: '127.0.0.1', retainMs: 86_400_000, tokens: [{ name: 'laptop', token: 'laptop-token-0123456789abcdefghijklmnop', triggers: [] }] } });
    cleanups.push(() => listen.close());

    const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'vendor.rating_dropped' });
    const res = await request(listen.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    await until(() => vendorApp.seen.length === 1, 'the relay');

    // The console of listen.
    expect(await consoleReplay(listen.consoleUrl!, req.id)).toMatchObject({ ok: true, target: vendorApp.url });

    // The CLI, reading the relay settings as listen reads them (here from the environment).
    const cli = await runCli(['events', 'replay', req.id, '--db', db], {
      env: { HOOKRELAY_FORWARD_TO: app.url, HOOKRELAY_ROUTE: route, HOOKRELAY_FORWARD_CA: pair.certFile, HOOKRELAY_FORWARD_HEADER: 'X-Team: blue', HOOKRELAY_FORWARD_SECRET: TEST_SECRET },
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(new RegExp(`^replayed: 204 from ${vendorApp.url.replace(/[.]/g, '\\.')}`));

    // The console of connect, fed by listen's bridge, with the same forward settings.
    const laptop = await buildConnect({
      url: listen.bridgeUrl!,
      token: 'laptop-token-0123456789abcdefghijklmnop',
      name: 'ana',
      dbPath: join(dir, 'laptop.db'),
      forward: { ...resolved.config.forward!, maxTries: 3 },
      console: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null },
      logFormat: 'silent',
      retainMs: null,
      devSecret: null,
    });
    cleanups.push(() => laptop.close());
    await until(() => laptop.bridge.state() === 'live', 'the laptop live');
    const resend = signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'vendor.rating_dropped' });
    const again = await request(listen.receiverUrl, { method: 'POST', headers: resend.headers, body: resend.body });
    await again.body.dump();
    await until(async () => (await laptop.store.getDelivery(resend.id)) !== undefined, 'the bridged delivery');
    expect(await consoleReplay(laptop.consoleUrl!, resend.id)).toMatchObject({ ok: true, target: vendorApp.url });

    const replays = vendorApp.seen.filter((s) => s.replay === 'true');
    expect(replays.map((s) => s.id)).toEqual([req.id, req.id, resend.id]);
    expect(replays.every((s) => s.team === 'blue')).toBe(true);
  }, 60_000);
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
