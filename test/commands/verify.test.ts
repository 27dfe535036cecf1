import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirOf, makeDevSecret, writeDevSecret } from '../../src/config/data-dir.js';
import { sign } from '../../src/core/signature/sign.js';
import { addToSecretSet } from '../../src/service/secret-set.js';
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
    expect(result.stdout).toMatch(/^valid: the receiver would accept it \(200\)$/m);
    expect(result.stdout).toMatch(/^ {2}signature: matches secret; t=\d+ .*12 s ago, within 300 s\)$/m);
    expect(result.stdout).toMatch(/^ {2}envelope: ok \(id cap-1, type trustcenter.access_requested\)$/m);
  });

  it('warns that a --secret is visible in the process list, never printing it, and not when the secret comes from HOOKRELAY_SECRET', async () => {
    const file = capture(folder(), body, headers);
    const flagged = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0 + 12)]);
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toMatch(/^warning: --secret is visible to every user of this machine in the process list; prefer HOOKRELAY_SECRET$/m);
    expect(flagged.stderr + flagged.stdout).not.toContain(SECRET);
    const fromEnv = await runCli(['verify', file, '--at', String(T0 + 12)], { env: { ...process.env, HOOKRELAY_SECRET: SECRET } });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stderr).not.toMatch(/process list/);
  });

  it('with no secret given, tries what listen verifies with: the secrets kept by webhooks create --signing, then the development secret', async () => {
    const dir = folder();
    const db = join(dir, 'data', 'hookrelay.db');
    addToSecretSet(dataDirOf(db), { secret: SECRET, webhookId: null, origin: 'test' }, Date.now());
    writeDevSecret(dataDirOf(db), makeDevSecret());
    const result = await runCli(['verify', capture(dir, body, headers), '--db', db, '--at', String(T0 + 12)]);
    expect(result.stdout).toMatch(/^valid: the receiver would accept it \(200\)$/m);
    expect(result.code).toBe(0);
  });

  it('says invalid with the receiver\'s code for a bad envelope (no x-service-delivery), and exits 1 (issue 13 item 9)', async () => {
    const { 'x-service-delivery': _dropped, ...rest } = headers;
    const file = capture(folder(), body, rest);
    const result = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^invalid: the receiver would answer 400 DELIVERY_ID_MISMATCH: header x-service-delivery is missing/m);
    expect(result.stdout).toMatch(/^ {2}signature: matches secret;/m);
    expect(result.stdout).toMatch(/^ {2}hint: the capture has no x-service-delivery line/m);
    expect(result.stdout).not.toMatch(/^valid/m);
  });

  it.each([
    ['a wrong secret', { secret: 'whsec_other' }, /^invalid: the receiver would answer 400 SIGNATURE_MISMATCH: signature mismatch/m],
    ['a secret with a trailing newline', { secret: `${SECRET}\n` }, /^ {2}hint: .*whitespace/im],
    ['a timestamp too old', { at: T0 + 301 }, /^invalid: the receiver would answer 400 TIMESTAMP_TOO_OLD: .*\n {2}hint: clock skew: t is 301 s behind/m],
    ['a timestamp in the future', { at: T0 - 301 }, /^invalid: the receiver would answer 400 TIMESTAMP_IN_FUTURE: .*\n {2}hint: clock skew: t is 301 s ahead/m],
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
    expect(result.stdout).toMatch(/^invalid: the receiver would answer 400 SIGNATURE_MISMATCH/m);
    expect(result.stdout).toMatch(/hint: the body was changed after signing: it matches the body pretty-printed/);
  });

  it('takes the headers as flags: --signature and repeatable --header, with --body-file, and --json', async () => {
    const dir = folder();
    const bodyFile = join(dir, 'body.json');
    writeFileSync(bodyFile, body);
    const flags = ['--signature', headers['x-service-signature'], '--body-file', bodyFile, '--secret', SECRET, '--at', String(T0), '--json'];
    const result = await runCli(['verify', ...flags, '--header', 'x-service-delivery: cap-1', '--header', 'X-Service-Event:trustcenter.access_requested']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toEqual({ accepted: true, status: 200, responseStatus: 200 });
    expect(json.signature).toMatchObject({ ok: true, timestamp: T0, secretIndex: 0, skewSeconds: 0 });
    expect(json.envelope).toMatchObject({ ok: true, id: 'cap-1', type: 'trustcenter.access_requested' });

    // Without the headers the receiver refuses it, and so does verify, saying which flag to add.
    const bare = await runCli(['verify', ...flags.filter((f) => f !== '--json')]);
    expect(bare.code).toBe(1);
    expect(bare.stdout).toMatch(/^invalid: the receiver would answer 400 DELIVERY_ID_MISMATCH/m);
    expect(bare.stdout).toContain("hint: the headers are part of the receiver's check: add --header 'x-service-delivery: cap-1'");
  });

  it('rounds skewSeconds to the millisecond, in the text and in --json', async () => {
    const t = Math.floor(Date.now() / 1000) - 3;
    const signed = { ...headers, 'x-service-signature': sign(SECRET, body, t) };
    const file = capture(folder(), body, signed);
    const [text, json] = await Promise.all([runCli(['verify', file, '--secret', SECRET]), runCli(['verify', file, '--secret', SECRET, '--json'])]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/signature: matches secret; t=\d+ \(\S+, \d+(\.\d{1,3})? s ago, within 300 s\)/);
    const skew = JSON.parse(json.stdout).signature.skewSeconds as number;
    expect(skew).toBeLessThan(0);
    expect(String(skew)).toMatch(/^-\d+(\.\d{1,3})?$/);
  });

  it('says valid with a note for a signature in uppercase hex, and exits 0 (text and --json)', async () => {
    const upper = headers['x-service-signature'].replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
    const file = capture(folder(), body, { ...headers, 'x-service-signature': upper });
    const result = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^valid: the receiver would accept it \(200\)\n {2}signature: matches secret;/m);
    expect(result.stdout).toMatch(/^ {2}note: non-canonical signature encoding: uppercase hex \(.*lowercase.*stripe-node/m);
    const json = await runCli(['verify', file, '--secret', SECRET, '--at', String(T0), '--json']);
    expect(JSON.parse(json.stdout).signature).toMatchObject({ ok: true, notes: ['non-canonical signature encoding: uppercase hex'] });
    const lower = await runCli(['verify', capture(folder(), body, headers), '--secret', SECRET, '--at', String(T0)]);
    expect(lower.stdout).not.toContain('note:');
  });

  it('lists every problem with its input at once and exits 2', async () => {
    const result = await runCli(['verify', join(folder(), 'missing.txt'), '--signature', 'x', '--tolerance', 'abc', '--at', 'yesterday', '--secret', SECRET]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/either a capture file or the request as flags/);
    expect(result.stderr).toMatch(/cannot read .*missing.txt: no such file/);
    expect(result.stderr).toMatch(/--tolerance: must be a whole number/);
    expect(result.stderr).toMatch(/--at: must be unix seconds/);
  });

  it('refuses a --header that is not "Name: value" or that no HTTP server would accept, and exits 2', async () => {
    const result = await runCli(['verify', '--body', '{}', '--header', 'no colon', '--header', 'bad name: x', '--secret', SECRET]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--header: must be 'Name: value', got "no colon"/);
    expect(result.stderr).toMatch(/--header: "bad name" is not a header name/);
  });

  it('--help names the receiver\'s checks in order, --header, and the exit codes', async () => {
    const result = await runCli(['verify', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout.replace(/\s+/g, ' ')).toMatch(/size \(413 PAYLOAD_TOO_LARGE, 431 HEADERS_TOO_LARGE\) → signature \(400 SIGNATURE_MISSING, .* → envelope and headers \(400 INVALID_JSON, .*EVENT_TYPE_MISMATCH\)/);
    expect(result.stdout).toContain('--header <line>');
    expect(result.stdout).toMatch(/Exit code: 0 the receiver would accept it, 1 it would refuse it, 2/);
  });
});
