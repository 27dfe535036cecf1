/**
 * One node, two intakes (issue 37): `connect`'s /metrics has the series `listen`'s has, its store's
 * group commits included (connect used not to wire them), once a bridged delivery is stored.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { buildConnect } from '../../src/app/build-connect.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'laptop-token-0123456789abcdefghijklmnop';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CONSOLE = { port: 0, host: '127.0.0.1', allowedHosts: [], token: null };

async function metricsOf(consoleUrl: string): Promise<string> {
  const res = await request(new URL('/metrics', consoleUrl).href);
  expect(res.statusCode).toBe(200);
  return res.body.text();
}

/** The series a /metrics text names (its # TYPE lines), less those of one side of the bridge only. */
const seriesOf = (text: string) =>
  new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!).filter((name) => !name.startsWith('hookrelay_bridge_') && !name.startsWith('hookrelay_faults_')));

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("connect's /metrics", () => {
  it("has every series of listen's, and counts its store's commits", async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const listen = await buildApp(testListenConfig(join(dir, 'public.db'), { console: CONSOLE, bridge: { port: 0, host: '127.0.0.1', retainMs: 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] } }));
    cleanups.push(() => listen.close());
    const laptop = await buildConnect({ url: listen.bridgeUrl!, token: TOKEN, name: 'ana', dbPath: join(dir, 'laptop.db'), forward: null, console: CONSOLE, logFormat: 'silent', retainMs: null, devSecret: null });
    cleanups.push(() => laptop.close());
    await until(() => laptop.bridge.state() === 'live', 'live');

    const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const res = await request(listen.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
    await res.body.dump();
    await until(async () => (await laptop.store.getDelivery(req.id)) !== undefined, 'the bridged delivery');

    const onListen = await metricsOf(listen.consoleUrl!);
    const onConnect = await metricsOf(laptop.consoleUrl!);
    expect([...seriesOf(onListen)].filter((name) => !seriesOf(onConnect).has(name))).toEqual([]);
    const commits = Number(/^hookrelay_store_commit_seconds_count (\d+)/m.exec(onConnect)?.[1] ?? '0');
    expect(commits).toBeGreaterThan(0);
  }, 30_000);
});
