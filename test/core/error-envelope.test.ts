import { describe, expect, it } from 'vitest';
import { errorEnvelope } from '../../src/core/error-envelope.js';

describe('errorEnvelope', () => {
  it('is the spec 7 shape, in its order, with details and requestId only when given', () => {
    expect(JSON.stringify(errorEnvelope('NOT_FOUND', 'no such webhook', 0))).toBe('{"success":false,"error":"no such webhook","code":"NOT_FOUND","timestamp":"1970-01-01T00:00:00.000Z"}');
    expect(Object.keys(errorEnvelope('X', 'e', '2026-01-01T00:00:00Z', { details: [1], requestId: 'r' }))).toEqual(['success', 'error', 'code', 'details', 'timestamp', 'requestId']);
    expect(errorEnvelope('X', 'e', null).timestamp).toBeNull();
  });
});
