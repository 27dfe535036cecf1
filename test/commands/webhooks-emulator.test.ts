/**
 * The webhook commands against `hookrelay emulate` (in this process): create captures the
 * once-only secret into the set, and a listen given the set's secrets (what listen will read
 * when no --secret is given) accepts the emulator's signed deliveries; a recreate keeps both
 * secrets; update, enable, disable, delete; deliveries --follow prints new deliveries and changes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import type { EngineEvent } from '../../src/emulator/delivery-engine.js';
import { readSecretSet, secretsForListen } from '../../src/service/secret-set.js';
import { startEmulator, type Harness } from '../emulate/helpers.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { runService } from '../service/command-harness.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
let h: Harness | undefined;
let listen: AppHandle | undefined;
afterEach(async () => {
  await listen?.close();
  listen = undefined;
  await h?.close();
  h = undefined;
});

const closed = (id: string) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === id && (e.delivery.status === 'succeeded' || e.delivery.status === 'failed');

it('create --signing keeps the secret; listen verifies the emulator\'s deliveries with the set; recreate keeps both', { timeout: 60_000 }, async () => {
  h = await startEmulator({ timeScale: 0.001 });
  const env = { HOOKRELAY_API_URL: h.app.baseUrl, HOOKRELAY_API_KEY: h.keys.aFull };
  const db = join(h.dir, 'listen', 'hookrelay.db');
  const dataDir = join(h.dir, 'listen');
  const create = (name: string) => runService(['webhooks', 'create', '--name', name, '--endpoint', 'http://127.0.0.1:9/placeholder', '--trigger', 'sod.violation_detected', '--signing', '--db', db, '--json'], env);
  const first = await create('first');
  expect(first.code, first.err).toBe(0);
  const firstId = JSON.parse(first.out).webhook.id as string;
  // The recreate: the first one deleted, a new one made; the old secret stays (rotation).
  expect((await runService(['webhooks', 'delete', firstId], env)).code).toBe(0);
  expect((await h.api('GET', `/v1/webhooks/${firstId}`)).status).toBe(404);
  const second = await create('second');
  const secondId = JSON.parse(second.out).webhook.id as string;
  expect(readSecretSet(dataDir).map((e) => e.webhookId)).toEqual([firstId, secondId]);
  expect(first.out + first.err + second.out + second.err).not.toMatch(/whsec_[0-9a-f]{16,}/);

  // listen as the CLI resolves it with no --secret: the secrets come from the set.
  const resolved = resolveListenConfig({ flags: { db, port: 0, consolePort: 0, console: false, logFormat: 'silent' }, env: {}, configFile: join(dataDir, 'none.json') });
  if (!resolved.ok) throw new Error(resolved.problems.join('\n'));
  expect(resolved.config.secrets.slice(0, 2)).toEqual(secretsForListen(dataDir));
  listen = await buildApp(resolved.config);
  const upd = await runService(['webhooks', 'update', secondId, '--endpoint', listen.receiverUrl], env);
  expect(upd.code, upd.err).toBe(0);
  const fired = await h.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected', count: 3 } });
  const ids: string[] = fired.body.data.deliveries.map((d: { deliveryId: string }) => d.deliveryId);
  expect(ids).toHaveLength(3);
  for (const id of ids) expect((await h.waitFor(closed(id))) as { delivery: { status: string } }).toMatchObject({ delivery: { status: 'succeeded' } });
  for (const id of ids) expect((await listen.store.getDelivery(id))?.signature).toBe('valid');
});

it('update, disable, enable and delete change the webhook as the API says', { timeout: 60_000 }, async () => {
  h = await startEmulator({ timeScale: 0.001 });
  const env = { HOOKRELAY_API_URL: h.app.baseUrl, HOOKRELAY_API_KEY: h.keys.aFull };
  const made = await runService(['webhooks', 'create', '--name', 'w', '--endpoint', 'http://127.0.0.1:9/x', '--trigger', 'sod.violation_detected', '--json'], env);
  const id = JSON.parse(made.out).webhook.id as string;
  const state = async () => (await h!.api('GET', `/v1/webhooks/${id}`)).body.data;
  expect((await runService(['webhooks', 'update', id, '--name', 'renamed', '--trigger', 'control.drift_detected', '--max-attempts', '2', '--failure-handling', '{"autoDisableAfter":3}'], env)).code).toBe(0);
  expect(await state()).toMatchObject({ name: 'renamed', triggers: ['control.drift_detected'], retryPolicy: { maxAttempts: 2, initialDelaySeconds: 60 }, failureHandling: { autoDisableAfter: 3 } });
  expect((await runService(['webhooks', 'disable', id], env)).out).toMatch(/^disabled .* disabled /);
  expect((await state()).status).toBe('disabled');
  expect((await runService(['webhooks', 'enable', id], env)).code).toBe(0);
  expect((await state()).status).toBe('active');
  const shown = await runService(['webhooks', 'show', id], env);
  expect(shown.out).toMatch(/name {8}renamed/);
  const refused = await runService(['webhooks', 'update', id, '--trigger', 'no.such_trigger'], env);
  expect(refused.code).toBe(2);
  expect(refused.err).toMatch(/422 VALIDATION_ERROR: .*\(field: triggers\)/);
  expect((await runService(['webhooks', 'delete', id], env)).out).toMatch(/deleted webhook/);
  const gone = await runService(['webhooks', 'show', id], env);
  expect(gone.code).toBe(2);
  expect(gone.err).toMatch(/404 NOT_FOUND/);
  const live = await runService(['triggers', '--live'], env);
  expect(live.out).toMatch(/trustcenter.access_requested +premium +no/);
  expect(live.out).toMatch(/sod.violation_detected +core +yes/);
});

it('deliveries --follow prints new deliveries and their changes of state', { timeout: 60_000 }, async () => {
  h = await startEmulator({ timeScale: 0.001 });
  const harness = h;
  const made = await harness.api('POST', '/v1/webhooks', { body: { name: 'f', triggers: ['sod.violation_detected'], endpoint: 'http://127.0.0.1:9/refused', retryPolicy: { maxAttempts: 2, initialDelaySeconds: 10 } } });
  const id = made.body.data.webhook.id as string;
  const first = await harness.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected' } });
  await harness.waitFor(closed(first.body.data.deliveries[0].deliveryId));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'webhooks', 'deliveries', id, '--follow', '--interval', '0.1'], {
    env: { ...process.env, HOOKRELAY_API_URL: harness.app.baseUrl, HOOKRELAY_API_KEY: harness.keys.aFull },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  const check = () => {
    for (const w of [...waiters]) if (w.re.test(out)) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
  };
  child.stdout.on('data', (c: Buffer) => ((out += c.toString()), check()));
  child.stderr.on('data', (c: Buffer) => ((out += c.toString()), check()));
  // A bounded wait that shows what was printed when the line never comes.
  const seen = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never printed ${re}:\n${out}`)), 20_000);
      waiters.push({ re, resolve: () => (clearTimeout(timer), resolve()) });
      check();
    });
  try {
    await seen(/following: polling every 0.1 s/);
    expect(out).toContain(first.body.data.deliveries[0].deliveryId);
    // The next retry waits 2 s (2000 s at --time-scale 0.001), so a poll sees the delivery before and after.
    await harness.api('PATCH', `/v1/webhooks/${id}`, { body: { retryPolicy: { initialDelaySeconds: 2000, maxDelaySeconds: 3600 } } });
    const second = await harness.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected' } });
    const newId = second.body.data.deliveries[0].deliveryId as string;
    await seen(new RegExp(`new: .*${newId}  sod.violation_detected  (pending|retrying)`));
    await harness.waitFor(closed(newId));
    await seen(new RegExp(`changed: .*${newId}  sod.violation_detected  failed  attempts 2`));
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  expect(out).toMatch(/#1 .* --- {2}network/);
});
