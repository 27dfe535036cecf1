/**
 * The service client, `send` and the delivery engine's transport through a real HTTP proxy
 * (test/proxy/helpers/test-proxy.ts, in this process). `webhooks list` and `send` run as processes,
 * with the proxy from the lower-case variable and from `--proxy` with credentials (never printed);
 * the targets are names only the proxy resolves. Loopback stays direct unless a proxy is asked for,
 * and the emulator's address rule is still judged on a name that goes through a proxy.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo, LookupFunction } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { buildEmulator } from '../../src/app/build-emulator.js';
import { addressRule } from '../../src/emulator/endpoint-rule.js';
import type { ProxySettings } from '../../src/runtime/proxy.js';
import { createApiClient } from '../../src/service/api-client.js';
import { createHttpTransport, type Transport } from '../../src/sender/http-attempt.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestProxy, type TestProxy, type TestProxyOptions } from './helpers/test-proxy.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

async function proxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const started = await startTestProxy(options);
  cleanups.push(() => started.close());
  return started;
}

async function emulator() {
  const app = await buildEmulator({ port: 0, host: '127.0.0.1', dbPath: join(folder(), 'emulator.db'), timeScale: 1, ssrf: 'loopback', plan: 'core', webhookCap: 10, rateLimitScale: null, seed: 7, extraKeys: [] });
  cleanups.push(() => app.close());
  const key = app.keys.keys.find((k) => k.name === 'a-full')!.key;
  return { app, key, port: Number(new URL(app.baseUrl).port) };
}

/** A receiver that answers 200 and counts what it got. */
async function receiver(): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

function transport(options: Parameters<typeof createHttpTransport>[0]): Transport {
  const t = createHttpTransport(options);
  cleanups.push(() => t.close());
  return t;
}

const attempt = (t: Transport, url: string) => t.send({ url, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') });

const explicit = (url: string): ProxySettings => ({ explicit: { url, from: '--proxy' }, https: null, http: null, noProxy: [] });

describe('the service client through a proxy', () => {
  it('`webhooks list` against the emulator goes through http_proxy (the lower-case variable) to a name only the proxy resolves', async () => {
    const { key, port } = await emulator();
    const through = await proxy({ hosts: { 'emulate.test': '127.0.0.1' } });
    const run = await runCli(['webhooks', 'list', '--api-url', `http://emulate.test:${port}/v1`, '--json'], { env: { HOOKRELAY_API_KEY: key, http_proxy: through.url, HTTP_PROXY: 'http://127.0.0.1:9' } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(through.targets).toEqual([`emulate.test:${port}`]);
  }, 60_000);

  it('in process: the API client asks through the proxy, credentials as Proxy-Authorization; a wrong one fails naming the 407, never the password', async () => {
    const { key, port } = await emulator();
    const through = await proxy({ hosts: { 'emulate.test': '127.0.0.1' }, auth: { user: 'ana', password: 'pr0xy-Pa55' } });
    const client = createApiClient({ baseUrl: `http://emulate.test:${port}/v1`, apiKey: key, proxy: explicit(`http://ana:pr0xy-Pa55@127.0.0.1:${through.port}`) });
    cleanups.push(() => client.close());
    const answer = await client.call('GET', '/webhooks');
    expect(answer.status).toBe(200);
    expect(through.targets).toEqual([`emulate.test:${port}`]);

    const wrong = createApiClient({ baseUrl: `http://emulate.test:${port}/v1`, apiKey: key, proxy: explicit(`http://ana:wr0ng-Pa55@127.0.0.1:${through.port}`), maxTries: 1 });
    cleanups.push(() => wrong.close());
    const failure = await wrong.call('GET', '/webhooks').then(() => null, (err: Error) => err);
    expect(failure?.message).toMatch(/407/);
    expect(failure?.message).not.toMatch(/wr0ng-Pa55|pr0xy-Pa55/);
  }, 30_000);
});

describe('send through a proxy', () => {
  it('`send --proxy http://user:password@…` delivers through it; the heading shows the proxy with its credentials redacted', async () => {
    const app = await buildApp(testListenConfig(join(folder(), 'public.db')));
    cleanups.push(() => app.close());
    const port = Number(new URL(app.receiverUrl).port);
    const through = await proxy({ hosts: { 'receiver.test': '127.0.0.1' }, auth: { user: 'ana', password: 's3nd-Pa55' } });
    const proxyUrl = `http://ana:s3nd-Pa55@127.0.0.1:${through.port}`;
    const run = await runCli(['send', '--to', `http://receiver.test:${port}/webhooks`, '--secret', TEST_SECRET, '--proxy', proxyUrl], { env: { HTTPS_PROXY: '', HTTP_PROXY: '' } });
    expect(run, run.stdout + run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain(`  proxy: http://[redacted]@127.0.0.1:${through.port} (--proxy)`);
    expect(run.stderr).toContain('--proxy (its user name and password) is visible to every user of this machine in the process list; prefer HOOKRELAY_PROXY');
    expect(`${run.stdout}${run.stderr}`).not.toContain('s3nd-Pa55');
    expect(through.targets).toEqual([`receiver.test:${port}`]);
    expect((await app.store.listDeliveries({ limit: 10 })).items).toHaveLength(1);
  }, 60_000);

  it('HTTPS_PROXY and HTTP_PROXY never take a loopback target; a proxy asked for explicitly does', async () => {
    const target = await receiver();
    const through = await proxy();
    const fromEnv: ProxySettings = { explicit: null, https: { url: through.url, from: 'HTTPS_PROXY' }, http: { url: through.url, from: 'HTTP_PROXY' }, noProxy: [] };
    expect((await attempt(transport({ proxy: fromEnv }), `http://127.0.0.1:${target.port}/hook`)).observation).toMatchObject({ kind: 'response', status: 200 });
    expect(through.targets).toEqual([]);
    expect((await attempt(transport({ proxy: explicit(through.url) }), `http://127.0.0.1:${target.port}/hook`)).observation).toMatchObject({ kind: 'response', status: 200 });
    expect(through.targets).toEqual([`127.0.0.1:${target.port}`]);
    // NO_PROXY names it: direct even with --proxy.
    const named = { ...explicit(through.url), noProxy: ['127.0.0.1'] };
    expect((await attempt(transport({ proxy: named }), `http://127.0.0.1:${target.port}/hook`)).observation).toMatchObject({ kind: 'response', status: 200 });
    expect(through.targets).toHaveLength(1);
    expect(target.hits()).toBe(3);
  });
});

describe("the delivery engine's transport through a proxy", () => {
  // What the names resolve to on this machine: the address rule judges that, not the proxy's view.
  const lookup: LookupFunction = ((hostname: string, options: { all?: boolean }, cb: (e: NodeJS.ErrnoException | null, a: unknown, f?: number) => void) => {
    const address = hostname === 'hook.test' ? '93.184.216.34' : hostname === 'inside.test' ? '10.1.2.3' : null;
    if (address === null) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), undefined);
    return options.all ? cb(null, [{ address, family: 4 }]) : cb(null, address, 4);
  }) as unknown as LookupFunction;

  it('a public name goes through the proxy; one that resolves to a private address is blocked before the proxy is asked', async () => {
    const target = await receiver();
    const through = await proxy({ hosts: { 'hook.test': '127.0.0.1', 'inside.test': '127.0.0.1' } });
    const engine = transport({ refuseAddress: addressRule('strict'), keepAlive: false, lookup, proxy: explicit(through.url) });
    expect((await attempt(engine, `http://hook.test:${target.port}/hook`)).observation).toMatchObject({ kind: 'response', status: 200 });
    expect((await attempt(engine, `http://inside.test:${target.port}/hook`)).observation).toEqual({ kind: 'blocked' });
    expect((await attempt(engine, `http://nowhere.test:${target.port}/hook`)).observation).toEqual({ kind: 'network', cause: 'dns' });
    expect(through.targets).toEqual([`hook.test:${target.port}`]);
    expect(target.hits()).toBe(1);
  });
});
