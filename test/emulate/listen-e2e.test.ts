/**
 * The emulator against a real `hookrelay listen` with fault rules: listen verifies every attempt
 * with the once-only secret, `hookrelay check` judges what it recorded, and a 410 suspends.
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/emulator/delivery-engine.js';
import { startListenProcess, type ListenProcess } from '../helpers/listen-process.js';
import { runCli } from '../helpers/run-cli.js';
import { startEmulator, type Harness } from './helpers.js';

let h: Harness;
const listens: ListenProcess[] = [];
afterEach(async () => {
  for (const l of listens.splice(0)) {
    l.child.kill('SIGTERM');
    await l.exited;
  }
  await h?.close();
});

const closed = (id: string) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === id && (e.delivery.status === 'succeeded' || e.delivery.status === 'failed');

it('listen accepts the signed retries, check passes on what it recorded, and a 410 suspends the webhook', { timeout: 90_000 }, async () => {
  h = await startEmulator({ timeScale: 0.01 });
  const listenDb = join(h.dir, 'listen.db');
  const created = await h.api('POST', '/v1/webhooks', {
    body: { name: 'e2e', triggers: ['sod.violation_detected'], endpoint: 'http://127.0.0.1:9/placeholder', signingEnabled: true, retryPolicy: { maxAttempts: 3, initialDelaySeconds: 10 } },
  });
  const { webhook, signingSecret } = created.body.data;
  const start = async (fault: string) => {
    const l = await startListenProcess(['--db', listenDb, '--secret', signingSecret, '--no-console', '--fault', fault]);
    listens.push(l);
    expect((await h.api('PATCH', `/v1/webhooks/${webhook.id}`, { body: { endpoint: l.url } })).status).toBe(200);
    return l;
  };

  const listen = await start('503 attempt=1');
  const fired = await h.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected', count: 2 } });
  const ids: string[] = fired.body.data.deliveries.map((d: { deliveryId: string }) => d.deliveryId);
  expect(ids).toHaveLength(2);
  for (const id of ids) await h.waitFor(closed(id));
  const list = (await h.api('GET', `/v1/webhooks/${webhook.id}/deliveries`)).body.data;
  for (const d of list) expect(d.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([503, 200]);

  const check = await runCli(['check', '--db', listenDb, '--max-attempts', '3', '--initial-delay', '10', '--verbose']);
  expect(check.code, check.stdout + check.stderr).toBe(0);
  expect(check.stdout).toContain('2 deliver');

  listens.pop()!.child.kill('SIGTERM');
  await listen.exited;
  await start('410');
  const gone = await h.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected' } });
  await h.waitFor(closed(gone.body.data.deliveries[0].deliveryId));
  await h.waitFor((e) => e.type === 'suspended');
  const after = (await h.api('GET', `/v1/webhooks/${webhook.id}`)).body.data;
  expect(after).toMatchObject({ status: 'suspended', consecutiveFailures: 1 });
});
