/** /metrics on the console listener after real traffic: every named series, parsed from the text. */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppHandle } from '../../src/app/build-app.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import { closed, tryUpgrade } from '../console/helpers/sockets.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { startApp, TEST_CONSOLE } from '../helpers/start-app.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function start(overrides: Partial<ListenConfig>): Promise<AppHandle> {
  return startApp(cleanups, { console: TEST_CONSOLE, ...overrides });
}

const now = () => Math.floor(Date.now() / 1000);

async function post(app: AppHandle, req: ReturnType<typeof signedRequest>): Promise<number> {
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  return res.statusCode;
}

/** `name{labels} value` lines into a map keyed by `name{labels}`. */
function parse(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  const res = await request(url, { headers });
  return { status: res.statusCode, type: String(res.headers['content-type']), text: await res.body.text() };
}

describe('/metrics', () => {
  it('counts attempts, relay tries, commits, the queue and console clients after real traffic', async () => {
    const target = await startTarget(() => 204);
    cleanups.push(() => target.close());
    const app = await start({ faultRules: [], forward: { to: target.url, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 3 } });
    app.faults.add('503 retry-after=120 trigger=vendor.*');
    const relayed = new Promise<void>((resolve) => app.hub.on('relay', (r) => r.ok && resolve()));
    const first = signedRequest({ t: now() });
    expect(await post(app, first)).toBe(200);
    expect(await post(app, first)).toBe(200);
    expect(await post(app, signedRequest({ t: now(), secret: 'whsec_wrong_secret_000' }))).toBe(400);
    expect(await post(app, signedRequest({ t: now(), trigger: 'vendor.rating_dropped' }))).toBe(503);
    await relayed;
    const origin = new URL(app.consoleUrl!).origin;
    const feed = await tryUpgrade(Number(new URL(app.consoleUrl!).port), { origin, protocols: ['hookrelay.v1'] });
    expect(feed.opened).toBe(true);

    const { status, type, text } = await scrape(new URL('/metrics', app.consoleUrl!).href);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parse(text);
    expect(m.get('hookrelay_attempts_total{outcome="accepted",reason="none"}')).toBe(1);
    expect(m.get('hookrelay_attempts_total{outcome="duplicate",reason="none"}')).toBe(1);
    expect(m.get('hookrelay_attempts_total{outcome="rejected",reason="SIGNATURE_MISMATCH"}')).toBe(1);
    expect(m.get('hookrelay_attempts_total{outcome="faulted",reason="fault"}')).toBe(1);
    expect(m.get('hookrelay_accepted_total')).toBe(1);
    expect(m.get('hookrelay_duplicates_total')).toBe(1);
    expect(m.get('hookrelay_rejected_total{reason="SIGNATURE_MISMATCH"}')).toBe(1);
    expect(m.get('hookrelay_faults_fired_total{answer="503"}')).toBe(1);
    expect(m.get('hookrelay_store_commit_seconds_count')).toBeGreaterThanOrEqual(3);
    expect(m.get('hookrelay_store_commit_batch_size_sum')).toBeGreaterThanOrEqual(4);
    expect(m.get('hookrelay_relay_total{outcome="ok",status_class="2xx",replay="false"}')).toBe(1);
    expect(m.get('hookrelay_relay_seconds_count{outcome="ok",replay="false"}')).toBe(1);
    expect(m.get('hookrelay_relay_queue_depth')).toBe(0);
    expect(m.get('hookrelay_relay_jobs{state="done"}')).toBe(1);
    expect(m.get('hookrelay_console_clients')).toBe(1);
    expect(m.has('process_resident_memory_bytes')).toBe(true);
    expect(text).not.toContain(TEST_SECRET);
    if (feed.opened) {
      feed.ws.close();
      await closed(feed.ws);
    }
    // Never on the receiver.
    expect((await scrape(new URL('/metrics', app.receiverUrl).href)).status).toBe(404);
  });

  it('follows the console token beyond loopback: header or ?token=, else 401', async () => {
    const app = await start({ console: { port: 0, host: '0.0.0.0', allowedHosts: [], token: 'metrics-token-0123' } });
    const url = new URL('/metrics', `http://localhost:${new URL(app.consoleUrl!).port}`);
    expect((await scrape(url.href)).status).toBe(401);
    expect((await scrape(url.href, { 'x-hookrelay-token': 'wrong-token-000' })).status).toBe(401);
    expect((await scrape(url.href, { 'x-hookrelay-token': 'metrics-token-0123' })).status).toBe(200);
    url.searchParams.set('token', 'metrics-token-0123');
    const withQuery = await scrape(url.href);
    expect(withQuery.status).toBe(200);
    expect(withQuery.text).toContain('hookrelay_attempts_total');
    expect((await scrape(url.href, { host: 'evil.example:80' })).status).toBe(403);
  });
});
