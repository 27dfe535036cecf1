/** `emulate --proxy`: the delivery engine's attempts go through the proxy (loopback too, since it was asked). */
import { afterEach, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../helpers/target-server.js';
import { startEmulator, webhookBody, type Harness } from '../emulate/helpers.js';
import { startTestProxy, type TestProxy } from './helpers/test-proxy.js';

let h: Harness | null = null;
let target: Target | null = null;
let proxy: TestProxy | null = null;
afterEach(async () => {
  await h?.close();
  await target?.close();
  await proxy?.close();
  h = target = proxy = null;
});

describe('emulate through a proxy', () => {
  it('sends each attempt through --proxy', async () => {
    proxy = await startTestProxy();
    target = await startTarget(() => 204);
    h = await startEmulator({ proxy: { explicit: { url: proxy.url, from: '--proxy' }, https: null, http: null, noProxy: [] } });
    const created = await h.api('POST', '/v1/webhooks', { body: webhookBody(target.url) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const fired = await h.api('POST', '/v1/_emulator/events', { body: { type: 'control.drift_detected' } });
    expect(fired.status, JSON.stringify(fired.body)).toBe(201);
    await target.waitFor(1);
    expect(proxy.targets).toContain(`127.0.0.1:${target.port}`);
  });
});
