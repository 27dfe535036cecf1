/** The built-in sender against hookrelay's own receiver, as two processes talk. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { envelopeBody } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startListen(flags: Record<string, unknown>) {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = join(dir, 'data', 'hookrelay.db');
  const resolved = resolveListenConfig({ flags: { port: 0, db, logFormat: 'silent', console: false, ...flags }, env: {}, configFile: join(dir, 'none.json') });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const app = await buildApp(resolved.config);
  cleanups.push(() => app.close());
  return { app, db, dir };
}

describe('hookrelay send → hookrelay listen', () => {
  it('delivers with the development secret that listen made, with no flags, and both sides agree', async () => {
    const { app, db } = await startListen({});
    const result = await runCli(['send', '--to', app.receiverUrl, '--db', db, '--count', '3', '--trigger', 'trustcenter.resource_downloaded', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const sent = JSON.parse(result.stdout) as Array<{ id: string; status: string; attemptCount: number; payload: { data: Record<string, unknown> } }>;
    expect(sent.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    for (const delivery of sent) {
      const stored = await app.store.getDelivery(delivery.id);
      expect(stored).toMatchObject({ id: delivery.id, trigger: 'trustcenter.resource_downloaded', signature: 'valid', secretIndex: 0 });
      expect(JSON.parse(stored!.rawBody.toString())).toEqual(delivery.payload);
      expect(Object.keys(delivery.payload.data).sort()).toEqual(['accessEventId', 'channel', 'occurredAt', 'resourceId', 'visitorTokenId', 'watermarked']);
    }
  });

  it('a retry after a lost 2xx (the same delivery again) is answered 2xx and stored once', async () => {
    const secret = 'whsec_e2e_secret';
    const { app, dir } = await startListen({ secret: [secret] });
    const payload = join(dir, 'payload.json');
    writeFileSync(payload, envelopeBody('same-delivery-id'));
    const result = await runCli(['send', '--to', app.receiverUrl, '--secret', secret, '--payload', payload, '--count', '2', '--concurrency', '1', '--json']);
    expect(result.code).toBe(0);
    const sent = JSON.parse(result.stdout) as Array<{ status: string }>;
    expect(sent.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect((await app.store.listDeliveries({ limit: 10 })).items.map((d) => d.id)).toEqual(['same-delivery-id']);
    const attempts = await app.store.listAttempts({ deliveryId: 'same-delivery-id', limit: 10 });
    expect(attempts.map((a) => a.outcome).sort()).toEqual(['accepted', 'duplicate']);
  });

  it('a wrong secret is refused by the receiver and the sender reports http_4xx without retrying', async () => {
    const { app } = await startListen({ secret: ['whsec_right'] });
    const result = await runCli(['send', '--to', app.receiverUrl, '--secret', 'whsec_wrong', '--json']);
    expect(result.code).toBe(1);
    const [delivery] = JSON.parse(result.stdout) as Array<{ status: string; attemptCount: number; lastFailureClass: string; responseStatus: number }>;
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'http_4xx', responseStatus: 400 });
    const [rejected] = await app.store.listAttempts({ outcomes: ['rejected'], limit: 1 });
    expect(rejected).toMatchObject({ reason: 'SIGNATURE_MISMATCH', status: 400 });
  });
});
