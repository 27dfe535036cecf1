/** Section 8 budgets on the Trust Center and SoD reads and writes, as on the webhook endpoints. */
import { afterEach, expect, it } from 'vitest';
import { startEmulator, type Harness } from '../emulate/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('the 301st read of a minute is 429 TOO_MANY_REQUESTS with Retry-After; the write budget is its own', { timeout: 60_000 }, async () => {
  h = await startEmulator({ plan: 'premium', rateLimitScale: 1 });
  const fired = await h.api('POST', '/v1/_emulator/events', { body: { type: 'trustcenter.access_requested' } });
  const id = fired.body.data.recordIds[0];
  // spec 8: "Read budget per API client | 300 requests per minute"
  for (let i = 0; i < 300; i++) {
    const res = await h.api('GET', i % 2 === 0 ? '/v1/trust-center/access-events' : '/v1/sod/violations');
    expect(res.status).toBe(200);
  }
  const over = await h.api('GET', '/v1/trust-center/resources');
  // spec 8: "When a limit is exceeded the answer is 429 TOO_MANY_REQUESTS. The response carries RateLimit-Remaining and a Retry-After header"
  expect(over.status).toBe(429);
  expect(over.body).toMatchObject({ success: false, code: 'TOO_MANY_REQUESTS' });
  expect(over.headers['retry-after']).toBeDefined();
  expect(over.headers['ratelimit-remaining']).toBe('0');
  // spec 8: "Write budget per API client | 120 requests per minute": a decision still goes through.
  const approve = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} });
  expect(approve.status).toBe(200);
  expect(approve.headers['ratelimit-limit']).toBe('120');
});
