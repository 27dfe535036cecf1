/** `--log-format json`: pino lines with level, time, msg and fields; secrets and signatures redacted; a request id per request. */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { secretHint } from '../../src/config/data-dir.js';
import { attachTerminalReporter } from '../../src/reporter/terminal-reporter.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testListenConfig } from '../helpers/listen-config.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function capture(): { out: Writable; lines: () => Array<Record<string, unknown>>; text: () => string } {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { out, text: () => text, lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const redactSecrets = (secrets: string[]) => (text: string) => secrets.reduce((t, s) => t.split(s).join(secretHint(s)), text);

describe('JSON logs (pino)', () => {
  it('writes one line per attempt with level, time, msg, the request id, and never the secret or a signature', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const app: AppHandle = await buildApp(testListenConfig(join(dir, 'app.db'), { logFormat: 'json' }));
    cleanups.push(() => app.close());
    const sink = capture();
    const reporter = attachTerminalReporter(app.hub, { format: 'json', out: sink.out, color: false, redact: redactSecrets([TEST_SECRET]) });
    cleanups.push(() => reporter.detach());

    const attempts: string[] = [];
    app.hub.on('attempt', ({ requestId }) => attempts.push(String(requestId)));
    const good = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const bad = signedRequest({ t: Math.floor(Date.now() / 1000), secret: 'whsec_other_secret_999' });
    const answers: string[] = [];
    for (const req of [good, bad]) {
      const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
      await res.body.dump();
      answers.push(String(res.headers['x-request-id']));
    }
    app.hub.emit('notice', { level: 'warn', message: `a careless message holding ${TEST_SECRET}` });
    reporter.logger!.info({ event: 'probe', headers: { 'x-service-signature': good.headers['x-service-signature'] }, secret: TEST_SECRET }, 'structured');
    reporter.flush();

    const text = sink.text();
    const lines = sink.lines();
    expect(text).not.toContain(TEST_SECRET);
    expect(text).not.toContain(good.headers['x-service-signature']!.split('v1=')[1]);
    const logged = lines.filter((l) => l.event === 'attempt');
    expect(logged.map((l) => [l.level, l.msg, l.outcome])).toEqual([
      ['info', '200 accepted', 'accepted'],
      ['warn', '400 rejected', 'rejected'],
    ]);
    // The id in the line is the one the sender got back in x-request-id.
    expect(logged.map((l) => l.requestId)).toEqual(answers);
    expect(attempts).toEqual(answers);
    for (const line of logged) {
      expect(line.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof line.time).toBe('string');
      expect(Number.isNaN(Date.parse(line.time as string))).toBe(false);
    }
    expect(lines.find((l) => l.event === 'notice')).toMatchObject({ level: 'warn', msg: `a careless message holding ${secretHint(TEST_SECRET)}` });
    expect(lines.find((l) => l.event === 'probe')).toMatchObject({ secret: '[redacted]', headers: { 'x-service-signature': '[redacted]' } });
  });

  it('writes one line per relay try, level by outcome, with the secret replaced in an error', () => {
    const hub = createEventHub();
    const sink = capture();
    const reporter = attachTerminalReporter(hub, { format: 'json', out: sink.out, color: false, redact: redactSecrets([TEST_SECRET]) });
    hub.emit('relay', { deliveryId: 'd-1', status: 204, ok: true, latencyMs: 3, replay: false, target: 'http://127.0.0.1:3000/hook' });
    hub.emit('relay', { deliveryId: 'd-2', status: null, ok: false, latencyMs: 10, replay: true, error: `refused by http://u:${TEST_SECRET}@app`, nextRetryAt: 99, target: 'http://127.0.0.1:3001/audit' });
    reporter.flush();
    reporter.detach();
    expect(sink.text()).not.toContain(TEST_SECRET);
    const [ok, failed] = sink.lines();
    expect(ok).toMatchObject({ level: 'info', pid: process.pid, event: 'relay', deliveryId: 'd-1', status: 204, ok: true, latencyMs: 3, replay: false, target: 'http://127.0.0.1:3000/hook', msg: 'relay forwarded' });
    expect(failed).toMatchObject({ level: 'warn', event: 'relay', deliveryId: 'd-2', status: null, ok: false, nextRetryAt: 99, msg: 'relay failed' });
    expect(failed!.error).toContain(secretHint(TEST_SECRET));
    expect(Number.isNaN(Date.parse(ok!.time as string))).toBe(false);
  });

  it('prints a relay try\'s longest error whole, its fix included (a TLS failure), and cuts a longer one', () => {
    const hub = createEventHub();
    const sink = capture();
    const reporter = attachTerminalReporter(hub, { format: 'pretty', out: sink.out, color: false });
    const tls = "TLS error: the target's certificate is not trusted: its certificate chain ends in a self-signed root that is not trusted (SELF_SIGNED_CERT_IN_CHAIN); trust it with --forward-ca FILE, or pass --forward-insecure for a local app";
    hub.emit('relay', { deliveryId: 'd-1', status: null, ok: false, latencyMs: 3, replay: false, error: tls, target: 'https://localhost:3443/hook' });
    hub.emit('relay', { deliveryId: 'd-2', status: null, ok: false, latencyMs: 3, replay: false, error: 'x'.repeat(1000), target: 'https://localhost:3443/hook' });
    reporter.flush();
    reporter.detach();
    expect(sink.text()).toContain(`${tls}\n`);
    expect(sink.text()).toContain(`${'x'.repeat(259)}…`);
    expect(sink.text()).not.toContain('x'.repeat(260));
  });

  it('keeps the pretty format as plain lines', () => {
    const hub = createEventHub();
    const sink = capture();
    const reporter = attachTerminalReporter(hub, { format: 'pretty', out: sink.out, color: false });
    hub.emit('notice', { level: 'info', message: 'hello' });
    reporter.flush();
    reporter.detach();
    expect(reporter.logger).toBeNull();
    expect(sink.text()).toBe('hello\n');
  });
});
