import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import { runCli } from '../helpers/run-cli.js';
import { envelopeBody, T0 } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function folder(): string {
  const t = tempDir();
  cleanups.push(t.remove);
  return t.dir;
}

const SECRET = 'whsec_verify_cli';

function capture(dir: string, body: Buffer, headers: Record<string, string>, requestLine = true): string {
  const head = [...(requestLine ? ['POST /webhooks HTTP/1.1'] : []), ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)].join('\r\n');
  const file = join(dir, 'capture.txt');
  writeFileSync(file, Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]));
  return file;
}

describe('hookrelay verify', () => {
  const body = envelopeBody('cap-1');
  const headers = { 'content-type': 'application/json', 'x-service-delivery': 'cap-1', 'x-service-event': 'trustcenter.access_requested', 'x-service-signature': sign(SECRET, body, T0) };

  it('says valid for a captured request, and exits 0', async () => {
    const file = capture(folder(), body, headers);
    const result = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0 + 12)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^valid: the signature matches secret; t=\d+ .*12 s ago/m);
    expect(result.stdout).toMatch(/envelope: ok \(id cap-1, type trustcenter.access_requested\)/);
  });

  it.each([
    ['a wrong secret', { secret: 'whsec_other' }, /invalid \(mismatch\)/],
    ['a secret with a trailing newline', { secret: `${SECRET}\n` }, /hint: .*whitespace/i],
    ['a timestamp too old', { at: T0 + 301 }, /invalid \(timestamp_too_old\)/],
    ['a timestamp in the future', { at: T0 - 301 }, /invalid \(timestamp_in_future\)/],
  ])('says why it fails: %s, and exits 1', async (_name, change: { secret?: string; at?: number }, expected) => {
    const file = capture(folder(), body, headers, false);
    const result = await runCli(['verify', file, '--secret', change.secret ?? SECRET, '--at', String(change.at ?? T0)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(expected);
    expect(result.stdout + result.stderr).not.toContain(SECRET.slice(6));
  });

  it('names a re-serialised body', async () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    const signedPretty = { ...headers, 'x-service-signature': sign(SECRET, pretty, T0) };
    const file = capture(folder(), body, signedPretty);
    const result = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/hint: the body was changed after signing: it matches the body pretty-printed/);
  });

  it('takes --signature with --body-file, and --json', async () => {
    const dir = folder();
    const bodyFile = join(dir, 'body.json');
    writeFileSync(bodyFile, body);
    const result = await runCli(['verify', '--signature', headers['x-service-signature'], '--body-file', bodyFile, '--secret', SECRET, '--at', String(T0), '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).signature).toMatchObject({ ok: true, timestamp: T0, secretIndex: 0 });
  });

  it('says valid with a note for a signature in uppercase hex, and exits 0 (text and --json)', async () => {
    const upper = headers['x-service-signature'].replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
    const file = capture(folder(), body, { ...headers, 'x-service-signature': upper });
    const result = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^valid: the signature matches secret;/m);
    expect(result.stdout).toMatch(/^ {2}note: non-canonical signature encoding: uppercase hex \(.*lowercase.*stripe-node/m);
    const json = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0), '--json']);
    expect(JSON.parse(json.stdout).signature).toMatchObject({ ok: true, notes: ['non-canonical signature encoding: uppercase hex'] });
    const lower = await runCli(['verify', capture(folder(), body, headers), '--secret', SECRET, '--at', String(T0)]);
    expect(lower.stdout).not.toContain('note:');
  });

  it('lists every problem with its input at once and exits 2', async () => {
    const result = await runCli(['verify', join(folder(), 'missing.txt'), '--signature', 'x', '--tolerance', 'abc', '--at', 'yesterday', '--secret', SECRET]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/either a capture file or --signature/);
    expect(result.stderr).toMatch(/cannot read .*missing.txt: ENOENT/);
    expect(result.stderr).toMatch(/--tolerance: must be a whole number/);
    expect(result.stderr).toMatch(/--at: must be unix seconds/);
  });
});
