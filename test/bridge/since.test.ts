/**
 * `connect --since` (issue 39): a laptop whose store was wiped asks the public side for a window
 * again, by sequence number or by age; only the first connection asks, so a reconnect resumes from
 * the cursor; the stored cursor never moves back; a bad header is refused with 400.
 */
import { join } from 'node:path';
import { request } from 'undici';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { buildConnect } from '../../src/app/build-connect.js';
import type { ConnectConfig } from '../../src/config/connect-config.js';
import { parseSinceFlag, parseSinceHeader } from '../../src/core/bridge-since.js';
import { BRIDGE_PROTOCOLS } from '../../src/core/bridge-protocol.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const TOKEN = 'laptop-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function post(app: AppHandle): Promise<string> {
  const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return req.id;
}

async function publicSide() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const app = await buildApp(testListenConfig(join(dir, 'public.db'), { bridge: { port: 0, host: '127.0.0.1', retainMs: 7 * 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] } }));
  cleanups.push(() => app.close());
  return { app, dir };
}

/** A connect on a fresh laptop store, live; resolves with the ids it stored once `count` are in. */
async function laptop(config: ConnectConfig, count: number): Promise<{ ids: string[]; messages: string[]; handle: Awaited<ReturnType<typeof buildConnect>> }> {
  const hub = createEventHub();
  const messages: string[] = [];
  hub.on('notice', (n) => messages.push(n.message));
  const handle = await buildConnect(config, { hub });
  cleanups.push(() => handle.close());
  await until(() => handle.bridge.state() === 'live', 'live');
  const stored = async () => (await handle.store.listDeliveries({ limit: 100 })).items.map((d) => d.id);
  await until(async () => (await stored()).length >= count, `${count} stored on the laptop`);
  return { ids: (await stored()).sort(), messages, handle };
}

describe('connect --since', () => {
  it('sends a window again to a wiped laptop, by seq and by age, and the stored cursor stays', async () => {
    const { app, dir } = await publicSide();
    const base = { url: app.bridgeUrl!, token: TOKEN, name: 'desk', forward: null, console: null, logFormat: 'silent' as const, retainMs: null, devSecret: null };
    const first = await laptop({ ...base, dbPath: join(dir, 'laptop-1.db') }, 0);
    const ids = [await post(app), await post(app), await post(app), await post(app)];
    await until(async () => (await first.handle.store.listDeliveries({ limit: 10 })).items.length === 4, 'four on the first laptop');
    const cursor = async () => (await app.store.bridgeCursor('laptop/desk'))!.ackedSeq;
    // The last ack is stored on the public side a moment after the laptop stored the delivery.
    await until(async () => (await cursor()) === 4, 'the cursor at the fourth');
    await first.handle.close();
    const acked = await cursor();
    expect(acked).toBe(4);

    // A wiped laptop (a new store) with no --since gets nothing: the cursor says it has all.
    const plain = await laptop({ ...base, dbPath: join(dir, 'laptop-2.db') }, 0);
    expect(plain.ids).toEqual([]);
    await plain.handle.close();

    // From seq 2: the deliveries after it, the third and fourth.
    const bySeq = await laptop({ ...base, dbPath: join(dir, 'laptop-3.db'), since: { seq: 2 } }, 2);
    expect(bySeq.ids).toEqual([ids[2], ids[3]].sort());
    expect(bySeq.messages.some((m) => /resuming 2 missed deliveries/.test(m))).toBe(true);
    await bySeq.handle.close();
    expect(await cursor()).toBe(acked);

    // By age: everything of the last hour.
    const byAge = await laptop({ ...base, dbPath: join(dir, 'laptop-4.db'), since: { ageMs: 3_600_000 } }, 4);
    expect(byAge.ids).toEqual([...ids].sort());
    expect(await cursor()).toBe(acked);
    await byAge.handle.close();
  }, 30_000);

  it('refuses a bad since header with 400, naming it; reads the flag and the header by the same rules', async () => {
    const { app } = await publicSide();
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(app.bridgeUrl!, [...BRIDGE_PROTOCOLS], { headers: { authorization: `Bearer ${TOKEN}`, 'x-hookrelay-subscriber': 'desk', 'x-hookrelay-since': 'age:-5' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(400);
    expect(parseSinceFlag('2h')).toEqual({ ok: true, since: { ageMs: 7_200_000 } });
    expect(parseSinceFlag('seq:1200')).toEqual({ ok: true, since: { seq: 1200 } });
    expect(parseSinceFlag('1200')).toEqual({ ok: true, since: { seq: 1200 } });
    expect(parseSinceFlag('yesterday').ok).toBe(false);
    expect(parseSinceFlag('400d').ok).toBe(false);
    expect(parseSinceHeader('seq:99999999999999999').ok).toBe(false);
    expect(parseSinceHeader('age:0').ok).toBe(false);
    expect(parseSinceHeader('seq:7')).toEqual({ ok: true, since: { seq: 7 } });
    const cli = await runCli(['connect', app.bridgeUrl!, '--token', TOKEN, '--since', 'yesterday']);
    expect(cli.stderr).toMatch(/--since: must be a time ago such as 30m, 2h or 7d/);
    expect(cli.code).toBe(2);
  }, 30_000);
});
