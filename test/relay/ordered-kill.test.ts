/**
 * Ordered hand-offs across `kill -9`: a `listen` killed while it hands on, then started again, loses
 * nothing, and each key reaches the app in acceptance order. A delivery the app answered 2xx whose
 * commit the kill prevented is sent again (the same x-service-delivery, docs/relay.md), and only as the
 * next of its key: the app's view of each key never goes back.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startListenProcess, type ListenProcess } from '../helpers/listen-process.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const KEYS = ['ar_a', 'ar_b', 'ar_c'];
const PER_KEY = 20;

describe('ordered hand-offs and kill -9', () => {
  it('keep each key in acceptance order and lose nothing', async () => {
    const arrivals: Array<{ id: string; key: string }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        arrivals.push({ id: String(req.headers['x-service-delivery']), key: String(JSON.parse(Buffer.concat(chunks).toString()).data.accessRequestId) });
        // Slow enough that the kill lands while hand-offs are under way.
        setTimeout(() => res.end('ok'), 40);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const app = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const args = ['--db', join(dir, 'ordered.db'), '--secret', TEST_SECRET, '--no-console', '--forward-to', app, '--pace', `${app} order=/data/accessRequestId`];
    const start = async (): Promise<ListenProcess> => {
      const proc = await startListenProcess(args);
      cleanups.push(() => proc.child.kill('SIGKILL'));
      return proc;
    };

    let listen = await start();
    const accepted: Record<string, string[]> = Object.fromEntries(KEYS.map((k) => [k, []]));
    for (let i = 0; i < PER_KEY; i++) {
      for (const key of KEYS) {
        const id = `${key}-${i}-${Math.random().toString(36).slice(2)}`;
        const body = Buffer.from(JSON.stringify({ id, type: 'trustcenter.access_requested', apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org_1', data: { accessRequestId: key } }));
        const sent = signedRequest({ id, body, t: Math.floor(Date.now() / 1000) });
        const res = await request(listen.url, { method: 'POST', headers: sent.headers, body: sent.body });
        await res.body.dump();
        expect(res.statusCode).toBe(200);
        accepted[key]!.push(id);
      }
    }
    // Killed with hand-offs under way: a third of them through.
    const third = (KEYS.length * PER_KEY) / 3;
    while (arrivals.length < third) await new Promise((resolve) => setTimeout(resolve, 5));
    listen.child.kill('SIGKILL');
    await listen.exited;
    const beforeRestart = arrivals.length;
    expect(beforeRestart).toBeLessThan(KEYS.length * PER_KEY);

    listen = await start();
    const everyId = new Set(Object.values(accepted).flat());
    const end = Date.now() + 30_000;
    while (new Set(arrivals.map((a) => a.id)).size < everyId.size && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));

    // Nothing lost.
    expect(new Set(arrivals.map((a) => a.id))).toEqual(everyId);
    for (const key of KEYS) {
      const positions = arrivals.filter((a) => a.key === key).map((a) => accepted[key]!.indexOf(a.id));
      // Never back: each arrival is the same delivery again (sent again after the kill) or the next one.
      for (let i = 1; i < positions.length; i++) expect(positions[i]! - positions[i - 1]!).toBeGreaterThanOrEqual(0);
      for (let i = 1; i < positions.length; i++) expect(positions[i]! - positions[i - 1]!).toBeLessThanOrEqual(1);
    }
    // Sent twice: at most the deliveries in flight at the kill, one a key.
    expect(arrivals.length - everyId.size).toBeLessThanOrEqual(KEYS.length);
  }, 90_000);
});
