/** The receiver's checks (pipeline.ts), the signature: the pipeline's signature verdict, in the receiver's codes, with notes, skip-verify and bridged verdicts. */
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import { UPPERCASE_HEX_NOTE } from '../../src/core/signature/verify.js';
import { type Arrival, readFacts, type SignatureSettings } from '../../src/ingest/arrival.js';
import { checkSignature } from '../../src/ingest/pipeline.js';
import { signedRequest, T0, TEST_SECRET, type SignedRequest } from '../helpers/signed-delivery.js';
import { arrivalOf, NOW_MS } from './step-helpers.js';

const SETTINGS: SignatureSettings = { secrets: [TEST_SECRET], toleranceSeconds: 300, skipVerify: false };
const SEVERAL = 'several x-service-signature headers: send exactly one';

const check = (arrival: Arrival, settings: Partial<SignatureSettings> = {}) => checkSignature(arrival, readFacts(arrival), { ...SETTINGS, ...settings });

function withSignature(req: SignedRequest, value: string | undefined): Arrival {
  const headers = { ...req.headers };
  if (value === undefined) delete headers['x-service-signature'];
  else headers['x-service-signature'] = value;
  return arrivalOf({ ...req, headers });
}

describe('checkSignature: a signature that verifies', () => {
  it('gives t, the matching secret and no notes', () => {
    expect(check(arrivalOf(signedRequest()))).toEqual({ ok: true, timestamp: T0, secretIndex: 0, notes: [] });
  });

  it('names which of several secrets matched (rotation)', () => {
    expect(check(arrivalOf(signedRequest()), { secrets: ['whsec_new_one', TEST_SECRET] })).toMatchObject({ ok: true, secretIndex: 1 });
  });

  it('notes uppercase hex, which it accepts', () => {
    const req = signedRequest();
    const upper = req.headers['x-service-signature']!.replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
    expect(check(withSignature(req, upper))).toEqual({ ok: true, timestamp: T0, secretIndex: 0, notes: [UPPERCASE_HEX_NOTE] });
  });

  it('checks t against the arrival time, not the wall clock: 300 s either way passes', () => {
    const req = signedRequest();
    expect(check(arrivalOf(req, { receivedAt: (T0 + 300) * 1000 }))).toMatchObject({ ok: true });
    expect(check(arrivalOf(req, { receivedAt: (T0 - 300) * 1000 }))).toMatchObject({ ok: true });
  });
});

describe('checkSignature: each refusal, as 400 with its code', () => {
  const req = signedRequest();
  const body = req.body;
  it.each([
    ['no header', 'SIGNATURE_MISSING', withSignature(req, undefined), null],
    ['an empty header', 'SIGNATURE_MISSING', withSignature(req, ''), null],
    ['a header that does not parse', 'SIGNATURE_MALFORMED', withSignature(req, 'sha256=abc'), null],
    ['a malformed header after t', 'SIGNATURE_MALFORMED', withSignature(req, `t=${T0},`), T0],
    ['only other schemes', 'SIGNATURE_NO_V1', withSignature(req, `t=${T0},v0=${'a'.repeat(64)}`), T0],
    ['another secret', 'SIGNATURE_MISMATCH', withSignature(req, sign('whsec_someone_else', body, T0)), T0],
    ['another body', 'SIGNATURE_MISMATCH', withSignature(req, sign(TEST_SECRET, Buffer.from('{}'), T0)), T0],
    ['t 301.5 s old', 'TIMESTAMP_TOO_OLD', withSignature(req, sign(TEST_SECRET, body, T0 - 300)), T0 - 300],
    ['t 300.5 s ahead', 'TIMESTAMP_IN_FUTURE', withSignature(req, sign(TEST_SECRET, body, T0 + 302)), T0 + 302],
  ])('%s: %s', (_name, code, arrival, timestamp) => {
    const result = check(arrival);
    expect(result).toMatchObject({ ok: false, rejection: { status: 400, code }, timestamp });
    if (!result.ok) expect(result.rejection.message.length).toBeGreaterThan(0);
  });

  it('says how far t is beyond the tolerance', () => {
    const result = check(withSignature(req, sign(TEST_SECRET, body, T0 - 600)));
    expect(result).toMatchObject({ ok: false, rejection: { code: 'TIMESTAMP_TOO_OLD', message: expect.stringContaining('beyond the tolerance of 300 s') } });
  });
});

describe('checkSignature: several signature headers', () => {
  const req = signedRequest();
  const first = req.headers['x-service-signature']!;
  const second = sign(TEST_SECRET, req.body, T0 + 1);

  it('names them when the request carried two header lines (Node joined them)', () => {
    const arrival = withSignature(req, `${first}, ${second}`);
    const both = { ...arrival, rawHeaders: [...arrival.rawHeaders, 'X-Service-Signature', second] };
    expect(check(both)).toMatchObject({ ok: false, rejection: { code: 'SIGNATURE_MALFORMED', message: SEVERAL } });
  });

  it('names them from the joined value alone', () => {
    expect(check(withSignature(req, `${first}, ${second}`))).toMatchObject({ ok: false, rejection: { code: 'SIGNATURE_MALFORMED', message: SEVERAL } });
  });

  it('names them even when the second line is the broken one', () => {
    const arrival = withSignature(req, `${first}, garbage`);
    const both = { ...arrival, rawHeaders: [...arrival.rawHeaders, 'x-service-signature', 'garbage'] };
    expect(check(both)).toMatchObject({ ok: false, rejection: { code: 'SIGNATURE_MALFORMED', message: SEVERAL } });
  });

  it('keeps the parser message for one malformed header with a space in it', () => {
    const result = check(withSignature(req, first.replace(',', ', ')));
    expect(result).toMatchObject({ ok: false, rejection: { code: 'SIGNATURE_MALFORMED' } });
    if (!result.ok) {
      expect(result.rejection.message).not.toBe(SEVERAL);
      expect(result.rejection.message).toContain('whitespace');
    }
  });
});

describe('checkSignature: --skip-verify', () => {
  it('accepts a wrong signature, keeping its t for the record but no secret', () => {
    const arrival = withSignature(signedRequest(), sign('whsec_someone_else', Buffer.from('x'), T0 - 100_000));
    expect(check(arrival, { skipVerify: true })).toEqual({ ok: true, timestamp: T0 - 100_000, secretIndex: null, notes: [] });
  });

  it.each([
    ['no header', undefined],
    ['a header that does not parse', 'not a signature'],
  ])('accepts %s, with no t', (_name, value) => {
    expect(check(withSignature(signedRequest(), value), { skipVerify: true })).toEqual({ ok: true, timestamp: null, secretIndex: null, notes: [] });
  });

  it('leaves the signature state to the receiver (no state of its own)', () => {
    const result = check(arrivalOf(signedRequest()), { skipVerify: true });
    expect(result.ok && result.state).toBeUndefined();
  });
});

describe('checkSignature: a bridged arrival carries the upstream verdict', () => {
  const upstream = { signature: 'valid' as const, secretIndex: 2, signatureTimestamp: T0 - 86_400, acceptedAt: NOW_MS - 86_400_000 };

  it('takes the verdict as given: no local secret, a day-old t, no header at all', () => {
    const arrival = withSignature(signedRequest(), undefined);
    const bridged: Arrival = { ...arrival, source: 'bridge', upstream };
    expect(check(bridged, { secrets: ['whsec_local_only'] })).toEqual({ ok: true, timestamp: T0 - 86_400, secretIndex: 2, notes: [], state: 'valid' });
  });

  it('wins over --skip-verify on this side', () => {
    const bridged: Arrival = { ...arrivalOf(signedRequest()), source: 'bridge', upstream };
    expect(check(bridged, { skipVerify: true })).toMatchObject({ ok: true, secretIndex: 2, state: 'valid' });
  });

  it('notes a delivery the public side did not verify', () => {
    const bridged: Arrival = { ...arrivalOf(signedRequest()), source: 'bridge', upstream: { ...upstream, signature: 'skipped', secretIndex: null, signatureTimestamp: null } };
    expect(check(bridged)).toEqual({ ok: true, timestamp: null, secretIndex: null, notes: ['bridged from a hookrelay that skipped verification'], state: 'skipped' });
  });
});
