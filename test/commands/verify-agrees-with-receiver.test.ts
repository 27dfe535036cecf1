/**
 * `hookrelay verify` gives the receiver's verdict: every request of a corpus goes to a real receiver
 * (buildApp, port 0, a temp database) and through `verify` (from a capture file, and as flags), and
 * the two must answer the same status and code: same checks, same order.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { registerVerifyCommand } from '../../src/commands/verify.js';
import { sign } from '../../src/core/signature/sign.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { envelopeBody, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from '../sender/helpers/cli.js';

const LIMIT = 4096;
const TRIGGER = 'trustcenter.access_requested';

type Headers = Array<[string, string]>;
interface Req {
  headers: Headers;
  body: Buffer;
}
interface Verdict {
  status: number;
  code: string;
}

let app: AppHandle;
let dir: string;
let removeDir: () => void;
let files = 0;

beforeAll(async () => {
  ({ dir, remove: removeDir } = tempDir());
  app = await buildApp(testListenConfig(join(dir, 'agree.db'), { bodyLimitBytes: LIMIT }));
});
afterAll(async () => {
  await app?.close();
  removeDir?.();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

async function receiverVerdict(req: Req): Promise<Verdict> {
  const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers.flat(), body: req.body });
  const answer = (await res.body.json()) as { success: boolean; code?: string };
  return { status: res.statusCode, code: answer.success ? 'accepted' : answer.code! };
}

async function verifyVerdict(req: Req, at: number, mode: 'capture' | 'flags'): Promise<Verdict> {
  const n = files++;
  const common = ['--secret', TEST_SECRET, '--at', String(at), '--body-limit', String(LIMIT), '--json'];
  let args: string[];
  if (mode === 'capture') {
    const file = join(dir, `capture-${n}.txt`);
    const head = ['POST /webhooks HTTP/1.1', ...req.headers.map(([name, value]) => `${name}: ${value}`)].join('\r\n');
    writeFileSync(file, Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), req.body]));
    args = ['verify', file, ...common];
  } else {
    const bodyFile = join(dir, `body-${n}.bin`);
    writeFileSync(bodyFile, req.body);
    args = ['verify', '--body-file', bodyFile, ...req.headers.flatMap(([name, value]) => ['--header', `${name}: ${value}`]), ...common];
  }
  const run = await runCli(registerVerifyCommand, args);
  // Nothing on stderr but the process-list warning every --secret flag draws.
  expect(run.err).toBe('warning: --secret is visible to every user of this machine in the process list; prefer HOOKRELAY_SECRET\n');
  const { verdict } = JSON.parse(run.out) as { verdict: { accepted: boolean; status: number; code?: string } };
  // Exit 0 exactly when the receiver would accept.
  expect(run.exitCode ?? 0).toBe(verdict.accepted ? 0 : 1);
  return { status: verdict.status, code: verdict.accepted ? 'accepted' : verdict.code! };
}

/** A delivery as the service sends it, signed at `t`, then changed by `change`. */
function delivery(t: number, change: (d: { id: string; headers: Headers; body: Buffer; sign: (body: Buffer, secret?: string, at?: number) => string }) => void = () => {}): Req {
  const id = randomUUID();
  const body = envelopeBody(id, TRIGGER);
  const d = {
    id,
    body,
    headers: [] as Headers,
    sign: (b: Buffer, secret = TEST_SECRET, at = t) => sign(secret, b, at),
  };
  d.headers = [
    ['content-type', 'application/json'],
    ['x-service-event', TRIGGER],
    ['x-service-delivery', id],
    ['x-service-delivery-attempt', '1'],
    ['x-service-signature', sign(TEST_SECRET, body, t)],
  ];
  change(d);
  return { headers: d.headers, body: d.body };
}

const without = (headers: Headers, name: string): Headers => headers.filter(([n]) => n !== name);
const replace = (headers: Headers, name: string, value: string): Headers => headers.map(([n, v]) => [n, n === name ? value : v]);
/** Replaces the body and signs the new bytes. */
const resign = (d: { headers: Headers; body: Buffer; sign: (b: Buffer) => string }, body: Buffer) => {
  d.body = body;
  d.headers = replace(d.headers, 'x-service-signature', d.sign(body));
};
const padded = (id: string) => envelopeBody(id, TRIGGER, { pad: 'x'.repeat(LIMIT) });

const CORPUS: Array<[string, (t: number) => Req, string]> = [
  ['a delivery as the service sends it', (t) => delivery(t), 'accepted'],
  ['a signature in uppercase hex', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-signature', d.sign(d.body).replace(/v1=(\w+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`)); }), 'accepted'],
  ['a body with a BOM, signed with it', (t) => delivery(t, (d) => resign(d, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), d.body]))), 'accepted'],
  ['an unknown apiVersion', (t) => delivery(t, (d) => resign(d, envelopeBody(d.id, TRIGGER, { apiVersion: '2099-01-01' }))), 'accepted'],
  ['header names in mixed case', (t) => delivery(t, (d) => { d.headers = d.headers.map(([n, v]) => [n.replace(/(^|-)(\w)/g, (m) => m.toUpperCase()), v]); }), 'accepted'],
  ['a second x-service-delivery-attempt line', (t) => delivery(t, (d) => { d.headers.push(['x-service-delivery-attempt', '2']); }), 'accepted'],
  ['no signature header', (t) => delivery(t, (d) => { d.headers = without(d.headers, 'x-service-signature'); }), 'SIGNATURE_MISSING'],
  ['a signature header that is not t=…,v1=…', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-signature', 'garbage'); }), 'SIGNATURE_MALFORMED'],
  ['two signature header lines', (t) => delivery(t, (d) => { d.headers.push(['x-service-signature', d.sign(d.body)]); }), 'SIGNATURE_MALFORMED'],
  ['only a v0 signature', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-signature', `t=${t},v0=${'a'.repeat(64)}`); }), 'SIGNATURE_NO_V1'],
  ['a wrong secret', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-signature', d.sign(d.body, 'whsec_someone_else')); }), 'SIGNATURE_MISMATCH'],
  ['a body re-serialised after signing', (t) => delivery(t, (d) => { d.body = Buffer.from(JSON.stringify(JSON.parse(d.body.toString()), null, 2)); }), 'SIGNATURE_MISMATCH'],
  ['a secret with a trailing newline', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-signature', d.sign(d.body, `${TEST_SECRET}\n`)); }), 'SIGNATURE_MISMATCH'],
  ['t 1000 s old', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-signature', d.sign(d.body, TEST_SECRET, t - 1000)); }), 'TIMESTAMP_TOO_OLD'],
  ['t 1000 s ahead', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-signature', d.sign(d.body, TEST_SECRET, t + 1000)); }), 'TIMESTAMP_IN_FUTURE'],
  ['a signed body that is not JSON', (t) => delivery(t, (d) => resign(d, Buffer.from('id=1&type=x'))), 'INVALID_JSON'],
  ['a signed empty body', (t) => delivery(t, (d) => resign(d, Buffer.alloc(0))), 'INVALID_JSON'],
  ['a signed JSON array', (t) => delivery(t, (d) => resign(d, Buffer.from('[]'))), 'INVALID_ENVELOPE'],
  ['an envelope without organizationId', (t) => delivery(t, (d) => resign(d, envelopeBody(d.id, TRIGGER, { organizationId: undefined }))), 'INVALID_ENVELOPE'],
  ['an id of 257 characters, header equal', (t) => delivery(t, (d) => {
    const long = 'i'.repeat(257);
    resign(d, envelopeBody(long, TRIGGER));
    d.headers = replace(d.headers, 'x-service-delivery', long);
  }), 'INVALID_ENVELOPE'],
  ['no x-service-delivery (issue 13 item 9)', (t) => delivery(t, (d) => { d.headers = without(d.headers, 'x-service-delivery'); }), 'DELIVERY_ID_MISMATCH'],
  ['an x-service-delivery other than the body id', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-delivery', randomUUID()); }), 'DELIVERY_ID_MISMATCH'],
  ['x-service-delivery twice, the same value (joined "a, a")', (t) => delivery(t, (d) => { d.headers.push(['x-service-delivery', d.id]); }), 'DELIVERY_ID_MISMATCH'],
  ['no x-service-event', (t) => delivery(t, (d) => { d.headers = without(d.headers, 'x-service-event'); }), 'EVENT_TYPE_MISMATCH'],
  ['an x-service-event other than the body type', (t) => delivery(t, (d) => { d.headers = replace(d.headers, 'x-service-event', 'vendor.rating_dropped'); }), 'EVENT_TYPE_MISMATCH'],
  ['a body over the limit, signed', (t) => delivery(t, (d) => resign(d, padded(d.id))), 'PAYLOAD_TOO_LARGE'],
  // The order of the checks: the first that fails answers.
  ['over the limit and unsigned: size first', (t) => delivery(t, (d) => { d.body = padded(d.id); d.headers = without(d.headers, 'x-service-signature'); }), 'PAYLOAD_TOO_LARGE'],
  ['unsigned and not JSON: signature first', (t) => delivery(t, (d) => { d.body = Buffer.from('nope'); d.headers = without(d.headers, 'x-service-signature'); }), 'SIGNATURE_MISSING'],
  ['a wrong secret and no x-service-delivery: signature first', (t) => delivery(t, (d) => { d.headers = without(replace(d.headers, 'x-service-signature', d.sign(d.body, 'whsec_someone_else')), 'x-service-delivery'); }), 'SIGNATURE_MISMATCH'],
  ['t too old and not JSON: the timestamp first', (t) => delivery(t, (d) => { d.body = Buffer.from('nope'); d.headers = replace(d.headers, 'x-service-signature', d.sign(d.body, TEST_SECRET, t - 1000)); }), 'TIMESTAMP_TOO_OLD'],
  ['no organizationId and no x-service-delivery: the envelope before the headers', (t) => delivery(t, (d) => { resign(d, envelopeBody(d.id, TRIGGER, { organizationId: undefined })); d.headers = without(d.headers, 'x-service-delivery'); }), 'INVALID_ENVELOPE'],
  ['both headers wrong: x-service-delivery first', (t) => delivery(t, (d) => { d.headers = replace(replace(d.headers, 'x-service-delivery', 'other'), 'x-service-event', 'other'); }), 'DELIVERY_ID_MISMATCH'],
];

describe('verify agrees with the receiver', () => {
  it.each(CORPUS.map(([name, build, expected]) => [name, expected, build] as const))('%s → %s', async (_name, expected, build) => {
    const t = nowSeconds();
    const req = build(t);
    const received = await receiverVerdict(req);
    expect(received.code).toBe(expected);
    expect(await verifyVerdict(req, t, 'capture')).toEqual(received);
    expect(await verifyVerdict(req, t, 'flags')).toEqual(received);
  });

  // Every combination of one fault per check, so the order is proven, not only each check alone.
  const SIGNATURES = ['valid', 'missing', 'wrong secret', 'too old'] as const;
  const BODIES = ['envelope', 'not JSON', 'no data'] as const;
  const HEADERS = ['as sent', 'no x-service-delivery', 'wrong x-service-event'] as const;
  const SIZES = ['fits', 'over the limit'] as const;
  const grid = SIGNATURES.flatMap((s) => BODIES.flatMap((b) => HEADERS.flatMap((h) => SIZES.map((z) => [s, b, h, z] as const))));

  it(`agrees on all ${grid.length} combinations of signature × body × headers × size`, async () => {
    const seen = new Set<string>();
    for (const [sig, bodyKind, headerKind, size] of grid) {
      const t = nowSeconds();
      const req = delivery(t, (d) => {
        const pad = size === 'fits' ? {} : { pad: 'x'.repeat(LIMIT) };
        d.body = bodyKind === 'envelope'
          ? envelopeBody(d.id, TRIGGER, pad)
          : bodyKind === 'no data' ? envelopeBody(d.id, TRIGGER, { data: undefined, ...pad }) : Buffer.from(`not json ${'x'.repeat(size === 'fits' ? 0 : LIMIT)}`);
        if (headerKind === 'no x-service-delivery') d.headers = without(d.headers, 'x-service-delivery');
        if (headerKind === 'wrong x-service-event') d.headers = replace(d.headers, 'x-service-event', 'sod.violation_detected');
        if (sig === 'missing') d.headers = without(d.headers, 'x-service-signature');
        else d.headers = replace(d.headers, 'x-service-signature', d.sign(d.body, sig === 'wrong secret' ? 'whsec_someone_else' : TEST_SECRET, sig === 'too old' ? t - 1000 : t));
      });
      const received = await receiverVerdict(req);
      expect({ case: [sig, bodyKind, headerKind, size], ...(await verifyVerdict(req, t, 'capture')) }).toEqual({ case: [sig, bodyKind, headerKind, size], ...received });
      seen.add(received.code);
    }
    expect([...seen].sort()).toEqual(
      ['EVENT_TYPE_MISMATCH', 'DELIVERY_ID_MISMATCH', 'INVALID_ENVELOPE', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'SIGNATURE_MISMATCH', 'SIGNATURE_MISSING', 'TIMESTAMP_TOO_OLD', 'accepted'].sort(),
    );
  });
});
