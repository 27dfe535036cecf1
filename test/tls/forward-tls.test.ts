/**
 * `--forward-insecure` / `--forward-ca` against a real HTTPS app with a self-signed certificate
 * (made by openssl in a temp folder): without either the hand-off fails with a TLS error said as
 * such; with either it succeeds, for --forward-to and for --route targets alike.
 */
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import type { HubEvents } from '../../src/runtime/event-hub.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeSelfSigned, type SelfSigned } from './self-signed.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

/** An HTTPS app on 127.0.0.1 that answers 204 and counts what it got. */
async function httpsApp(pair: SelfSigned): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  const server = createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['x-service-delivery']));
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

async function listen(flags: Record<string, unknown>): Promise<AppHandle> {
  const dir = folder();
  const resolved = resolveListenConfig({ flags: { port: 0, console: false, logFormat: 'silent', secret: [TEST_SECRET], db: join(dir, 'h.db'), ...flags }, env: {}, configFile: join(dir, 'none.json') });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const app = await buildApp(resolved.config);
  cleanups.push(() => app.close());
  return app;
}

/** Posts one delivery and resolves with the first relay event about it. */
async function deliver(app: AppHandle, trigger = 'trustcenter.access_requested'): Promise<HubEvents['relay'] & { id: string }> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger });
  const relayed = new Promise<HubEvents['relay']>((resolve) => {
    const off = app.hub.on('relay', (e) => {
      if (e.deliveryId !== req.id) return;
      off();
      resolve(e);
    });
  });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  // Async: 200 once stored. Sync: the app's answer (204), or 502 when the hand-off failed.
  expect([200, 204, 502]).toContain(res.statusCode);
  return { ...(await relayed), id: req.id };
}

describe('hand-off to an https app with a self-signed certificate', () => {
  it('fails without --forward-insecure or --forward-ca, with a TLS error that says so and what to do', async () => {
    const target = await httpsApp(makeSelfSigned(folder()));
    const app = await listen({ forwardTo: target.url, forwardMaxTries: 1 });
    const event = await deliver(app);
    expect(event.ok).toBe(false);
    expect(event.status).toBeNull();
    expect(event.error).toMatch(/^TLS error: the target's certificate is not trusted: its certificate is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\); trust it with --forward-ca FILE, or pass --forward-insecure/);
    expect(target.received).toEqual([]);
    const history = await app.store.relayHistory(event.id);
    expect(history.attempts[0]?.error).toMatch(/^TLS error/);
  });

  it('fails with --forward-ca naming another certificate', async () => {
    const dir = folder();
    const target = await httpsApp(makeSelfSigned(dir, 'app'));
    const other = makeSelfSigned(dir, 'other');
    const app = await listen({ forwardTo: target.url, forwardCa: other.certFile, forwardMaxTries: 1 });
    const event = await deliver(app);
    expect(event.error).toMatch(/^TLS error: the target's certificate is not trusted/);
    expect(target.received).toEqual([]);
  });

  it.each([
    ['--forward-insecure', 'async', (_: SelfSigned) => ({ forwardInsecure: true })],
    ['--forward-ca', 'async', (pair: SelfSigned) => ({ forwardCa: pair.certFile })],
    ['--forward-insecure', 'sync', (_: SelfSigned) => ({ forwardInsecure: true })],
    ['--forward-ca', 'sync', (pair: SelfSigned) => ({ forwardCa: pair.certFile })],
  ])('succeeds with %s (--forward-mode %s), for --forward-to and --route targets', async (_flag, mode, trust) => {
    const dir = folder();
    const pair = makeSelfSigned(dir);
    const [fallback, routed] = await Promise.all([httpsApp(pair), httpsApp(pair)]);
    const app = await listen({ forwardTo: fallback.url, route: [`vendor.*=${routed.url}`], forwardMode: mode, ...trust(pair) });
    const first = await deliver(app);
    const second = await deliver(app, 'vendor.rating_dropped');
    expect([first.ok, first.error, second.ok, second.error]).toEqual([true, undefined, true, undefined]);
    expect(fallback.received).toEqual([first.id]);
    expect(routed.received).toEqual([second.id]);
  });
});
