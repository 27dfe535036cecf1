/**
 * kill -9 during a retry schedule: nothing is lost, no attempt number is sent twice, and the
 * schedule goes on from what was committed (an open attempt is closed as lost; a waiting retry
 * keeps its nextAttemptAt).
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { readKeysFile } from '../../src/emulator/key-material.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiCall, startEmulateProcess, type EmulateProcess } from './emulate-process.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('kill -9 mid-attempt and mid-wait: every attempt number arrives once and the delivery completes', { timeout: 60_000 }, async () => {
  const { dir, remove } = tempDir('hookrelay-emulate-crash-');
  cleanups.push(remove);
  const arrivals: string[] = [];
  const held: ServerResponse[] = [];
  const arrived = new Set<() => void>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const attempt = String(req.headers['x-service-delivery-attempt']);
      arrivals.push(attempt);
      // Attempt 1 is held until the emulator is killed; attempt 2 fails; attempt 3 succeeds.
      if (attempt === '1') held.push(res);
      else res.writeHead(attempt === '2' ? 503 : 200).end();
      for (const l of [...arrived]) l();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const arrivalsReach = (n: number) => new Promise<void>((resolve) => {
    const check = () => arrivals.length >= n && (arrived.delete(check), resolve());
    arrived.add(check);
    check();
  });

  const db = join(dir, 'emulator.db');
  const args = ['--db', db, '--time-scale', '0.01', '--rate-limit', 'off'];
  const start = async () => {
    const p = await startEmulateProcess(args);
    cleanups.push(() => void p.child.kill('SIGKILL'));
    return p;
  };
  const kill = async (p: EmulateProcess) => {
    p.child.kill('SIGKILL');
    await p.exited;
  };

  let emulator = await start();
  const key = readKeysFile(dir)!.keys.find((k) => k.name === 'a-full')!.key;
  // 60 s × 0.01 = 0.6 s, then 240 s × 0.01 = 2.4 s.
  const created = await apiCall(emulator.baseUrl, key, 'POST', '/webhooks', { name: 'crash', triggers: ['sod.violation_detected'], endpoint: url });
  expect(created.status).toBe(201);
  const webhookId = created.body.data.webhook.id;
  await apiCall(emulator.baseUrl, key, 'POST', '/_emulator/events', { type: 'sod.violation_detected' });

  await arrivalsReach(1);
  await kill(emulator); // attempt 1 is open in the database, unanswered
  for (const res of held) res.destroy();
  emulator = await start();

  await arrivalsReach(2);
  await emulator.waitForOutput(/attempt 2 → .*503/);
  await kill(emulator); // attempt 2 recorded; the retry waits
  emulator = await start();

  await arrivalsReach(3);
  await emulator.waitForOutput(/attempt 3 → .*200/);
  expect(arrivals).toEqual(['1', '2', '3']);
  const list = await apiCall(emulator.baseUrl, key, 'GET', `/webhooks/${webhookId}/deliveries`);
  expect(list.body.data).toHaveLength(1);
  const d = list.body.data[0];
  expect(d).toMatchObject({ status: 'succeeded', attemptCount: 3 });
  expect(d.attempts.map((a: { attemptNumber: number; failureClass: string | null; errorMessage: string | null }) => [a.attemptNumber, a.failureClass, a.errorMessage])).toEqual([
    [1, 'network', 'emulator stopped during the attempt'],
    [2, 'http_5xx', 'responded with a status'],
    [3, null, null],
  ]);
  await kill(emulator);
});
