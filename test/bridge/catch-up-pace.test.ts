/**
 * A bridge catching up after the laptop slept reaches the app at the target's pace (issue 41): the
 * deliveries stored on the public side while `connect` was away are handed to the app no faster than
 * its `--pace` allows, each once.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { buildConnect } from '../../src/app/build-connect.js';
import { resolvePacing } from '../../src/core/pacing.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const TOKEN = 'laptop-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a bridge catching up', () => {
  it('hands the backlog to the app at its pace, each delivery once', async () => {
    const arrivals: Array<{ id: string; at: number }> = [];
    const server = createServer((req, res) => {
      arrivals.push({ id: String(req.headers['x-service-delivery']), at: Date.now() });
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const publicSide = await buildApp(testListenConfig(join(dir, 'public.db'), { bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] } }));
    cleanups.push(() => publicSide.close());
    const pacing = resolvePacing([`${appUrl} rate=20/s`], '--pace', [appUrl], [], []);
    const connectTo = () =>
      buildConnect(
        {
          url: publicSide.bridgeUrl!, token: TOKEN, name: 'desk', dbPath: join(dir, 'laptop.db'), console: null, logFormat: 'silent', retainMs: null, devSecret: null,
          forward: { to: appUrl, secret: 'whsec_laptop_0123456789', timeoutMs: 5000, headers: [], mode: 'async', maxTries: 5, pacing },
        },
        { hub: createEventHub() },
      );
    // The laptop subscribes once, then sleeps while 30 deliveries arrive.
    const first = await connectTo();
    await until(() => first.bridge.state() === 'live', 'live');
    await first.close();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
      const res = await request(publicSide.receiverUrl, { method: 'POST', headers: sent.headers, body: sent.body });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
      ids.push(sent.id);
    }
    expect(arrivals).toHaveLength(0);

    const laptop = await connectTo();
    cleanups.push(() => laptop.close());
    await until(() => arrivals.length >= 30, 'the backlog at the app', 15_000);
    const times = arrivals.map((a) => a.at).sort((a, b) => a - b);
    let busiest = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    // 20 a second, evenly spaced: 30 take about 1.5 s.
    expect(busiest).toBeLessThanOrEqual(21);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1300);
    expect(arrivals.map((a) => a.id).sort()).toEqual([...ids].sort());
  });
});
