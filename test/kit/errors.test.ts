/** The adapters answer with the receiver's codes and statuses (src/ingest/pipeline.ts), in the spec's error envelope. */
import { describe, expect, it } from 'vitest';
import { envelopeRejection, signatureRejection } from '../../src/ingest/pipeline.js';
import { ENVELOPE_CODES, errorEnvelope, SIGNATURE_CODES, WebhookError } from '../../src/kit/errors.js';

describe('kit errors', () => {
  it.each(Object.entries(SIGNATURE_CODES))('signature failure %s has the receiver’s code', (reason, code) => {
    expect(signatureRejection(reason as keyof typeof SIGNATURE_CODES, 'm')).toEqual({ status: 400, code, message: 'm' });
  });

  it.each(Object.entries(ENVELOPE_CODES))('envelope problem %s has the receiver’s code', (problem, code) => {
    expect(envelopeRejection(problem as keyof typeof ENVELOPE_CODES, 'm')).toEqual({ status: 400, code, message: 'm' });
  });

  it('writes the spec’s error envelope (section 7), hints in details', () => {
    const error = new WebhookError('SIGNATURE_MISMATCH', 400, 'no match', { hints: ['pass the raw body'], reason: 'mismatch' });
    expect(error).toBeInstanceOf(Error);
    expect(JSON.parse(errorEnvelope(error, Date.UTC(2026, 0, 2)))).toEqual({
      success: false,
      error: 'no match',
      code: 'SIGNATURE_MISMATCH',
      details: { hints: ['pass the raw body'] },
      timestamp: '2026-01-02T00:00:00.000Z',
    });
    expect(JSON.parse(errorEnvelope(new WebhookError('X', 500, 'y'), 0))).not.toHaveProperty('details');
  });
});
