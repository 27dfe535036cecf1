/**
 * `--forward-proxy` (issue 39 item 4): the hand-off to the app goes through an HTTP proxy only when
 * asked. With it, an http target is sent in absolute form and an https one (trusted by --forward-ca)
 * is tunnelled, both recorded by the proxy, and replays take the same way; without it, HTTP_PROXY
 * and HTTPS_PROXY never apply to the app. Bad values are refused, naming the setting, and the
 * proxy's password is never printed.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { startHttpsApp } from '../helpers/https-app.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';
import { makeSelfSigned } from '../tls/self-signed.js';
import { startTestProxy } from './helpers/test-proxy.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const proxy = await startTestProxy({ auth: { user: 'ana', password: 'proxy-pass-XYZ' } });
  cleanups.push(() => proxy.close());
  const app = await startTarget();
  cleanups.push(() => app.close());
  const pair = makeSelfSigned(dir);
  const vendor = await startHttpsApp(pair);
  cleanups.push(() => vendor.close());
  return { dir, proxy, app, vendor, pair, proxyUrl: `http://ana:proxy-pass-XYZ@127.0.0.1:${proxy.port}` };
}

async function listen(dir: string, flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const resolved = resolveListenConfig({ flags: { port: 0, secret: [TEST_SECRET], db: join(dir, `listen-${Math.random()}.db`), console: false, logFormat: 'silent', ...flags }, env, configFile: join(dir, 'none.json') });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const node = await buildApp(resolved.config);
  cleanups.push(() => node.close());
  return node;
}

async function deliver(url: string, trigger = 'trustcenter.access_requested'): Promise<string> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger });
  const res = await request(url, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return req.id;
}

describe('--forward-proxy', () => {
  it('hands on through the proxy when asked: http in absolute form, https tunnelled and trusted by --forward-ca; replays too', async () => {
    const { dir, proxy, app, vendor, pair, proxyUrl } = await setUp();
    const node = await listen(dir, { forwardTo: app.url, route: [`vendor.*=${vendor.url}`], forwardCa: pair.certFile, forwardProxy: proxyUrl });
    const plain = await deliver(node.receiverUrl);
    await deliver(node.receiverUrl, 'vendor.rating_dropped');
    await until(() => app.received.length === 1 && vendor.seen.length === 1, 'both hand-offs');
    expect(String(app.received[0]!.headers['x-service-delivery'])).toBe(plain);
    const appHost = new URL(app.url).host;
    const vendorHost = new URL(vendor.url).host;
    expect(proxy.targets).toEqual(expect.arrayContaining([appHost, vendorHost]));
    expect(proxy.refused).toEqual([]);
    const passed = proxy.targets.length;
    expect((await node.replay(plain))?.ok).toBe(true);
    expect(proxy.targets.length).toBe(passed + 1);
    expect(app.received).toHaveLength(2);
  });

  it('without it, the app is reached directly whatever HTTP_PROXY and HTTPS_PROXY say', async () => {
    const { dir, proxy, app } = await setUp();
    const saved = { http: process.env.HTTP_PROXY, https: process.env.HTTPS_PROXY };
    process.env.HTTP_PROXY = process.env.HTTPS_PROXY = `http://127.0.0.1:${proxy.port}`;
    cleanups.push(() => {
      for (const [name, value] of [['HTTP_PROXY', saved.http], ['HTTPS_PROXY', saved.https]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    const node = await listen(dir, { forwardTo: app.url });
    await deliver(node.receiverUrl);
    await until(() => app.received.length === 1, 'the hand-off');
    expect(proxy.connections()).toBe(0);
  });

  it('refuses a bad value, naming where it was set, and never prints the password', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const problems = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
      const resolved = resolveListenConfig({ flags: { port: 0, secret: [TEST_SECRET], db: join(dir, 'x.db'), ...flags }, env, configFile: join(dir, 'none.json') });
      return resolved.ok ? [] : resolved.problems;
    };
    expect(problems({ forwardTo: 'http://127.0.0.1:3000/h', forwardProxy: 'socks5://u:hunter2secret@proxy:1080' }).join('\n')).toMatch(/--forward-proxy: socks5:\/\/ proxies are not supported, only HTTP proxies \(http:\/\/ or https:\/\/\); give --forward-proxy one$/m);
    expect(problems({ forwardProxy: 'http://proxy:3128' }).join('\n')).toMatch(/--forward-proxy has no effect without --forward-to/);
    const fromEnv = problems({ forwardTo: 'http://127.0.0.1:3000/h' }, { HOOKRELAY_FORWARD_PROXY: 'http://u:hunter2secret@proxy:3128/path' }).join('\n');
    expect(fromEnv).toMatch(/HOOKRELAY_FORWARD_PROXY: .* must be http:\/\/\[user:password@\]host:port/);
    expect(fromEnv).not.toContain('hunter2secret');
  });
});
