/** error-envelope.ts: the spec's success and error envelopes, built as strings, must still be exactly the JSON they claim. */
import { describe, expect, it } from 'vitest';
import { errorBody, successBody } from '../../src/ingest/error-envelope.js';

const NOW = Date.UTC(2026, 10, 21, 10, 0, 1, 234);
const STAMP = '2026-11-21T10:00:01.234Z';

describe('successBody', () => {
  it('is success, data, timestamp, in that order', () => {
    expect(successBody({ deliveryId: 'd-1', duplicate: false }, NOW)).toBe(`{"success":true,"data":{"deliveryId":"d-1","duplicate":false},"timestamp":"${STAMP}"}`);
  });

  it('escapes whatever the data holds, so the body always parses', () => {
    const id = 'quote " backslash \\ newline \n </script> \u2028 \u0000';
    const body = successBody({ deliveryId: id, nested: { list: [1, null] } }, NOW);
    expect(JSON.parse(body)).toEqual({ success: true, data: { deliveryId: id, nested: { list: [1, null] } }, timestamp: STAMP });
  });

  it('an empty data object is still an object', () => {
    expect(JSON.parse(successBody({}, 0))).toEqual({ success: true, data: {}, timestamp: '1970-01-01T00:00:00.000Z' });
  });
});

describe('errorBody', () => {
  it('is success false, the message, the code and the timestamp', () => {
    expect(errorBody('SIGNATURE_MISMATCH', 'signature mismatch', NOW)).toBe(`{"success":false,"error":"signature mismatch","code":"SIGNATURE_MISMATCH","timestamp":"${STAMP}"}`);
  });

  it('carries details only when given', () => {
    expect(JSON.parse(errorBody('INVALID_ENVELOPE', 'bad', NOW, { field: 'id' }))).toEqual({ success: false, error: 'bad', code: 'INVALID_ENVELOPE', details: { field: 'id' }, timestamp: STAMP });
    expect(JSON.parse(errorBody('INVALID_ENVELOPE', 'bad', NOW))).not.toHaveProperty('details');
    // null is a value: it is kept.
    expect(JSON.parse(errorBody('X', 'bad', NOW, null))).toHaveProperty('details', null);
  });

  it('escapes a hostile message', () => {
    const message = 'part 1 "t=\\"" has no \'=\'\n';
    expect(JSON.parse(errorBody('SIGNATURE_MALFORMED', message, NOW)).error).toBe(message);
  });
});
