/**
 * reconcile end to end (issue 17): the emulator fires 200 events; a listen whose fault rule
 * answers 503 to 20 of them (their trigger) until the emulator gives up; `reconcile` names
 * exactly those 20 as missed with the service's attempts; `--replay` brings them in; a second
 * `reconcile` exits 0. listen is given the secret set's secrets as `--secret` would give them
 * (reading the set itself is listen's wiring, not yet done).
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import type { EngineEvent } from '../../src/emulator/delivery-engine.js';
import { secretsForListen } from '../../src/service/secret-set.js';
import { startEmulator, type Harness } from '../emulate/helpers.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runService } from '../service/command-harness.js';

let h: Harness | undefined;
let listen: AppHandle | undefined;
afterEach(async () => {
  await listen?.close();
  listen = undefined;
  await h?.close();
  h = undefined;
});

const closed = (id: string) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === id && (e.delivery.status === 'succeeded' || e.delivery.status === 'failed');

it('names exactly the deliveries listen never stored, replays them in, then exits 0', { timeout: 120_000 }, async () => {
  h = await startEmulator({ timeScale: 0.001 });
  const env = { HOOKRELAY_API_URL: h.app.baseUrl, HOOKRELAY_API_KEY: h.keys.aFull };
  const db = join(h.dir, 'listen', 'hookrelay.db');
  const made = await runService(
    ['webhooks', 'create', '--name', 'ledger', '--endpoint', 'http://127.0.0.1:9/placeholder', '--trigger', 'sod.violation_detected', '--trigger', 'control.drift_detected', '--signing', '--max-attempts', '3', '--initial-delay', '10', '--failure-handling', '{"autoDisableAfter":100}', '--db', db, '--json'],
    env,
  );
  expect(made.code, made.err).toBe(0);
  const webhookId = JSON.parse(made.out).webhook.id as string;
  listen = await buildApp(testListenConfig(db, { secrets: secretsForListen(join(h.dir, 'listen')) }));
  expect(listen.faults.add('503 trigger=control.*').ok).toBe(true);
  expect((await runService(['webhooks', 'update', webhookId, '--endpoint', listen.receiverUrl], env)).code).toBe(0);

  const fire = async (type: string, count: number) => ((await h!.api('POST', '/v1/_emulator/events', { body: { type, count } })).body.data.deliveries as Array<{ deliveryId: string }>).map((d) => d.deliveryId);
  const faulted = await fire('control.drift_detected', 20);
  const fine = await fire('sod.violation_detected', 180);
  expect(faulted).toHaveLength(20);
  expect(fine).toHaveLength(180);
  for (const id of [...faulted, ...fine]) await h.waitFor(closed(id));

  const first = await runService(['reconcile', '--webhook', webhookId, '--db', db, '--json'], env);
  expect(first.code, first.err).toBe(1);
  const report = JSON.parse(first.out);
  expect(report.scanned).toBe(200);
  expect(report.missed.map((m: { deliveryId: string }) => m.deliveryId).sort()).toEqual([...faulted].sort());
  for (const m of report.missed) expect(m.attempts.map((a: { attemptNumber: number; responseStatus: number }) => [a.attemptNumber, a.responseStatus])).toEqual([[1, 503], [2, 503], [3, 503]]);
  expect(report.acknowledgedNotKnown).toEqual([]);
  expect(report.inFlight).toEqual([]);
  expect(report.lostAttempts).toEqual([]);
  expect(report.webhook).toMatchObject({ status: 'active', fix: null });

  const text = await runService(['reconcile', '--webhook', webhookId, '--db', db], env);
  expect(text.out).toMatch(/missed: 20 \(the service attempted them/);
  expect(text.out).toMatch(/run again with --replay/);

  // The outage is over: listen takes everything again.
  listen.faults.clear();
  const replayed = await runService(['reconcile', '--webhook', webhookId, '--db', db, '--replay', '--json'], env);
  expect(replayed.code, replayed.err + replayed.out).toBe(0);
  const after = JSON.parse(replayed.out);
  expect(after.missed).toHaveLength(20);
  expect(after.missed.every((m: { replay: { arrived: boolean } }) => m.replay.arrived)).toBe(true);
  for (const m of after.missed) expect(await listen.store.getDelivery(m.replay.replayId)).toBeDefined();

  const second = await runService(['reconcile', '--webhook', webhookId, '--db', db], env);
  expect(second.code, second.out + second.err).toBe(0);
  expect(second.out).toMatch(/missed: 0/);
  expect(second.out).toMatch(/^reconciled: every delivery the service attempted is in the local store$/m);
});

const attempted = (id: string) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === id;

it('never says reconciled while deliveries the service is retrying are not here: exit 1 "in flight", then --wait takes them in and exits 0', { timeout: 120_000 }, async () => {
  // Retries a minute apart, at a tenth of real time: attempt 2 comes about 6 s after attempt 1.
  h = await startEmulator({ timeScale: 0.1 });
  const env = { HOOKRELAY_API_URL: h.app.baseUrl, HOOKRELAY_API_KEY: h.keys.aFull };
  const db = join(h.dir, 'listen', 'hookrelay.db');
  const made = await runService(
    ['webhooks', 'create', '--name', 'outage', '--endpoint', 'http://127.0.0.1:9/placeholder', '--trigger', 'sod.violation_detected', '--signing', '--max-attempts', '6', '--initial-delay', '60', '--failure-handling', '{"autoDisableAfter":100}', '--db', db, '--json'],
    env,
  );
  expect(made.code, made.err).toBe(0);
  const webhookId = JSON.parse(made.out).webhook.id as string;
  const config = testListenConfig(db, { secrets: secretsForListen(join(h.dir, 'listen')) });
  listen = await buildApp(config);
  expect((await runService(['webhooks', 'update', webhookId, '--endpoint', listen.receiverUrl], env)).code).toBe(0);

  const fire = async (count: number) => ((await h!.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected', count } })).body.data.deliveries as Array<{ deliveryId: string }>).map((d) => d.deliveryId);
  for (const id of await fire(6)) await h.waitFor(closed(id));
  // The receiver goes down; four more are attempted once, and wait for their retry.
  await listen.close();
  listen = undefined;
  const during = await fire(4);
  for (const id of during) await h.waitFor(attempted(id));

  const text = await runService(['reconcile', '--webhook', webhookId, '--db', db], env);
  expect(text.code, text.err).toBe(1);
  expect(text.out).toMatch(/still in flight: 4/);
  expect(text.out).toMatch(/NOT reconciled yet: 4 deliveries the service is still delivering have not arrived here/);
  expect(text.out).not.toMatch(/^reconciled/m);
  const json = await runService(['reconcile', '--webhook', webhookId, '--db', db, '--json'], env);
  expect(json.code).toBe(1);
  expect(JSON.parse(json.out)).toMatchObject({ verdict: 'in-flight', reconciled: false });

  // The receiver is back (on a new port: the webhook follows it); --wait sees the retries arrive.
  listen = await buildApp(config);
  expect((await runService(['webhooks', 'update', webhookId, '--endpoint', listen.receiverUrl], env)).code).toBe(0);
  const waited = await runService(['reconcile', '--webhook', webhookId, '--db', db, '--wait', '60s'], env);
  expect(waited.code, waited.out + waited.err).toBe(0);
  expect(waited.err).toMatch(/waiting up to 60s for 4 deliveries still in flight to arrive here/);
  expect(waited.out).toMatch(/^reconciled: every delivery the service attempted is in the local store$/m);
  for (const id of during) expect(await listen.store.getDelivery(id)).toBeDefined();
});

it('exits 3 when it could not run (a wrong API key), not 1 as for gaps', { timeout: 60_000 }, async () => {
  h = await startEmulator({ timeScale: 0.001 });
  const db = join(h.dir, 'listen', 'hookrelay.db');
  listen = await buildApp(testListenConfig(db));
  const run = await runService(['reconcile', '--webhook', '00000000-0000-4000-8000-000000000000', '--db', db], { HOOKRELAY_API_URL: h.app.baseUrl, HOOKRELAY_API_KEY: 'sk_wrong_0123456789abcdefghijklmnop' });
  expect(run.code, run.err).toBe(3);
  expect(run.err).toMatch(/401/);
});
