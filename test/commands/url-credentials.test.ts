/**
 * Credentials inside forward and route URLs (`http://bob:password@…`, `?token=…`) are used for the
 * hand-off (Basic authorization, the query as given) and never shown: not in the banner, the JSON
 * log, a stored relay try, `events show`, an export or the console's answers. Only `[redacted]`.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startListenBanner, startListenProcess } from '../helpers/listen-process.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PASSWORD = 'Hunter2Pass';
const ROUTE_PASSWORD = 'RoutePass99';
const QUERY_TOKEN = 'QueryTok4242';
const LEAKS = [PASSWORD, ROUTE_PASSWORD, QUERY_TOKEN];

const leaked = (text: string) => LEAKS.filter((secret) => text.includes(secret));

describe('credentials in forward and route URLs', () => {
  it('are sent as Basic authorization and never printed, logged, stored, exported or shown by the console', async () => {
    const target = await startTarget();
    cleanups.push(() => target.close());
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'creds.db');
    const forward = `http://bob:${PASSWORD}@127.0.0.1:${target.port}/webhooks`;
    const route = `vendor.*=http://carol:${ROUTE_PASSWORD}@127.0.0.1:${target.port}/vendor?token=${QUERY_TOKEN}&keep=1`;
    const args = ['--db', db, '--forward-to', forward, '--route', route];
    const listen = await startListenProcess([...args, '--secret', TEST_SECRET]);
    cleanups.push(() => listen.child.kill('SIGKILL'));

    const plainReq = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const vendorReq = signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'vendor.rating_dropped' });
    for (const req of [plainReq, vendorReq]) {
      const res = await request(listen.url, { method: 'POST', headers: req.headers, body: req.body });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    }
    await target.waitFor(2);
    const auths = target.received.map((r) => r.headers.authorization).sort();
    expect(auths).toEqual([`Basic ${Buffer.from(`bob:${PASSWORD}`).toString('base64')}`, `Basic ${Buffer.from(`carol:${ROUTE_PASSWORD}`).toString('base64')}`].sort());

    // The console: its status and the delivery's relay history.
    const consoleUrl = /"console":"(http:\/\/[^"]+)"/.exec(listen.output())![1]!;
    const answers: string[] = [];
    for (const path of ['/api/status', `/api/deliveries/${plainReq.id}`, `/api/deliveries/${vendorReq.id}`]) {
      const res = await request(new URL(path, consoleUrl).href);
      answers.push(await res.body.text());
    }
    expect(answers.join('\n')).toContain('[redacted]@127.0.0.1');
    expect(leaked(answers.join('\n'))).toEqual([]);

    listen.child.kill('SIGTERM');
    await listen.exited;
    expect(listen.output()).toContain('"forwardTo":"http://[redacted]@127.0.0.1');
    expect(leaked(listen.output())).toEqual([]);

    const show = await runCli(['events', 'show', vendorReq.id, '--db', db]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`token=[redacted]`);
    expect(show.stdout).toContain('keep=1');
    const shown = await runCli(['events', 'show', plainReq.id, '--db', db]);
    const json = await runCli(['events', 'show', vendorReq.id, '--db', db, '--json']);
    expect(json.stdout).toContain('"target": "http://[redacted]@127.0.0.1');
    expect(leaked(json.stdout)).toEqual([]);
    const exported = await runCli(['events', 'export', '--db', db]);
    expect(leaked(show.stdout + show.stderr + shown.stdout + shown.stderr + exported.stdout + exported.stderr)).toEqual([]);

    const { banner } = await startListenBanner([...args, '--port', '0', '--no-console', '--secret', TEST_SECRET], (kill) => cleanups.push(kill));
    expect(banner).toContain(`forward    http://[redacted]@127.0.0.1:${target.port}/webhooks`);
    expect(leaked(banner)).toEqual([]);
  }, 60_000);
});
