import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { deliveryItem, formatExport, type ExportFormat } from '../../src/commands/events-export.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { StoredDelivery } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { startRawCapture, type RawRequest } from '../helpers/shell-stub.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
/** What `events export --format <format> --url <url>` (no --include-signature) writes for these stored deliveries. */
const exportText = (format: ExportFormat, deliveries: readonly StoredDelivery[], url = 'http://127.0.0.1:4000/webhooks') =>
  formatExport(format, deliveries.map(deliveryItem), url, { includeSignature: false }).toString();
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"q":"it's \\"x\\" $(rm -rf /) \``), Buffer.from([0xff, 0x0a]), Buffer.from('"}')]);
const delivery: StoredDelivery = {
  seq: 1, id: "d'1", trigger: 'vendor.rating_dropped', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: 1_763_719_200_000,
  rawBody: body, signature: 'valid', secretIndex: 0, signatureTimestamp: 1_763_719_200, duplicateCount: 2, lastAttemptAt: 0,
  headers: [['Host', 'x'], ['Content-Type', 'application/json'], ['X-Service-Delivery', "d'1"], ['X-Odd', "a'b $HOME `id`"]],
};

describe('events export', () => {
  it('--json prints the stored delivery and the attempt of events show, their MACs redacted unless --include-signature', async () => {
    const temp = tempDir('hookrelay-export-json-');
    cleanups.push(temp.remove);
    const db = join(temp.dir, 'hookrelay.db');
    const mac = 'ab'.repeat(32);
    const signature = ['X-Service-Signature', `t=1763719200,v1=${mac}`];
    const store = await createSqliteStore(db, {});
    const d = makeDelivery({ id: 'evt-s', rawHeaders: ['Content-Type', 'application/json', ...signature] });
    await store.recordAttempt(attemptFor(d, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', request: { headers: [['x-service-signature', signature[1]!]], body: Buffer.from(d.rawBody) } }));
    await store.accept(d, attemptFor(d, { receivedAt: 1_763_719_260_000, attemptHeader: 2 }));
    await store.close();
    const [all, attempt, kept] = await Promise.all([
      runCli(['events', 'export', '--db', db, '--json']),
      runCli(['events', 'export', 'evt-s', '--attempt', '1', '--db', db, '--json']),
      runCli(['events', 'export', '--db', db, '--json', '--include-signature']),
    ]);
    for (const ran of [all, attempt, kept]) expect(ran.code, ran.stderr).toBe(0);
    const line = JSON.parse(all.stdout) as { id: string; headers: string[][]; body: string };
    expect(line).toMatchObject({ id: 'evt-s', body: d.rawBody.toString() });
    expect(line.headers).toContainEqual(['X-Service-Signature', 't=1763719200,v1=redacted']);
    const refused = JSON.parse(attempt.stdout) as { outcome: string; senderAttempt: number; hop: number; request: { headers: string[][] } };
    expect(refused).toMatchObject({ outcome: 'rejected', senderAttempt: 1, hop: 0 });
    expect(refused.request.headers).toEqual([['x-service-signature', 't=1763719200,v1=redacted']]);
    expect(`${all.stdout}${attempt.stdout}`).not.toContain(mac);
    expect(kept.stdout).toContain(mac);
  });

  it('ndjson keeps the exact bytes in base64 and a readable body', () => {
    const line = JSON.parse(exportText('ndjson', [delivery]).trim());
    expect(Buffer.from(line.bodyBase64, 'base64').equals(body)).toBe(true);
    expect(line).toMatchObject({ id: "d'1", trigger: 'vendor.rating_dropped', duplicateCount: 2 });
  });

  it('HAR 1.2 is valid JSON with the exact bytes in _bodyBase64', () => {
    const har = JSON.parse(exportText('har', [delivery]));
    expect(har.log.version).toBe('1.2');
    const request = har.log.entries[0].request;
    expect(request.method).toBe('POST');
    expect(Buffer.from(request._bodyBase64, 'base64').equals(body)).toBe(true);
    expect(request._bodyIsExactUtf8).toBe(false);
  });

  it.each([
    ['plain UTF-8', Buffer.from('{"a":"é"}'), true],
    ['a BOM (dropped from postData.text)', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]), false],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), false],
  ])('HAR says the text is exact only when it is the body byte for byte: %s', (_name, raw, exact) => {
    const request = JSON.parse(exportText('har', [{ ...delivery, rawBody: raw }], 'http://h/x')).log.entries[0].request;
    expect(request._bodyIsExactUtf8).toBe(exact);
    expect(Buffer.from(request.postData.text, 'utf8').equals(raw)).toBe(exact);
  });

  it('the curl script re-sends the body byte for byte and runs nothing from the delivery', async () => {
    const target = await startTarget();
    cleanups.push(() => target.close());
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const script = join(dir, 'replay.sh');
    writeFileSync(script, exportText('curl', [delivery], target.url));
    await run('sh', [script]);
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.body.equals(body)).toBe(true);
    expect(target.received[0]!.headers['x-odd']).toBe("a'b $HOME `id`");
    expect(target.received[0]!.headers['x-service-delivery']).toBe("d'1");
  });

  // Issue 36 item 24: the app's answers, which seldom end in a newline, are not run together.
  it.each([['sh'], ['bash'], ['zsh']])('the curl script ends each answer with a newline, in %s', async (shell) => {
    const path = [`/usr/bin/${shell}`, `/bin/${shell}`].find((p) => existsSync(p));
    if (path === undefined) return; // zsh is optional (CI does not install it)
    const target = await startTarget();
    cleanups.push(() => target.close());
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const script = join(dir, 'replay.sh');
    writeFileSync(script, exportText('curl', [delivery, { ...delivery, id: 'd2' }], target.url));
    const { stdout } = await run(path, [script]);
    expect(target.received).toHaveLength(2);
    expect(stdout).toBe('{"ok":true}\n{"ok":true}\n');
  });

  it('the curl script carries control and bidi headers and a 1 MiB body exactly through real curl', async () => {
    const target = await startTarget();
    cleanups.push(() => target.close());
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const marker = join(dir, 'pwned');
    const big = Buffer.from(`{"pad":"${"'; touch x; # ".repeat(90_000)}"}`);
    const hostile = (id: string, rawBody: Buffer): StoredDelivery => ({
      ...delivery,
      id,
      rawBody,
      headers: [['Content-Type', 'application/json'], ['X-Shell-6', `\u0085'; touch ${marker}; #`], ['X-Bidi', `\u202e'; touch ${marker}; #`], ['X-Empty', '']],
    });
    const script = join(dir, 'replay.sh');
    writeFileSync(script, exportText('curl', [hostile('big-text', big), hostile('big-bytes', Buffer.concat([body, big]))], target.url));
    await run('sh', [script]);
    expect(existsSync(marker)).toBe(false);
    expect(target.received).toHaveLength(2);
    expect(target.received[0]!.body.equals(big)).toBe(true);
    expect(target.received[1]!.body.equals(Buffer.concat([body, big]))).toBe(true);
    // Node reads header bytes as latin1, so a stored header stands for one byte per code unit: U+0085
    // goes out as the byte 0x85. U+202E cannot come from Node's parser and goes out as UTF-8.
    const wire = (name: string) => Buffer.from(String(target.received[0]!.headers[name]), 'latin1');
    expect(wire('x-shell-6').equals(Buffer.from(`\u0085'; touch ${marker}; #`, 'latin1'))).toBe(true);
    expect(wire('x-bidi').equals(Buffer.from(`\u202e'; touch ${marker}; #`, 'utf8'))).toBe(true);
    expect(target.received[0]!.headers['x-empty']).toBe('');
  });

  it('a request received by a real receiver goes out of the curl script with the same header bytes', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'hookrelay.db');
    const app = await buildApp(testListenConfig(db, { skipVerify: true }));
    let closed = false;
    cleanups.push(() => (closed ? undefined : app.close()));

    // The original request, as bytes: UTF-8 `café ☃`, and bytes that are not UTF-8 at all.
    const signed = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const odd: Array<[string, Buffer]> = [
      ['X-Cafe', Buffer.from('café ☃', 'utf8')],
      ['X-Latin1', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x85, 0xff])],
    ];
    const original = Buffer.concat([
      Buffer.from(`POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1:${app.receiverPort}\r\n`),
      ...Object.entries(signed.headers).map(([name, value]) => Buffer.from(`${name}: ${value}\r\n`)),
      ...odd.map(([name, value]) => Buffer.concat([Buffer.from(`${name}: `), value, Buffer.from('\r\n')])),
      Buffer.from(`Content-Length: ${signed.body.length}\r\nConnection: close\r\n\r\n`),
      signed.body,
    ]);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(app.receiverPort, '127.0.0.1', () => socket.write(original));
      let text = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 2\d\d /);
    await app.close();
    closed = true;

    const capture = await startRawCapture();
    cleanups.push(() => capture.close());
    const exported = await runCli(['events', 'export', '--format', 'curl', '--include-signature', '--db', db, '--url', `${capture.origin}/webhooks`]);
    expect(exported.code, exported.stderr).toBe(0);
    // stdout is the script alone; a read of a moment counts nothing on stderr.
    expect(exported.stderr).toBe('');
    const script = join(dir, 'replay.sh');
    writeFileSync(script, exported.stdout);
    await run('/bin/sh', [script]);

    expect(capture.requests).toHaveLength(1);
    const got = capture.requests[0]!;
    const header = (r: RawRequest, name: string) => r.headers.filter((h) => h.name.toString('latin1').toLowerCase() === name.toLowerCase()).map((h) => h.value.toString('hex'));
    for (const [name, bytes] of odd) expect(header(got, name), name).toEqual([bytes.toString('hex')]);
    for (const [name, value] of Object.entries(signed.headers)) expect(header(got, name), name).toEqual([Buffer.from(value).toString('hex')]);
    expect(got.headers.map((h) => h.name.toString('latin1').toLowerCase()).sort()).toEqual(['content-length', 'host', ...Object.keys(signed.headers), ...odd.map(([n]) => n.toLowerCase())].sort());
    expect(got.line.toString('latin1')).toBe('POST /webhooks HTTP/1.1');
    expect(got.body.equals(signed.body)).toBe(true);
  }, 60_000);
});
