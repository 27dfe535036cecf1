/** The spec's envelopes (sections 2.1 and 7) as the receiver's answer bodies: core/error-envelope.ts builds both. */
import { errorEnvelope, successEnvelopeText } from '../core/error-envelope.js';

export const successBody: (data: Record<string, unknown>, now: number) => string = successEnvelopeText;

export function errorBody(code: string, error: string, now: number, details?: unknown): string {
  return JSON.stringify(errorEnvelope(code, error, now, { details }));
}
