import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { registerTriggersCommand } from '../../src/commands/triggers.js';
import { runService } from '../service/command-harness.js';
import { runCli } from '../sender/helpers/cli.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An API that answers GET /v1/webhooks/triggers with `entries`. */
async function catalogueApi(entries: unknown[]): Promise<string> {
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url !== '/v1/webhooks/triggers') {
      res.statusCode = 404;
      return res.end(JSON.stringify({ success: false, error: 'not found', code: 'NOT_FOUND' }));
    }
    res.end(JSON.stringify({ success: true, data: entries, timestamp: new Date().toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('hookrelay triggers', () => {
  it('prints the seven triggers with tier, description and data fields', async () => {
    const { out, exitCode } = await runCli(registerTriggersCommand, ['triggers']);
    expect(exitCode).toBeUndefined();
    for (const name of [
      'trustcenter.access_requested', 'trustcenter.access_approved', 'trustcenter.access_rejected', 'trustcenter.resource_downloaded',
      'control.drift_detected', 'vendor.rating_dropped', 'sod.violation_detected',
    ]) {
      expect(out).toMatch(new RegExp(`^${name.replace('.', '\\.')}\\s+(premium|core)\\s+\\S`, 'm'));
    }
    expect(out).toMatch(/^trustcenter\.resource_downloaded\s+premium/m);
    expect(out).toContain('data: accessEventId, resourceId, visitorTokenId, channel, watermarked, occurredAt');
  });

  it('prints the catalogue entries as JSON with --json', async () => {
    const { out } = await runCli(registerTriggersCommand, ['triggers', '--json']);
    const entries = JSON.parse(out);
    expect(entries).toHaveLength(7);
    expect(entries[1]).toEqual({
      trigger: 'trustcenter.access_approved',
      description: expect.any(String),
      tier: 'premium',
      status: 'active',
      entitled: true,
      dataFields: ['accessRequestId', 'visitorTokenId', 'decidedBy'],
    });
  });

  it('--live --json: the API\'s entries as given, each with dataFields as --json has them, null for a trigger this build does not know', async () => {
    const entry = (trigger: string) => ({ trigger, description: 'd', tier: 'core', status: 'active', entitled: true });
    const url = await catalogueApi([entry('trustcenter.access_approved'), entry('vendor.contract_renewed'), { ...entry('sod.violation_detected'), dataFields: ['fromTheApi'] }]);
    const ran = await runService(['triggers', '--live', '--json'], { HOOKRELAY_API_URL: url, HOOKRELAY_API_KEY: 'hr_test_key_0123456789' });
    expect(ran.code, ran.err).toBe(0);
    const built = JSON.parse((await runCli(registerTriggersCommand, ['triggers', '--json'])).out) as Array<{ trigger: string; dataFields: string[] }>;
    expect(JSON.parse(ran.out)).toEqual([
      { ...entry('trustcenter.access_approved'), dataFields: built.find((e) => e.trigger === 'trustcenter.access_approved')!.dataFields },
      { ...entry('vendor.contract_renewed'), dataFields: null },
      { ...entry('sod.violation_detected'), dataFields: ['fromTheApi'] },
    ]);
    expect(built.find((e) => e.trigger === 'trustcenter.access_approved')!.dataFields).toEqual(['accessRequestId', 'visitorTokenId', 'decidedBy']);
  });
});
