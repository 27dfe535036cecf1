import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { shellQuote, toCurl, toHar, toNdjson } from '../../src/commands/events-export.js';
import type { StoredDelivery } from '../../src/store/store.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
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
  it('ndjson keeps the exact bytes in base64 and a readable body', () => {
    const line = JSON.parse(toNdjson([delivery]).trim());
    expect(Buffer.from(line.bodyBase64, 'base64').equals(body)).toBe(true);
    expect(line).toMatchObject({ id: "d'1", trigger: 'vendor.rating_dropped', duplicateCount: 2 });
  });

  it('HAR 1.2 is valid JSON with the exact bytes in _bodyBase64', () => {
    const har = JSON.parse(toHar([delivery], 'http://127.0.0.1:4000/webhooks'));
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
    const request = JSON.parse(toHar([{ ...delivery, rawBody: raw }], 'http://h/x')).log.entries[0].request;
    expect(request._bodyIsExactUtf8).toBe(exact);
    expect(Buffer.from(request.postData.text, 'utf8').equals(raw)).toBe(exact);
  });

  it('the curl script re-sends the body byte for byte and runs nothing from the delivery', async () => {
    const target = await startTarget();
    cleanups.push(() => target.close());
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const script = join(dir, 'replay.sh');
    writeFileSync(script, toCurl([delivery], target.url));
    await run('sh', [script]);
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.body.equals(body)).toBe(true);
    expect(target.received[0]!.headers['x-odd']).toBe("a'b $HOME `id`");
    expect(target.received[0]!.headers['x-service-delivery']).toBe("d'1");
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
    writeFileSync(script, toCurl([hostile('big-text', big), hostile('big-bytes', Buffer.concat([body, big]))], target.url));
    await run('sh', [script]);
    expect(existsSync(marker)).toBe(false);
    expect(target.received).toHaveLength(2);
    expect(target.received[0]!.body.equals(big)).toBe(true);
    expect(target.received[1]!.body.equals(Buffer.concat([body, big]))).toBe(true);
    // Node reads header bytes as latin1: compare the bytes on the wire with the UTF-8 of the original.
    const wire = (name: string) => Buffer.from(String(target.received[0]!.headers[name]), 'latin1');
    expect(wire('x-shell-6').equals(Buffer.from(`\u0085'; touch ${marker}; #`))).toBe(true);
    expect(wire('x-bidi').equals(Buffer.from(`\u202e'; touch ${marker}; #`))).toBe(true);
    expect(target.received[0]!.headers['x-empty']).toBe('');
  });

  it('quotes for the shell', () => {
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
});
