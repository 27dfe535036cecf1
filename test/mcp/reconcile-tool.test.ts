/**
 * The `reconcile` tool against the emulator: a webhook whose endpoint is down, two events the
 * emulator gives up on; the tool names both as missed, reading the API's address and key from the
 * server's environment, and the key appears in no answer.
 */
import { afterEach, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/emulator/delivery-engine.js';
import { startEmulator, type Harness as Emulator } from '../emulate/helpers.js';
import { freePort } from '../helpers/target-server.js';
import { runService } from '../service/command-harness.js';
import { connect, seededStore } from './harness.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const closed = (id: string) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === id && (e.delivery.status === 'succeeded' || e.delivery.status === 'failed');

it('reconciles a webhook with the key from the environment, and never answers the key', { timeout: 60_000 }, async () => {
  const emulator: Emulator = await startEmulator({ timeScale: 0.001 });
  cleanups.push(() => emulator.close());
  const env = { HOOKRELAY_API_URL: emulator.app.baseUrl, HOOKRELAY_API_KEY: emulator.keys.aFull };
  const { db, remove } = await seededStore(async () => {});
  cleanups.push(remove);
  const down = `http://127.0.0.1:${await freePort()}/hook`;
  const made = await runService(['webhooks', 'create', '--name', 'mcp', '--endpoint', down, '--trigger', 'sod.violation_detected', '--signing', '--max-attempts', '1', '--db', db, '--json'], env);
  expect(made.code, made.err).toBe(0);
  const webhookId = JSON.parse(made.out).webhook.id as string;
  const fired = (await emulator.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected', count: 2 } })).body.data.deliveries as Array<{ deliveryId: string }>;
  for (const d of fired) await emulator.waitFor(closed(d.deliveryId));

  const h = await connect(db, { env });
  cleanups.push(() => h.close());
  const reconciled = await h.call('reconcile', { webhook: webhookId });
  expect(reconciled.result.isError, reconciled.text).toBeFalsy();
  expect(reconciled.json).toMatchObject({ verdict: 'gaps', reconciled: false, scanned: 2 });
  expect(reconciled.json.missed.map((m: { deliveryId: string }) => m.deliveryId).sort()).toEqual(fired.map((d) => d.deliveryId).sort());
  const unknown = await h.call('reconcile', { webhook: 'wh_does_not_exist' });
  expect(unknown.result.isError).toBe(true);
  expect(unknown.text).toMatch(/the service: /);
  const badSince = await h.call('reconcile', { webhook: webhookId, since: 'yesterday' });
  expect(badSince.result.isError).toBe(true);
  expect(badSince.text).toMatch(/ISO date/);
  for (const text of h.answers) expect(text).not.toContain(emulator.keys.aFull);
});
