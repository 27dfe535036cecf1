/** The receiver's checks (pipeline.ts): the first refusal the receiver would answer (size → signature → envelope), or every check's result. */
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import { readFacts, type Arrival, type ReadProblem } from '../../src/ingest/arrival.js';
import { checkSignedEnvelope, judgeArrival, type VerdictSettings } from '../../src/ingest/pipeline.js';
import { envelopeBody, signedRequest, T0, TEST_SECRET } from '../helpers/signed-delivery.js';
import { arrivalOf, NOW_MS } from './step-helpers.js';

const SETTINGS: VerdictSettings = { secrets: [TEST_SECRET], toleranceSeconds: 300, skipVerify: false, bodyLimitBytes: 2048 };

/** A request whose body is `body`, signed properly over it. */
const signedBody = (body: Buffer, id = 'd-1') => arrivalOf(signedRequest({ id, body }));

describe('judgeArrival', () => {
  it('passes a signed, well-formed delivery with both results', () => {
    const req = signedRequest({ id: 'd-ok' });
    const verdict = judgeArrival(arrivalOf(req), SETTINGS);
    expect(verdict).toMatchObject({ ok: true, signature: { ok: true, timestamp: T0, secretIndex: 0, notes: [] } });
    expect(verdict.ok && verdict.envelope).toMatchObject({ ok: true, apiVersionKnown: true, envelope: { id: 'd-ok', type: 'trustcenter.access_requested' } });
  });

  it.each<[ReadProblem, number, string]>([
    ['too_large', 413, 'PAYLOAD_TOO_LARGE'],
    ['bad_length', 400, 'INVALID_CONTENT_LENGTH'],
    ['empty', 400, 'EMPTY_BODY'],
  ])('refuses an unread body (%s) first, before looking at the signature', (problem, status, code) => {
    const arrival: Arrival = { ...arrivalOf(signedRequest()), rawBody: Buffer.alloc(0), unread: { problem, declaredBytes: 9000 }, headers: { 'x-service-signature': 'garbage' } };
    expect(judgeArrival(arrival, SETTINGS)).toEqual({ ok: false, check: 'size', rejection: expect.objectContaining({ status, code }), signatureTimestamp: null });
  });

  it('names the body limit of the settings', () => {
    const arrival: Arrival = { ...arrivalOf(signedRequest()), unread: { problem: 'too_large', declaredBytes: 9000 } };
    const verdict = judgeArrival(arrival, SETTINGS);
    expect(!verdict.ok && verdict.rejection.message).toBe('the body is over the limit of 2048 bytes');
  });

  it('refuses a bad signature before the envelope is read, with its t and no signature result', () => {
    const arrival = arrivalOf(signedRequest({ secret: 'whsec_other', t: T0 - 2, body: Buffer.from('not json') }));
    const verdict = judgeArrival(arrival, SETTINGS);
    expect(verdict).toEqual({ ok: false, check: 'signature', rejection: expect.objectContaining({ status: 400, code: 'SIGNATURE_MISMATCH' }), signatureTimestamp: T0 - 2 });
    expect(verdict).not.toHaveProperty('signature');
  });

  it.each([
    ['a body that is not JSON', () => signedBody(Buffer.from('{"id":')), 'INVALID_JSON'],
    ['a JSON array', () => signedBody(Buffer.from('[]')), 'INVALID_ENVELOPE'],
    ['an id that is not the header id', () => signedBody(envelopeBody('d-other'), 'd-1'), 'DELIVERY_ID_MISMATCH'],
    [
      'a type that is not the header event',
      () => {
        const req = signedRequest({ id: 'd-1' });
        return arrivalOf({ ...req, headers: { ...req.headers, 'x-service-event': 'vendor.rating_dropped' } });
      },
      'EVENT_TYPE_MISMATCH',
    ],
  ])('refuses %s as an envelope problem, after the signature passed', (_name, build, code) => {
    const verdict = judgeArrival(build(), SETTINGS);
    expect(verdict).toMatchObject({ ok: false, check: 'envelope', rejection: { status: 400, code }, signatureTimestamp: T0, signature: { ok: true, secretIndex: 0 } });
  });

  it('with --skip-verify, a wrong signature passes and the envelope still decides', () => {
    const body = Buffer.from('nope');
    const req = signedRequest({ body });
    const arrival = arrivalOf({ ...req, headers: { ...req.headers, 'x-service-signature': sign('whsec_wrong', body, T0 - 9999) } });
    expect(judgeArrival(arrival, { ...SETTINGS, skipVerify: true })).toMatchObject({ ok: false, check: 'envelope', rejection: { code: 'INVALID_JSON' }, signatureTimestamp: T0 - 9999, signature: { secretIndex: null } });
    expect(judgeArrival(arrivalOf(signedRequest({ secret: 'whsec_wrong' })), { ...SETTINGS, skipVerify: true })).toMatchObject({ ok: true, signature: { secretIndex: null } });
  });

  it('judges at the arrival time: the same request a day later is too old', () => {
    const arrival = arrivalOf(signedRequest(), { receivedAt: NOW_MS + 86_400_000 });
    expect(judgeArrival(arrival, SETTINGS)).toMatchObject({ ok: false, check: 'signature', rejection: { code: 'TIMESTAMP_TOO_OLD' } });
  });
});

describe('checkSignedEnvelope', () => {
  it('uses the facts it is given, not the headers again', () => {
    const arrival = arrivalOf(signedRequest({ id: 'd-1' }));
    const facts = { ...readFacts(arrival), deliveryId: 'd-2' };
    expect(checkSignedEnvelope(arrival, facts, SETTINGS)).toMatchObject({ ok: false, check: 'envelope', rejection: { code: 'DELIVERY_ID_MISMATCH' } });
    expect(checkSignedEnvelope(arrival, readFacts(arrival), SETTINGS)).toMatchObject({ ok: true });
  });

  it('does not look at an unread marker (size is judgeArrival\'s first check)', () => {
    const arrival: Arrival = { ...arrivalOf(signedRequest()), unread: { problem: 'too_large', declaredBytes: 1 } };
    expect(checkSignedEnvelope(arrival, readFacts(arrival), SETTINGS)).toMatchObject({ ok: true });
  });
});
