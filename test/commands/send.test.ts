import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerSendCommand } from '../../src/commands/send.js';
import { dataDirOf, makeDevSecret, writeDevSecret } from '../../src/config/data-dir.js';
import { addToSecretSet } from '../../src/service/secret-set.js';

function ensureDevSecret(dir: string): { secret: string } {
  const secret = makeDevSecret();
  writeDevSecret(dir, secret);
  return { secret };
}
import { verify } from '../../src/index.js';
import { runCli } from '../sender/helpers/cli.js';
import { runCli as runCliProcess } from '../helpers/run-cli.js';
import { inTurn, startTestServer, type Answer, type Arrival, type TestServer } from '../sender/helpers/test-server.js';

const SECRET = 'whsec_cli_test_secret_0123456789';
const FAST = ['--time-scale', '0.001', '--max-attempts', '3', '--initial-delay', '10', '--max-delay', '60'];

let server: TestServer | undefined;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookrelay-send-'));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function serve(answer: (a: Arrival) => Answer): Promise<TestServer> {
  server = await startTestServer(answer);
  return server;
}
const send = (...args: string[]) => runCli(registerSendCommand, ['send', ...args]);
const noDevSecret = () => ['--db', join(dir, 'hookrelay.db')];

describe('hookrelay send', () => {
  it('delivers a signed trustcenter.access_requested by default and prints a timeline and a summary', async () => {
    const s = await serve(() => ({ status: 200 }));
    const result = await send('--to', s.url(), '--secret', SECRET, ...noDevSecret());
    expect(result.exitCode).toBeUndefined();
    expect(result.out).toContain(`Sending 1 delivery of trustcenter.access_requested to ${s.url()}`);
    expect(result.out).toMatch(/#1 {2}\d\d:\d\d:\d\d\.\d{3}Z {2}200 {2}delivered/);
    expect(result.out).toContain('Summary: 1 delivery');
    expect(result.out).toContain('1 succeeded, 0 failed');
    expect(result.out + result.err).not.toContain(SECRET);
    const a = s.arrivals[0]!;
    expect(a.headers['x-service-event']).toBe('trustcenter.access_requested');
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: SECRET })).toMatchObject({ ok: true });
    const body = JSON.parse(a.body.toString('utf8'));
    expect(Object.keys(body.data)).toEqual(['accessRequestId']);
  });

  it('refuses a --to URL with credentials without printing them, and sends nothing', async () => {
    const s = await serve(() => ({ status: 200 }));
    const url = s.url().replace('http://', 'http://ana:hunter2-password@');
    const result = await send('--to', url, '--secret', SECRET, ...noDevSecret());
    expect(result.exitCode).toBe(2);
    expect(result.err).toContain('--to must not carry a user name or password');
    expect(result.out + result.err).not.toContain('hunter2');
    expect(s.arrivals).toHaveLength(0);
    // Nor when the URL does not parse (a port out of range): the part before "@" is still blanked.
    const unparseable = await send('--to', 'http://ana:hunter2@127.0.0.1:99999/x', '--secret', SECRET, ...noDevSecret());
    expect(unparseable.exitCode).toBe(2);
    expect(unparseable.err).toContain('--to is not a URL (got "http://[redacted]@127.0.0.1:99999/x")');
  });

  it('names a mistyped flag as unknown, with a suggestion, and a missing --to as missing', async () => {
    const typo = await runCliProcess(['send', '--too', 'http://127.0.0.1:1/x']);
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toMatch(/unknown option '--too'\n\(Did you mean --to\?\)/);
    const missing = await send(...noDevSecret());
    expect(missing.err).toMatch(/missing --to <url>: the receiver endpoint/);
  });

  it('prints the spec Delivery records with --json', async () => {
    const s = await serve(inTurn({ status: 503, headers: { 'retry-after': '12' } }, { status: 200 }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--json', ...FAST, ...noDevSecret());
    const records = JSON.parse(result.out);
    expect(records).toHaveLength(1);
    const d = records[0];
    expect(Object.keys(d).sort()).toEqual(
      ['apiVersion', 'attemptCount', 'attempts', 'createdAt', 'durationMs', 'errorMessage', 'id', 'isReplay', 'lastFailureClass', 'nextAttemptAt',
        'payload', 'replayOfDeliveryId', 'responseStatus', 'sentAt', 'status', 'trigger', 'webhookId'],
    );
    expect(d).toMatchObject({ status: 'succeeded', attemptCount: 2, lastFailureClass: 'http_5xx', trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01' });
    expect(Object.keys(d.attempts[0]).sort()).toEqual(['attemptNumber', 'durationMs', 'errorMessage', 'failureClass', 'finishedAt', 'responseStatus', 'startedAt']);
    expect(d.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([503, 200]);
    expect(d.payload.id).toBe(d.id);
  });

  it('exits 1 when a delivery fails, naming the class', async () => {
    const s = await serve(() => ({ status: 500 }));
    const result = await send('--to', s.url(), '--secret', SECRET, ...FAST, ...noDevSecret());
    expect(result.exitCode).toBe(1);
    expect(result.out).toContain('→ retry 1 in');
    expect(result.out).toContain('✗ no retry: maxAttempts 3 reached');
    expect(result.out).toContain('0 succeeded, 1 failed (http_5xx 1)');
    expect(s.arrivals).toHaveLength(3);
  });

  it('uses the attempt timeout from --timeout', async () => {
    const s = await serve(() => ({ hang: true }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--timeout', '300', '--max-attempts', '1', '--json', ...noDevSecret());
    expect(JSON.parse(result.out)[0]).toMatchObject({ status: 'failed', lastFailureClass: 'timeout', errorMessage: 'timeout' });
    expect(result.exitCode).toBe(1);
  });
});

describe('send: the policy and failure handling flags', () => {
  it('refuses an invalid policy in the 422 VALIDATION_ERROR style, exit 2, sending nothing', async () => {
    const s = await serve(() => ({ status: 200 }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--max-attempts', '11', ...noDevSecret());
    expect(result.exitCode).toBe(2);
    expect(result.err).toContain('error: the service would refuse this setting (422 VALIDATION_ERROR):');
    expect(result.err).toContain('retryPolicy.maxAttempts must be an integer from 1 to 10 (got 11)');
    expect(s.arrivals).toHaveLength(0);
  });

  it('prints the error envelope with --json', async () => {
    const result = await send('--to', 'http://127.0.0.1:9/', '--secret', SECRET, '--retry-policy', '{"initialDelaySeconds":600,"maxDelaySeconds":300}', '--json');
    expect(result.exitCode).toBe(2);
    const envelope = JSON.parse(result.err);
    expect(envelope).toMatchObject({ success: false, code: 'VALIDATION_ERROR', details: [{ field: 'retryPolicy.initialDelaySeconds' }] });
    expect(typeof envelope.timestamp).toBe('string');
  });

  it.each([
    [['--retry-policy', '{}', '--max-attempts', '3'], 'retryPolicy give either --retry-policy or --max-attempts, not both'],
    [['--retry-on', 'timeout,redirect'], 'retryPolicy.retryOn[1]'],
    [['--backoff', 'linear'], 'retryPolicy.backoff'],
    [['--auto-disable-after', '0'], 'failureHandling.autoDisableAfter must be an integer from 1 to 100'],
  ])('refuses %j', async (flags, text) => {
    const result = await send('--to', 'http://127.0.0.1:9/', '--secret', SECRET, ...flags);
    expect(result.exitCode).toBe(2);
    expect(result.err).toContain(text);
  });

  it('with retries disabled makes one attempt', async () => {
    const s = await serve(() => ({ status: 503 }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--retry-policy', '{"enabled":false}', ...noDevSecret());
    expect(result.out).toContain('retries are disabled');
    expect(s.arrivals).toHaveLength(1);
  });

  it('suspends on 410 unless --no-disable-on-gone', async () => {
    const s = await serve(() => ({ status: 410 }));
    const suspended = await send('--to', s.url(), '--secret', SECRET, '--count', '2', '--concurrency', '1', ...noDevSecret());
    expect(suspended.out).toContain('! webhook suspended (endpoint answered 410 Gone)');
    expect(suspended.out).toContain('failed (http_410 1, webhook_inactive 1)');
    expect(s.arrivals).toHaveLength(1);
    const kept = await send('--to', s.url(), '--secret', SECRET, '--count', '2', '--concurrency', '1', '--no-disable-on-gone', ...noDevSecret());
    expect(kept.out).toContain('failed (http_410 2)');
    expect(s.arrivals).toHaveLength(3);
  });

  it('suspends after --auto-disable-after failed deliveries', async () => {
    const s = await serve(() => ({ status: 404 }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--count', '3', '--concurrency', '1', '--auto-disable-after', '1', '--json', ...noDevSecret());
    expect(JSON.parse(result.out).map((d: { lastFailureClass: string }) => d.lastFailureClass)).toEqual(['http_4xx', 'webhook_inactive', 'webhook_inactive']);
  });
});

describe('send: the secret', () => {
  it('refuses to send without a secret when no development secret exists', async () => {
    const result = await send('--to', 'http://127.0.0.1:9/', ...noDevSecret());
    expect(result.exitCode).toBe(2);
    expect(result.err).toMatch(/no secret: no development secret in \/.+ \(listen makes one there when it starts without --secret\); pass --secret or set HOOKRELAY_SECRET, or run send in that listen's folder \(or with its --db\)/);
  });

  it("uses listen's development secret from the data folder of --db, showing only its hint", async () => {
    const { secret } = ensureDevSecret(dir);
    const s = await serve(() => ({ status: 200 }));
    const result = await send('--to', s.url(), '--db', join(dir, 'hookrelay.db'));
    expect(result.exitCode).toBeUndefined();
    expect(result.out).toContain('development secret');
    expect(result.out).not.toContain(secret);
    const a = s.arrivals[0]!;
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: secret })).toMatchObject({ ok: true });
  });

  it('honours HOOKRELAY_DB', async () => {
    const { secret } = ensureDevSecret(dir);
    const s = await serve(() => ({ status: 200 }));
    const before = process.env.HOOKRELAY_DB;
    process.env.HOOKRELAY_DB = join(dir, 'hookrelay.db');
    try {
      await send('--to', s.url());
    } finally {
      if (before === undefined) delete process.env.HOOKRELAY_DB;
      else process.env.HOOKRELAY_DB = before;
    }
    const a = s.arrivals[0]!;
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: secret })).toMatchObject({ ok: true });
  });

  it('signs with HOOKRELAY_SECRET, as listen reads it, before the development secret of the data folder; no process-list warning', async () => {
    ensureDevSecret(dir);
    const s = await serve(() => ({ status: 200 }));
    vi.stubEnv('HOOKRELAY_SECRET', SECRET);
    const result = await send('--to', s.url(), '--db', join(dir, 'hookrelay.db'));
    expect(result.exitCode).toBeUndefined();
    expect(result.out).toContain('  signing: HOOKRELAY_SECRET whsec_…6789');
    expect(result.err).not.toContain('process list');
    expect(result.out + result.err).not.toContain(SECRET);
    const a = s.arrivals[0]!;
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: SECRET })).toMatchObject({ ok: true });
  });

  it('HOOKRELAY_SECRET with several secrets (rotation): signs with the first, as listen relays', async () => {
    const s = await serve(() => ({ status: 200 }));
    vi.stubEnv('HOOKRELAY_SECRET', `${SECRET},whsec_older_secret_0123456789abcd`);
    const result = await send('--to', s.url(), ...noDevSecret());
    expect(result.out).toContain('  signing: HOOKRELAY_SECRET whsec_…6789 (the first of 2, the one listen signs with)');
    const a = s.arrivals[0]!;
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: SECRET })).toMatchObject({ ok: true });
  });

  it('with no secret given, signs with what listen verifies with: the newest kept secret (webhooks create --signing) before the development secret', async () => {
    const s = await serve(() => ({ status: 200 }));
    const db = join(dir, 'hookrelay.db');
    const kept = 'whsec_kept_by_webhooks_create_0123456789';
    writeDevSecret(dataDirOf(db), makeDevSecret());
    addToSecretSet(dataDirOf(db), { secret: kept, webhookId: null, origin: 'test' }, Date.now());
    const result = await send('--to', s.url(), '--db', db);
    expect(result.out).toContain(`  signing: kept secret (webhooks create --signing) whsec_…6789 from ${dataDirOf(db)}`);
    const a = s.arrivals[0]!;
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: kept })).toMatchObject({ ok: true });
  });

  it('--secret wins over HOOKRELAY_SECRET, and warns as listen does that the process list shows it', async () => {
    const s = await serve(() => ({ status: 200 }));
    vi.stubEnv('HOOKRELAY_SECRET', 'whsec_from_the_environment_0123456789');
    const result = await send('--to', s.url(), '--secret', SECRET, ...noDevSecret());
    expect(result.err.split('\n')).toContain('warning: --secret is visible to every user of this machine in the process list; prefer HOOKRELAY_SECRET');
    expect(result.out).toContain('  signing: --secret whsec_…6789');
    const a = s.arrivals[0]!;
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: SECRET })).toMatchObject({ ok: true });
  });

  it('--unsigned with HOOKRELAY_SECRET set sends unsigned: only the flag conflicts with it', async () => {
    const s = await serve(() => ({ status: 200 }));
    vi.stubEnv('HOOKRELAY_SECRET', SECRET);
    const result = await send('--to', s.url(), '--unsigned', ...noDevSecret());
    expect(result.exitCode).toBeUndefined();
    expect(s.arrivals[0]!.headers['x-service-signature']).toBeUndefined();
  });

  it('a --secret with a trailing newline: a warning at start names it, and no line shows the newline raw', async () => {
    const s = await serve(() => ({ status: 200 }));
    const result = await send('--to', s.url(), '--secret', `${SECRET}\n`, ...noDevSecret());
    expect(result.err).toContain("warning: --secret has a trailing newline: the service's secrets have none");
    expect(result.out).toContain('  signing: --secret whsec_…789\\u000a\n');
    // Every line printed is whole: no control character but the line ends.
    expect(result.out + result.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('send --help shows that HOOKRELAY_SECRET is read, and its example keeps the secret out of the process list', { timeout: 30_000 }, async () => {
    const run = await runCliProcess(['send', '--help']);
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(/--secret <secret> signing secret \(default: as listen: HOOKRELAY_SECRET, .*\); visible in the process list: prefer the env variable \[env HOOKRELAY_SECRET\]/);
    expect(run.stdout).toContain('HOOKRELAY_SECRET="$WEBHOOK_SECRET" npx hookrelay send');
    expect(run.stdout).not.toMatch(/--secret "\$/);
  });

  it('sends unsigned only with --unsigned, and not together with --secret', async () => {
    const s = await serve(() => ({ status: 200 }));
    await send('--to', s.url(), '--unsigned', ...noDevSecret());
    expect(s.arrivals[0]!.headers['x-service-signature']).toBeUndefined();
    const both = await send('--to', s.url(), '--unsigned', '--secret', SECRET);
    expect(both.exitCode).toBe(2);
    expect(both.err).toContain('either --secret or --unsigned');
  });
});

describe('send: what is sent', () => {
  it('sends --count deliveries with distinct ids', async () => {
    const s = await serve(() => ({ status: 200 }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--count', '5', '--concurrency', '2', '--json', ...noDevSecret());
    const ids = JSON.parse(result.out).map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(5);
    expect(new Set(s.arrivals.map((a) => a.headers['x-service-delivery'])).size).toBe(5);
  });

  it('sample data for a Trust Center trigger carries the spec 6.2 fields, repeatable with --seed; ids stay fresh', async () => {
    const s = await serve(() => ({ status: 200 }));
    await send('--to', s.url(), '--secret', SECRET, '--trigger', 'trustcenter.resource_downloaded', '--seed', '5', ...noDevSecret());
    await send('--to', s.url(), '--secret', SECRET, '--trigger', 'trustcenter.resource_downloaded', '--seed', '5', ...noDevSecret());
    const [a, b] = s.arrivals.map((x) => JSON.parse(x.body.toString('utf8')));
    expect(Object.keys(a.data).sort()).toEqual(['accessEventId', 'channel', 'occurredAt', 'resourceId', 'visitorTokenId', 'watermarked']);
    expect(b.data.accessEventId).toBe(a.data.accessEventId);
    expect(b.id).not.toBe(a.id);
    expect(s.arrivals[0]!.headers['x-service-event']).toBe('trustcenter.resource_downloaded');
  });

  it('sends --data as the data object', async () => {
    const s = await serve(() => ({ status: 200 }));
    await send('--to', s.url(), '--secret', SECRET, '--trigger', 'trustcenter.access_rejected', '--data', '{"accessRequestId":"r-1","decidedBy":"access_rule"}', ...noDevSecret());
    expect(JSON.parse(s.arrivals[0]!.body.toString('utf8')).data).toEqual({ accessRequestId: 'r-1', decidedBy: 'access_rule' });
  });

  it('sends a --payload file byte for byte', async () => {
    const s = await serve(() => ({ status: 200 }));
    const file = join(dir, 'body.json');
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"file-id-1",  "type":"sod.violation_detected","data":{"x":"\u00e9"}}')]);
    writeFileSync(file, raw);
    await send('--to', s.url(), '--secret', SECRET, '--payload', file, ...noDevSecret());
    const a = s.arrivals[0]!;
    expect(a.body.equals(raw)).toBe(true);
    expect(a.headers['x-service-delivery']).toBe('file-id-1');
    expect(a.headers['x-service-event']).toBe('sod.violation_detected');
    expect(verify(a.body, a.headers['x-service-signature'] as string, { secrets: SECRET })).toMatchObject({ ok: true });
  });

  it.each([
    [['--trigger', 'trustcenter.access_granted'], 'unknown trigger "trustcenter.access_granted"'],
    [['--data', '[1,2]'], '--data must be a JSON object'],
    [['--data', '{}', '--payload', 'x.json'], 'either --data or --payload'],
    [['--payload', '/nonexistent/body.json'], 'cannot read --payload /nonexistent/body.json: no such file'],
    [['--count', '0'], '--count must be an integer from 1 to 100000'],
    [['--concurrency', 'many'], '--concurrency must be an integer'],
    [['--time-scale', '-1'], '--time-scale must be a number >= 0'],
    [['--timeout', '0'], '--timeout must be an integer'],
  ])('refuses %j with exit 2', async (flags, text) => {
    const result = await send('--to', 'http://127.0.0.1:9/', '--secret', SECRET, ...flags);
    expect(result.exitCode).toBe(2);
    expect(result.err).toContain(text);
  });

  it.each([['ftp://example.com/'], ['not a url']])('refuses --to %j', async (to) => {
    const result = await send('--to', to, '--secret', SECRET);
    expect(result.exitCode).toBe(2);
    expect(result.err).toContain('--to');
  });

  it('fails loopback as blocked under --block-private', async () => {
    const s = await serve(() => ({ status: 200 }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--block-private', '--json', ...noDevSecret());
    expect(JSON.parse(result.out)[0]).toMatchObject({ status: 'failed', lastFailureClass: 'blocked' });
    expect(s.arrivals).toHaveLength(0);
    expect(result.exitCode).toBe(1);
  });

  it('under --block-private, the closing line says the attempts were blocked, not that the receiver may be down', async () => {
    const s = await serve(() => ({ status: 200 }));
    const result = await send('--to', s.url(), '--secret', SECRET, '--block-private', ...noDevSecret());
    expect(result.out).toMatch(/---  blocked .*✗ no retry/);
    expect(result.out).not.toContain('none could connect');
    expect(result.out).not.toContain('is it listening');
    expect(result.out).toContain('No attempt reached a receiver: --block-private blocked every one');
    expect(s.arrivals).toHaveLength(0);
  });
});
