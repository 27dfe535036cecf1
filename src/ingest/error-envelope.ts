/** The spec's envelopes (sections 2.1 and 7), built as strings on the hot path; the error one is core/error-envelope.ts's. */
import { errorEnvelope } from '../core/error-envelope.js';

export function successBody(data: Record<string, unknown>, now: number): string {
  return `{"success":true,"data":${JSON.stringify(data)},"timestamp":"${new Date(now).toISOString()}"}`;
}

export function errorBody(code: string, error: string, now: number, details?: unknown): string {
  return JSON.stringify(errorEnvelope(code, error, now, { details }));
}
