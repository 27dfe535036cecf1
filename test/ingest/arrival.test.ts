/** arrival.ts: what the pipeline reads off an Arrival (readFacts), the attempt header's bounds, and attemptOf's caps. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH } from '../../src/core/envelope.js';
import { attemptOf, countSignatureHeaders, parseAttemptHeader, readFacts, recordedId, type ArrivalFacts } from '../../src/ingest/arrival.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { arrivalOf, NOW_MS } from './step-helpers.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('parseAttemptHeader', () => {
  it.each([
    ['1', 1],
    ['7', 7],
    ['999999', 999_999],
    ['1000000', 1_000_000],
  ])('reads %j as %d', (value, expected) => {
    expect(parseAttemptHeader(value)).toBe(expected);
  });

  it.each([
    ['absent', undefined],
    ['zero', '0'],
    ['a leading zero', '01'],
    ['a sign', '+1'],
    ['a negative', '-1'],
    ['a decimal', '1.0'],
    ['an exponent', '1e3'],
    ['whitespace', ' 1'],
    ['empty', ''],
    ['hex', '0x10'],
    ['one over the bound', '1000001'],
    ['seven digits over the bound', '9999999'],
    ['eight digits', '10000000'],
    ['a huge number', '123456789012345678901234567890'],
    ['a repeated header (an array)', ['1', '2']],
    ['a one-element array', ['1']],
  ])('refuses %s', (_name, value) => {
    expect(parseAttemptHeader(value as string | string[] | undefined)).toBeNull();
  });
});

describe('readFacts', () => {
  it('reads ids, attempt, signature header and the body digest off the headers and bytes', () => {
    const req = signedRequest({ attempt: 3 });
    const facts = readFacts(arrivalOf(req));
    expect(facts).toEqual({
      receivedAt: NOW_MS,
      deliveryId: req.id,
      event: 'trustcenter.access_requested',
      attemptHeader: 3,
      signatureHeader: req.headers['x-service-signature'],
      bodySha256: sha256(req.body),
      bodyBytes: req.body.length,
    });
  });

  it('takes the first value of a header given as an array', () => {
    const req = signedRequest();
    const facts = readFacts(arrivalOf(req, { headers: { 'x-service-delivery': ['first', 'second'], 'x-service-event': ['e1'], 'x-service-signature': ['s1', 's2'] } }));
    expect(facts).toMatchObject({ deliveryId: 'first', event: 'e1', signatureHeader: 's1', attemptHeader: null });
  });

  it('leaves absent headers undefined, and hashes an empty body', () => {
    const facts = readFacts(arrivalOf(signedRequest(), { headers: {}, rawBody: Buffer.alloc(0) }));
    expect(facts).toMatchObject({ deliveryId: undefined, event: undefined, attemptHeader: null, signatureHeader: undefined, bodyBytes: 0 });
    expect(facts.bodySha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('an unread body has no digest and counts the bytes the sender declared', () => {
    const facts = readFacts(arrivalOf(signedRequest(), { rawBody: Buffer.alloc(0), unread: { problem: 'too_large', declaredBytes: 70_000 } }));
    expect(facts.bodySha256).toBe('');
    expect(facts.bodyBytes).toBe(70_000);
  });

  it('hashes the bytes exactly as received (a BOM and invalid UTF-8 included)', () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}'), Buffer.from([0xff])]);
    const facts = readFacts(arrivalOf(signedRequest(), { rawBody: raw }));
    expect(facts.bodySha256).toBe(sha256(raw));
    expect(facts.bodySha256).not.toBe(sha256(Buffer.from(raw.toString('utf8'))));
    expect(facts.bodyBytes).toBe(11);
  });
});

describe('countSignatureHeaders', () => {
  it.each([
    [[], 0],
    [['Content-Type', 'application/json'], 0],
    [['X-Service-Signature', 't=1,v1=a'], 1],
    [['x-service-signature', 'a', 'Content-Type', 'b', 'X-SERVICE-SIGNATURE', 'c'], 2],
    // A value that looks like the name is not a header line.
    [['x-other', 'x-service-signature'], 0],
  ])('counts the signature lines of %j: %d', (raw, expected) => {
    expect(countSignatureHeaders(raw)).toBe(expected);
  });
});

describe('attemptOf', () => {
  const base = readFacts(arrivalOf(signedRequest({ attempt: 2 })));
  const ending = { finishedAt: NOW_MS + 7, signatureTimestamp: 1234, outcome: 'rejected', status: 400, reason: 'SIGNATURE_INVALID', retryAfter: '5' } as const;
  const identify = (facts: ArrivalFacts) => attemptOf(facts, ending);

  it('carries the fields that identify the arrival, and how it ended', () => {
    expect(attemptOf(base, ending)).toEqual({
      deliveryId: base.deliveryId,
      trigger: 'trustcenter.access_requested',
      receivedAt: NOW_MS,
      finishedAt: NOW_MS + 7,
      attemptHeader: 2,
      signatureTimestamp: 1234,
      bodySha256: base.bodySha256,
      bodyBytes: base.bodyBytes,
      outcome: 'rejected',
      status: 400,
      reason: 'SIGNATURE_INVALID',
      retryAfter: '5',
    });
  });

  it('recordedId is the record\'s id, capped the same way', () => {
    expect(recordedId({ ...base, deliveryId: 'i'.repeat(10_000) })).toBe('i'.repeat(MAX_ID_LENGTH));
    expect(recordedId({ ...base, deliveryId: undefined })).toBeNull();
  });

  it('absent ids are null, not undefined', () => {
    expect(identify({ ...base, deliveryId: undefined, event: undefined })).toMatchObject({ deliveryId: null, trigger: null });
  });

  it(`caps the id and the trigger at ${MAX_ID_LENGTH} characters`, () => {
    const id = 'i'.repeat(10_000);
    const event = 'e'.repeat(MAX_ID_LENGTH + 1);
    const ids = identify({ ...base, deliveryId: id, event });
    expect(ids.deliveryId).toBe('i'.repeat(MAX_ID_LENGTH));
    expect(ids.trigger).toBe('e'.repeat(MAX_ID_LENGTH));
  });

  it('keeps an id of exactly the limit, and an empty one, as sent', () => {
    const id = 'x'.repeat(MAX_ID_LENGTH);
    expect(identify({ ...base, deliveryId: id, event: '' })).toMatchObject({ deliveryId: id, trigger: '' });
  });
});
