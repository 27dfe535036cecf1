/** The receiver's checks (pipeline.ts), their refusals: each refusal's status and code, as the receiver answers them. */
import { describe, expect, it } from 'vitest';
import type { EnvelopeProblem } from '../../src/core/envelope.js';
import type { VerifyFailure } from '../../src/core/signature/verify.js';
import type { ReadProblem } from '../../src/ingest/arrival.js';
import { envelopeRejection, readRejection, signatureRejection } from '../../src/ingest/pipeline.js';

describe('signatureRejection', () => {
  it.each<[VerifyFailure, string]>([
    ['missing', 'SIGNATURE_MISSING'],
    ['malformed', 'SIGNATURE_MALFORMED'],
    ['no_signatures', 'SIGNATURE_NO_V1'],
    ['mismatch', 'SIGNATURE_MISMATCH'],
    ['timestamp_too_old', 'TIMESTAMP_TOO_OLD'],
    ['timestamp_in_future', 'TIMESTAMP_IN_FUTURE'],
  ])('%s is 400 %s, with the message as given', (reason, code) => {
    expect(signatureRejection(reason, `why: ${reason}`)).toEqual({ status: 400, code, message: `why: ${reason}` });
  });
});

describe('envelopeRejection', () => {
  it.each<[EnvelopeProblem, string]>([
    ['invalid_json', 'INVALID_JSON'],
    ['invalid_envelope', 'INVALID_ENVELOPE'],
    ['delivery_id_mismatch', 'DELIVERY_ID_MISMATCH'],
    ['event_type_mismatch', 'EVENT_TYPE_MISMATCH'],
  ])('%s is 400 %s, with the message as given', (problem, code) => {
    expect(envelopeRejection(problem, 'field "id" is missing')).toEqual({ status: 400, code, message: 'field "id" is missing' });
  });
});

describe('readRejection', () => {
  it.each<[ReadProblem, number, string, string]>([
    ['too_large', 413, 'PAYLOAD_TOO_LARGE', 'the body is over the limit of 1048576 bytes'],
    ['bad_length', 400, 'INVALID_CONTENT_LENGTH', 'Content-Length does not match the body received'],
    ['empty', 400, 'EMPTY_BODY', 'the body is empty'],
  ])('%s is %d %s', (problem, status, code, message) => {
    expect(readRejection(problem, 1_048_576)).toEqual({ status, code, message });
  });

  it('names the configured limit', () => {
    expect(readRejection('too_large', 512).message).toBe('the body is over the limit of 512 bytes');
  });

  it('every code is distinct across the three kinds', () => {
    const codes = [
      ...(['missing', 'malformed', 'no_signatures', 'mismatch', 'timestamp_too_old', 'timestamp_in_future'] as const).map((r) => signatureRejection(r, '').code),
      ...(['invalid_json', 'invalid_envelope', 'delivery_id_mismatch', 'event_type_mismatch'] as const).map((p) => envelopeRejection(p, '').code),
      ...(['too_large', 'bad_length', 'empty'] as const).map((p) => readRejection(p, 1).code),
    ];
    expect(new Set(codes).size).toBe(13);
  });
});
