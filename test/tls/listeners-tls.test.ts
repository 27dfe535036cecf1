/**
 * `--tls-cert`/`--tls-key`: the receiver and the bridge listener serve TLS themselves, with a
 * self-signed certificate made by openssl in a temp folder. A real HTTPS receive; a `connect`
 * over wss:// that trusts the certificate with `--bridge-ca`, and one that does not and says why.
 */
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
import { makeSelfSigned, type SelfSigned } from './self-signed.js';

const TOKEN = 'laptop-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

async function publicSide(pair: SelfSigned, flags: Record<string, unknown> = {}): Promise<AppHandle> {
  const dir = folder();
  const resolved = resolveListenConfig({
    flags: { port: 0, console: false, logFormat: 'silent', secret: [TEST_SECRET], db: join(dir, 'public.db'), tlsCert: pair.certFile, tlsKey: pair.keyFile, ...flags },
    env: {},
    configFile: join(dir, 'none.json'),
  });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const app = await buildApp(resolved.config);
  cleanups.push(() => app.close());
  return app;
}

function trusting(pair: SelfSigned): Agent {
  const agent = new Agent({ connect: { ca: pair.cert } });
  cleanups.push(() => agent.close());
  return agent;
}

async function post(app: AppHandle, dispatcher: Agent): Promise<{ id: string; status: number }> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body, dispatcher });
  await res.body.dump();
  return { id: req.id, status: res.statusCode };
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

async function laptop(url: string, flags: Record<string, unknown>, hub: EventHub): Promise<ConnectHandle> {
  const dir = folder();
  const resolved = resolveConnectConfig(url, { token: TOKEN, name: 'ana', db: join(dir, 'laptop.db'), console: false, logFormat: 'silent', ...flags }, {});
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const handle = await buildConnect(resolved.config, { hub });
  cleanups.push(() => handle.close());
  return handle;
}

describe('the receiver over TLS', () => {
  it('receives and stores a delivery over HTTPS, and refuses a client that does not trust the certificate', async () => {
    const pair = makeSelfSigned(folder());
    const app = await publicSide(pair);
    expect(app.receiverUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    const sent = await post(app, trusting(pair));
    expect(sent.status).toBe(200);
    expect((await app.store.getDelivery(sent.id))?.id).toBe(sent.id);

    const untrusting = new Agent();
    cleanups.push(() => untrusting.close());
    await expect(post(app, untrusting)).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    const health = await request(new URL('/healthz', app.receiverUrl).href, { dispatcher: trusting(pair) });
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });
});

describe('the bridge over wss://', () => {
  const bridged = { bridgePort: 0, bridgeToken: [`laptop:${TOKEN}`] };

  it('connects with --bridge-ca trusting the public side\'s certificate, and the delivery reaches the laptop', async () => {
    const pair = makeSelfSigned(folder());
    const app = await publicSide(pair, bridged);
    expect(app.bridgeUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/bridge$/);
    const hub = createEventHub();
    const live = next(hub, 'notice', (e) => e.message === 'live');
    await laptop(app.bridgeUrl!, { bridgeCa: pair.certFile }, hub);
    await live;
    const sent = await post(app, trusting(pair));
    expect(sent.status).toBe(200);
    const arrived = await next(hub, 'delivery', (e) => e.delivery.id === sent.id);
    expect(arrived.delivery.signature).toBe('valid');
  }, 30_000);

  it('without --bridge-ca, says the bridge\'s certificate is not trusted and how to trust it', async () => {
    const pair = makeSelfSigned(folder());
    const app = await publicSide(pair, bridged);
    const hub = createEventHub();
    const lost = next(hub, 'notice', (e) => /certificate/.test(e.message));
    const handle = await laptop(app.bridgeUrl!, {}, hub);
    expect((await lost).message).toMatch(/TLS: the bridge's certificate is not trusted: its certificate is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\); pass --bridge-ca FILE/);
    expect(handle.bridge.state()).not.toBe('live');
  }, 30_000);
});
