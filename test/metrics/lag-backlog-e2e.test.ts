/** Lag and backlog on a real `listen` (issue 39, item 3): its console's /metrics reads the node's store at scrape time. */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppHandle } from '../../src/app/build-app.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { startApp, TEST_CONSOLE } from '../helpers/start-app.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function text(url: string): Promise<string> {
  const res = await request(url);
  expect(res.statusCode).toBe(200);
  return res.body.text();
}

describe('/metrics on a listen', () => {
  it('serves the owed jobs, the oldest age and the retrying jobs of a failing target, its credentials redacted', async () => {
    const target = await startTarget(() => 503);
    cleanups.push(() => target.close());
    const to = target.url.replace('http://', 'http://relay-user:relay-pass-123@');
    const app: AppHandle = await startApp(cleanups, { console: TEST_CONSOLE, forward: { to, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 5 } });
    const failed = new Promise<void>((resolve) => app.hub.on('relay', (r) => !r.ok && resolve()));
    const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const answer = await request(app.receiverUrl, { method: 'POST', headers: sent.headers, body: sent.body });
    await answer.body.dump();
    expect(answer.statusCode).toBe(200);
    await failed;

    const shown = `target="${target.url.replace('http://', 'http://[redacted]@')}"`;
    const metrics = await text(new URL('/metrics', app.consoleUrl!).href);
    expect(metrics).toContain(`hookrelay_relay_owed_jobs{${shown},state="pending"} 1`);
    expect(metrics).toContain(`hookrelay_relay_retrying_jobs{${shown}} 1`);
    expect(metrics).toContain(`hookrelay_relay_dead_jobs{${shown}} 0`);
    expect(metrics).toMatch(new RegExp(`hookrelay_relay_oldest_owed_age_seconds\\{${shown.replace(/[[\]().*+?^$\\/]/g, '\\$&')}\\} \\d+\\n`));
    expect(metrics).not.toContain('relay-pass-123');
    const status = JSON.parse(await text(new URL('/api/status', app.consoleUrl!).href));
    expect(status.data.features.metrics).toBe(true);
  });
});
