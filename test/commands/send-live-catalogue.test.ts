/** `send` with an API address checks its trigger against the live catalogue (spec 6.2), not only the built-in one. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../helpers/target-server.js';
import { runService } from '../service/command-harness.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An API that answers GET /v1/webhooks/triggers with `entries`, and counts the calls. */
async function catalogueApi(entries: unknown[]): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    calls++;
    res.setHeader('content-type', 'application/json');
    if (req.url !== '/v1/webhooks/triggers') {
      res.statusCode = 404;
      return res.end(JSON.stringify({ success: false, error: 'not found', code: 'NOT_FOUND' }));
    }
    res.end(JSON.stringify({ success: true, data: entries, timestamp: new Date().toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, calls: () => calls };
}

async function app(): Promise<Target> {
  const target = await startTarget();
  cleanups.push(() => target.close());
  return target;
}

const entry = (trigger: string, entitled: boolean) => ({ trigger, description: '', tier: entitled ? 'core' : 'premium', status: 'active', entitled });
const send = (to: string, trigger: string) => ['send', '--to', to, '--trigger', trigger, '--secret', 'whsec_live_catalogue_0123456789', '--json'];

describe('send and the live catalogue', () => {
  it('refuses a trigger the live catalogue does not have, naming what it has, and sends nothing', async () => {
    const api = await catalogueApi([entry('sod.violation_detected', true)]);
    const target = await app();
    const ran = await runService(send(target.url, 'vendor.rating_dropped'), { HOOKRELAY_API_URL: api.url, HOOKRELAY_API_KEY: 'hr_test_key_0123456789' });
    expect(ran.code).toBe(2);
    expect(ran.err).toContain('has no trigger "vendor.rating_dropped" (it has: sod.violation_detected)');
    expect(target.received).toHaveLength(0);
    expect(ran.err + ran.out).not.toContain('hr_test_key_0123456789');
  });

  it('sends a trigger the live catalogue has, and warns when the plan is not entitled to it', async () => {
    const api = await catalogueApi([entry('sod.violation_detected', true), entry('trustcenter.access_requested', false)]);
    const target = await app();
    const ok = await runService(send(target.url, 'sod.violation_detected'), { HOOKRELAY_API_URL: api.url, HOOKRELAY_API_KEY: 'hr_test_key_0123456789' });
    expect(ok.code, ok.err).toBe(0);
    expect(target.received).toHaveLength(1);
    const premium = await runService(send(target.url, 'trustcenter.access_requested'), { HOOKRELAY_API_URL: api.url, HOOKRELAY_API_KEY: 'hr_test_key_0123456789' });
    expect(premium.code).toBe(0);
    expect(premium.err).toContain('not entitled');
    expect(api.calls()).toBe(2);
  });

  it('without an API address, keeps the built-in catalogue and calls nothing', async () => {
    const api = await catalogueApi([]);
    const target = await app();
    const ran = await runService(send(target.url, 'sod.violation_detected'));
    expect(ran.code, ran.err).toBe(0);
    expect(api.calls()).toBe(0);
  });
});
