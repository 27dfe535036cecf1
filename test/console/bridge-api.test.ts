/**
 * `GET /api/bridge` (issue 15, "the console shows the bridge state"): the public side's
 * subscribers and the laptop's client, each on its own console, in one process over real sockets.
 * The token never appears in any answer.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect, type ConnectHandle } from '../../src/app/build-connect.js';
import type { BridgeView } from '../../src/console/console-options.js';
import { MAX_BRIDGE_SUBSCRIBERS } from '../../src/console/console-server.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startConsole } from './helpers/console-fixture.js';
import { until } from '../helpers/until.js';

const TOKEN = 'bridge-api-token-0123456789abcdefghijklmnopqrstuvwxyz';
const CONSOLE = { port: 0, host: '127.0.0.1', allowedHosts: [], token: null };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

/** GET on a console by its printed URL; the raw text too, to look for the token in it. */
async function get(consoleUrl: string, path: string): Promise<{ status: number; text: string; json: { success: boolean; data: Record<string, unknown> } }> {
  const res = await request(new URL(path, consoleUrl).href.replace('//localhost:', '//127.0.0.1:'));
  const text = await res.body.text();
  return { status: res.statusCode, text, json: JSON.parse(text) };
}


async function post(app: AppHandle): Promise<void> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'trustcenter.access_requested' });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
}

describe('GET /api/bridge', () => {
  it('shows the subscribers on the public side and the connection on the laptop, never the token', async () => {
    const app = await buildApp(
      testListenConfig(join(folder(), 'public.db'), {
        console: CONSOLE,
        bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] },
      }),
    );
    cleanups.push(() => app.close());
    const laptop: ConnectHandle = await buildConnect({
      url: app.bridgeUrl!, token: TOKEN, name: 'ana', dbPath: join(folder(), 'laptop.db'),
      forward: null, console: CONSOLE, logFormat: 'silent', retainMs: null, devSecret: null,
    });
    let laptopOpen = true;
    cleanups.push(() => laptopOpen && laptop.close());
    await until(() => laptop.bridge.state() === 'live', 'live');

    await post(app);
    await post(app);
    await until(() => laptop.bridge.progress().ackedSeq >= 2, 'two acknowledged');
    await until(async () => {
      const subscribers = (await get(app.consoleUrl!, '/api/bridge')).json.data.subscribers as Array<{ lag: number; ackedSeq: number }>;
      return subscribers.length === 1 && subscribers[0]!.lag === 0 && subscribers[0]!.ackedSeq >= 2;
    }, 'the cursor on the public side');

    const bridgePort = new URL(app.bridgeUrl!).port;
    const publicSide = await get(app.consoleUrl!, '/api/bridge');
    expect(publicSide.status).toBe(200);
    expect(publicSide.json.success).toBe(true);
    expect(publicSide.json.data).toEqual({ side: 'public', total: 1, connected: 1, subscribers: [{ subscriber: 'laptop/ana', connected: true, ackedSeq: 2, lag: 0 }] });

    const laptopSide = await get(laptop.consoleUrl!, '/api/bridge');
    expect(laptopSide.status).toBe(200);
    expect(laptopSide.json.data).toEqual({ side: 'laptop', state: 'live', host: `127.0.0.1:${bridgePort}`, name: 'ana', receivedSeq: 2, ackedSeq: 2, lag: 0, reconnects: 0 });

    const statuses = await Promise.all([get(app.consoleUrl!, '/api/status'), get(laptop.consoleUrl!, '/api/status')]);
    for (const status of statuses) expect((status.json.data.features as Record<string, boolean>).bridge).toBe(true);
    for (const answer of [publicSide, laptopSide, ...statuses]) {
      expect(answer.text).not.toContain(TOKEN);
      expect(answer.text).not.toContain(Buffer.from(TOKEN).toString('base64'));
    }

    // The laptop goes away and a delivery arrives: offline, one behind.
    await laptop.close();
    laptopOpen = false;
    await post(app);
    await until(async () => {
      const s = ((await get(app.consoleUrl!, '/api/bridge')).json.data.subscribers as Array<{ connected: boolean; lag: number }>)[0]!;
      return !s.connected && s.lag === 1;
    }, 'offline and one behind');
  }, 40_000);

  it('is 404 and features.bridge false without a bridge', async () => {
    const fx = await startConsole();
    cleanups.push(() => fx.close());
    const bridge = await fx.app.inject({ method: 'GET', url: '/api/bridge', headers: { host: fx.host } });
    expect(bridge.statusCode).toBe(404);
    expect(bridge.json().code).toBe('NOT_FOUND');
    const status = await fx.app.inject({ method: 'GET', url: '/api/status', headers: { host: fx.host } });
    expect(status.json().data.features.bridge).toBe(false);
  });

  it('sends only the listed fields, the most behind first, at most MAX_BRIDGE_SUBSCRIBERS, names clipped', async () => {
    const long = `t/${'x'.repeat(5000)}`;
    const many = Array.from({ length: MAX_BRIDGE_SUBSCRIBERS + 20 }, (_, i) => ({ subscriber: `t/s${i}`, connected: i % 2 === 0, ackedSeq: i, lag: i, token: TOKEN }));
    const fx = await startConsole({ bridge: async () => ({ side: 'public', subscribers: [...many, { subscriber: long, connected: false, ackedSeq: -1, lag: 1e9 }] }) as BridgeView });
    cleanups.push(() => fx.close());
    const answer = await fx.app.inject({ method: 'GET', url: '/api/bridge', headers: { host: fx.host } });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).not.toContain(TOKEN);
    const data = answer.json().data;
    expect(data.total).toBe(MAX_BRIDGE_SUBSCRIBERS + 21);
    expect(data.subscribers).toHaveLength(MAX_BRIDGE_SUBSCRIBERS);
    expect(data.subscribers[0]).toEqual({ subscriber: `${long.slice(0, 200)}…`, connected: false, ackedSeq: 0, lag: 1e9 });
    expect(data.subscribers[1]).toEqual({ subscriber: `t/s${MAX_BRIDGE_SUBSCRIBERS + 19}`, connected: false, ackedSeq: MAX_BRIDGE_SUBSCRIBERS + 19, lag: MAX_BRIDGE_SUBSCRIBERS + 19 });
  });
});
