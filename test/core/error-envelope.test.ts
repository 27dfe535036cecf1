/** error-envelope.ts: the spec's envelopes, as objects and as the text the receiver answers with, exactly the JSON they claim. */
import { describe, expect, it } from 'vitest';
import { errorEnvelope, errorEnvelopeText, successEnvelopeText } from '../../src/core/error-envelope.js';

describe('errorEnvelope', () => {
  it('is the spec 7 shape, in its order, with details and requestId only when given', () => {
    expect(JSON.stringify(errorEnvelope('NOT_FOUND', 'no such webhook', 0))).toBe('{"success":false,"error":"no such webhook","code":"NOT_FOUND","timestamp":"1970-01-01T00:00:00.000Z"}');
    expect(Object.keys(errorEnvelope('X', 'e', '2026-01-01T00:00:00Z', { details: [1], requestId: 'r' }))).toEqual(['success', 'error', 'code', 'details', 'timestamp', 'requestId']);
    expect(errorEnvelope('X', 'e', null).timestamp).toBeNull();
  });
});

const NOW = Date.UTC(2026, 10, 21, 10, 0, 1, 234);
const STAMP = '2026-11-21T10:00:01.234Z';

describe('successEnvelopeText', () => {
  it('is success, data, timestamp, in that order', () => {
    expect(successEnvelopeText({ deliveryId: 'd-1', duplicate: false }, NOW)).toBe(`{"success":true,"data":{"deliveryId":"d-1","duplicate":false},"timestamp":"${STAMP}"}`);
  });

  it('escapes whatever the data holds, so the body always parses', () => {
    const id = 'quote " backslash \\ newline \n </script> \u2028 \u0000';
    const body = successEnvelopeText({ deliveryId: id, nested: { list: [1, null] } }, NOW);
    expect(JSON.parse(body)).toEqual({ success: true, data: { deliveryId: id, nested: { list: [1, null] } }, timestamp: STAMP });
  });

  it('an empty data object is still an object', () => {
    expect(JSON.parse(successEnvelopeText({}, 0))).toEqual({ success: true, data: {}, timestamp: '1970-01-01T00:00:00.000Z' });
  });
});

describe('errorEnvelopeText', () => {
  it('is success false, the message, the code and the timestamp', () => {
    expect(errorEnvelopeText('SIGNATURE_MISMATCH', 'signature mismatch', NOW)).toBe(`{"success":false,"error":"signature mismatch","code":"SIGNATURE_MISMATCH","timestamp":"${STAMP}"}`);
  });

  it('carries details only when given', () => {
    expect(JSON.parse(errorEnvelopeText('INVALID_ENVELOPE', 'bad', NOW, { field: 'id' }))).toEqual({ success: false, error: 'bad', code: 'INVALID_ENVELOPE', details: { field: 'id' }, timestamp: STAMP });
    expect(JSON.parse(errorEnvelopeText('INVALID_ENVELOPE', 'bad', NOW))).not.toHaveProperty('details');
    // null is a value: it is kept.
    expect(JSON.parse(errorEnvelopeText('X', 'bad', NOW, null))).toHaveProperty('details', null);
  });

  it('escapes a hostile message', () => {
    const message = 'part 1 "t=\\"" has no \'=\'\n';
    expect(JSON.parse(errorEnvelopeText('SIGNATURE_MALFORMED', message, NOW)).error).toBe(message);
  });
});
