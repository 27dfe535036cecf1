/** What the composition root wires: the console on its own listener, the relay in both modes. */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppHandle } from '../../src/app/build-app.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import { verify } from '../../src/index.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { freePort, startTarget } from '../helpers/target-server.js';
import { startApp } from '../helpers/start-app.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function start(overrides: Partial<ListenConfig>): Promise<AppHandle> {
  return startApp(cleanups, { ...overrides });
}

const now = () => Math.floor(Date.now() / 1000);

async function post(app: AppHandle, req = signedRequest({ t: now() })) {
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  const text = await res.body.text();
  return { status: res.statusCode, text, req };
}

describe('buildApp: console listener', () => {
  it('serves the console on its own port, never on the receiver, and shows no secret', async () => {
    const app = await start({ console: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null } });
    expect(app.consoleUrl).toMatch(/^http:\/\/localhost:\d+\/$/);
    const status = await request(new URL('/api/status', app.consoleUrl!), {});
    const body = await status.body.text();
    expect(status.statusCode).toBe(200);
    expect(JSON.parse(body).data).toMatchObject({ receiverUrl: app.receiverUrl, path: '/webhooks' });
    expect(body).not.toContain(TEST_SECRET);
    const onReceiver = await request(new URL('/api/status', app.receiverUrl), {});
    expect(onReceiver.statusCode).toBe(404);
    await onReceiver.body.dump();
  });

  it('makes a token when bound beyond loopback, and refuses the API without it', async () => {
    const app = await start({ console: { port: 0, host: '0.0.0.0', allowedHosts: [], token: null } });
    expect(app.consoleToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(app.consoleUrl).toContain(`?token=${app.consoleToken}`);
    const url = new URL('/api/status', app.consoleUrl!);
    url.search = '';
    const refused = await request(url, {});
    expect(refused.statusCode).toBe(401);
    await refused.body.dump();
    const allowed = await request(url, { headers: { 'x-hookrelay-token': app.consoleToken! } });
    expect(allowed.statusCode).toBe(200);
    await allowed.body.dump();
  });
});

describe('buildApp: relay', () => {
  it('hands an accepted delivery on once, byte for byte, signed with the forward secret; replay is marked', async () => {
    const target = await startTarget();
    cleanups.push(() => target.close());
    const app = await start({ forward: { to: target.url, secret: 'whsec_fwd', timeoutMs: 2000, headers: [['X-Env', 'test']], mode: 'async', maxTries: 3 } });
    const relayed = new Promise<void>((resolve) => app.hub.on('relay', (e) => e.ok && resolve()));
    const { status, req } = await post(app);
    expect(status).toBe(200);
    await relayed;
    await target.waitFor(1);
    const got = target.received[0]!;
    expect(got.body.equals(req.body)).toBe(true);
    expect(got.headers).toMatchObject({ 'x-service-delivery': req.id, 'x-env': 'test', 'x-hookrelay-replay': 'false' });
    expect(verify(got.body, got.headers['x-service-signature'] as string, { secrets: ['whsec_fwd'] }).ok).toBe(true);
    // A retry of the same delivery is a duplicate: not handed on again.
    expect((await post(app, signedRequest({ id: req.id, t: now(), attempt: 2 }))).status).toBe(200);
    const replay = await app.replay(req.id);
    expect(replay).toMatchObject({ ok: true, status: 200 });
    expect(target.received).toHaveLength(2);
    expect(target.received[1]!.headers['x-hookrelay-replay']).toBe('true');
    expect((await app.store.relayHistory(req.id)).attempts.map((a) => a.replay)).toEqual([false, true]);
  });

  it.each([
    ['201', 201, 'accepted'],
    ['422', 422, 'TARGET_STATUS_422'],
    ['503', 503, 'TARGET_STATUS_503'],
    ['307 (a redirect)', 502, 'TARGET_STATUS_307'],
  ])('sync mode: the target answering %s gives the sender %i', async (answer, expected, reason) => {
    const target = await startTarget(() => Number.parseInt(answer, 10));
    cleanups.push(() => target.close());
    const app = await start({ forward: { to: target.url, secret: TEST_SECRET, timeoutMs: 2000, headers: [], mode: 'sync', maxTries: 3 } });
    const { status, req } = await post(app);
    expect(status).toBe(expected);
    const [attempt] = await app.store.listAttempts({ deliveryId: req.id, limit: 5 });
    expect(attempt!.status).toBe(expected);
    if (expected < 300) {
      expect(attempt!.outcome).toBe('accepted');
      // Deduped: the copy is answered 2xx and not handed to the app again.
      expect((await post(app, signedRequest({ id: req.id, t: now(), attempt: 2 }))).status).toBe(200);
      expect(target.received).toHaveLength(1);
    } else {
      expect(attempt).toMatchObject({ outcome: 'rejected', reason });
      expect(await app.store.getDelivery(req.id)).toBeUndefined();
    }
  });

  it('sync mode: copies of one id sent at the same moment reach the app once, and every copy gets 2xx', async () => {
    // The app answers slowly, so every copy arrives while the first is still being handed on.
    const target = await startTarget();
    cleanups.push(() => target.close());
    const { createServer } = await import('node:http');
    const slowApp = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => setTimeout(() => {
        target.received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.end('{}');
      }, 150));
    });
    await new Promise<void>((resolve) => slowApp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => { slowApp.closeAllConnections(); slowApp.close(resolve); }));
    const port = (slowApp.address() as { port: number }).port;
    const app = await start({ forward: { to: `http://127.0.0.1:${port}/hook`, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'sync', maxTries: 3 } });
    const { Agent } = await import('undici');
    const agent = new Agent({ connections: 16 });
    cleanups.push(() => agent.close());
    const ids = ['sync-a', 'sync-b'];
    const answers = await Promise.all(
      ids.flatMap((id) =>
        Array.from({ length: 8 }, async (_, copy) => {
          const req = signedRequest({ id, attempt: copy + 1, t: now() });
          const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body, dispatcher: agent });
          await res.body.dump();
          return res.statusCode;
        }),
      ),
    );
    expect(answers.every((status) => status === 200)).toBe(true);
    const handedOn = target.received.map((r) => r.headers['x-service-delivery']);
    expect(handedOn.sort()).toEqual(ids);
  });

  it('sync mode: an unreachable target gives 502 and a slow one 504; nothing is accepted', async () => {
    const down = await start({ forward: { to: `http://127.0.0.1:${await freePort()}/hook`, secret: TEST_SECRET, timeoutMs: 2000, headers: [], mode: 'sync', maxTries: 3 } });
    const unreachable = await post(down);
    expect(unreachable.status).toBe(502);
    expect(JSON.parse(unreachable.text).code).toBe('TARGET_UNREACHABLE');

    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { createServer } = await import('node:http');
    const slow = createServer((_req, res) => void gate.then(() => res.end()));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => { release(); slow.closeAllConnections(); slow.close(resolve); }));
    const port = (slow.address() as { port: number }).port;
    const app = await start({ forward: { to: `http://127.0.0.1:${port}/hook`, secret: TEST_SECRET, timeoutMs: 300, headers: [], mode: 'sync', maxTries: 3 } });
    const timedOut = await post(app);
    expect(timedOut.status).toBe(504);
    expect(JSON.parse(timedOut.text).code).toBe('TARGET_TIMEOUT');
    expect(await app.store.getDelivery(timedOut.req.id)).toBeUndefined();
  });
});
