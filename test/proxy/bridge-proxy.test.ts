/**
 * `connect` through a real HTTP proxy (test/proxy/helpers/test-proxy.ts, in this process): the
 * bridge's WebSocket goes through CONNECT, for wss:// from HTTPS_PROXY (to a name only the proxy
 * resolves, so nothing can have gone around it) and for loopback only when a proxy is asked for
 * explicitly, its credentials never shown; and a bridge through it survives a proxy restart, the
 * deliveries sent meanwhile arriving after it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect, type ConnectHandle } from '../../src/app/build-connect.js';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestProxy, type TestProxy, type TestProxyOptions } from './helpers/test-proxy.js';

const TOKEN = 'proxy-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

/** A self-signed certificate for `bridge.test` (a name only the test proxy resolves). */
function certificateFor(name: string): { certFile: string; keyFile: string; cert: string } {
  const dir = folder();
  const certFile = join(dir, 'bridge.crt');
  const keyFile = join(dir, 'bridge.key');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8') };
}

async function publicSide(flags: Record<string, unknown> = {}): Promise<AppHandle> {
  const dir = folder();
  const resolved = resolveListenConfig({
    flags: { port: 0, console: false, logFormat: 'silent', secret: [TEST_SECRET], db: join(dir, 'public.db'), bridgePort: 0, bridgeToken: [`laptop:${TOKEN}`], ...flags },
    env: {},
    configFile: join(dir, 'none.json'),
  });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const app = await buildApp(resolved.config);
  cleanups.push(() => app.close());
  return app;
}

async function proxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const started = await startTestProxy(options);
  cleanups.push(() => started.close());
  return started;
}

async function laptop(url: string, flags: Record<string, unknown>, env: NodeJS.ProcessEnv, hub: EventHub): Promise<{ handle: ConnectHandle; warnings: string[] }> {
  const dir = folder();
  const resolved = resolveConnectConfig(url, { token: TOKEN, name: 'ana', db: join(dir, 'laptop.db'), console: false, logFormat: 'silent', ...flags }, env);
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const handle = await buildConnect(resolved.config, { hub });
  cleanups.push(() => handle.close());
  return { handle, warnings: resolved.warnings };
}

async function post(app: AppHandle, dispatcher?: Agent): Promise<string> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body, ...(dispatcher ? { dispatcher } : {}) });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return req.id;
}

/** Resolves with the first hub event of `name` that `test` accepts. */
function next<K extends 'delivery' | 'notice'>(hub: EventHub, name: K, test: (e: HubEvents[K]) => boolean): Promise<HubEvents[K]> {
  return new Promise((resolve) => {
    const off = hub.on(name, (e) => {
      if (!test(e)) return;
      off();
      resolve(e);
    });
  });
}

/** Resolves once every id has arrived on the laptop (those already stored count). */
async function arrived(hub: EventHub, handle: ConnectHandle, ids: readonly string[]): Promise<void> {
  const waiting = new Set(ids);
  const all = new Promise<void>((resolve) => {
    const off = hub.on('delivery', (e) => {
      waiting.delete(e.delivery.id);
      if (waiting.size === 0) (off(), resolve());
    });
  });
  for (const id of ids) if ((await handle.store.getDelivery(id)) !== undefined) waiting.delete(id);
  if (waiting.size > 0) await all;
}

const notices = (hub: EventHub): string[] => {
  const seen: string[] = [];
  hub.on('notice', (n) => seen.push(n.message));
  return seen;
};

describe('connect through an HTTP proxy', () => {
  it('wss:// from HTTPS_PROXY: tunnelled with CONNECT to a name only the proxy resolves, and the deliveries arrive', async () => {
    const pair = certificateFor('bridge.test');
    const app = await publicSide({ tlsCert: pair.certFile, tlsKey: pair.keyFile });
    const bridgePort = Number(new URL(app.bridgeUrl!).port);
    const through = await proxy({ hosts: { 'bridge.test': '127.0.0.1' } });
    const hub = createEventHub();
    const said = notices(hub);
    const live = next(hub, 'notice', (e) => e.message === 'live');
    const { handle } = await laptop(`wss://bridge.test:${bridgePort}/bridge`, { bridgeCa: pair.certFile }, { HTTPS_PROXY: through.url }, hub);
    expect(handle.config.proxy?.https).toEqual({ url: through.url, from: 'HTTPS_PROXY' });
    await live;

    const trusting = new Agent({ connect: { ca: pair.cert, servername: 'bridge.test' } });
    cleanups.push(() => trusting.close());
    const ids = [await post(app, trusting), await post(app, trusting), await post(app, trusting)];
    await arrived(hub, handle, ids);
    // One tunnel, to the bridge's name: bridge.test resolves nowhere else, so nothing went around it.
    expect(through.targets).toEqual([`bridge.test:${bridgePort}`]);
    expect(through.connections()).toBe(1);
    expect(through.openTunnels()).toBe(1);
    expect(said).toContain(`connected to bridge.test:${bridgePort} as laptop/ana`);
  }, 30_000);

  it('loopback goes through only when asked (--proxy), with credentials that are never shown; without them, a 407 is said', async () => {
    const app = await publicSide();
    const bridgeUrl = app.bridgeUrl!;
    const bridgePort = Number(new URL(bridgeUrl).port);
    const through = await proxy({ auth: { user: 'ana', password: 's3cret-Pa55' } });

    // HTTP_PROXY alone never takes a loopback bridge.
    const directHub = createEventHub();
    const directLive = next(directHub, 'notice', (e) => e.message === 'live');
    const direct = await laptop(bridgeUrl, { name: 'direct' }, { HTTP_PROXY: `http://ana:s3cret-Pa55@127.0.0.1:${through.port}` }, directHub);
    await directLive;
    expect(through.targets).toEqual([]);
    expect(through.connections()).toBe(0);
    await direct.handle.close();

    // --proxy asks for it: loopback too.
    const hub = createEventHub();
    const said = notices(hub);
    const live = next(hub, 'notice', (e) => e.message === 'live');
    const { handle, warnings } = await laptop(bridgeUrl, { proxy: `http://ana:s3cret-Pa55@127.0.0.1:${through.port}` }, {}, hub);
    expect(warnings).toContain('--proxy (its user name and password) is visible to every user of this machine in the process list; prefer HOOKRELAY_PROXY');
    await live;
    const id = await post(app);
    await arrived(hub, handle, [id]);
    expect(through.targets).toEqual([`127.0.0.1:${bridgePort}`]);
    expect(through.refused).toEqual([]);

    // A wrong password: the proxy's 407 is said and retried, the password never.
    const wrongHub = createEventHub();
    const wrongSaid = notices(wrongHub);
    const refusedOnce = next(wrongHub, 'notice', (e) => /407/.test(e.message));
    await laptop(bridgeUrl, { name: 'wrong' }, { HOOKRELAY_PROXY: `http://ana:not-the-Pa55@127.0.0.1:${through.port}` }, wrongHub);
    expect((await refusedOnce).message).toMatch(/^could not connect \(the server answered 407\b.*\), retrying in \d+ s$/);
    expect(through.refused).toContain(`407 127.0.0.1:${bridgePort}`);
    for (const line of [...said, ...wrongSaid]) expect(line).not.toMatch(/s3cret|not-the-Pa55/);
  }, 30_000);

  it('survives a proxy restart: the client reconnects through it and gets the deliveries sent meanwhile', async () => {
    const app = await publicSide();
    const bridgePort = Number(new URL(app.bridgeUrl!).port);
    const through = await proxy({ hosts: { 'bridge.test': '127.0.0.1' } });
    const hub = createEventHub();
    let live = next(hub, 'notice', (e) => e.message === 'live');
    const { handle } = await laptop(`ws://bridge.test:${bridgePort}/bridge`, { insecure: true }, { http_proxy: through.url }, hub);
    await live;
    const before = await post(app);
    await arrived(hub, handle, [before]);

    const lost = next(hub, 'notice', (e) => e.message.startsWith('connection lost'));
    await through.stop();
    await lost;
    const meanwhile = [await post(app), await post(app)];
    expect(await handle.store.getDelivery(meanwhile[0]!)).toBeUndefined();
    live = next(hub, 'notice', (e) => e.message === 'live');
    await through.start();
    await live;
    await arrived(hub, handle, meanwhile);
    expect(through.connections()).toBeGreaterThanOrEqual(2);
    expect(new Set(through.targets)).toEqual(new Set([`bridge.test:${bridgePort}`]));
    expect(handle.bridge.progress().reconnects).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
