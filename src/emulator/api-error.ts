/** Coded errors of the emulated API and the envelopes of spec 2.1 and 7. One handler maps them. */
import { errorEnvelope as spec7Envelope } from '../core/error-envelope.js';
import type { FieldProblem } from '../core/retry-policy/validate-policy.js';

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'INVALID_CURSOR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'WEBHOOK_LIMIT_REACHED'
  | 'WEBHOOK_INACTIVE'
  | 'ACCESS_REQUEST_ALREADY_DECIDED'
  | 'VIOLATION_CLOSED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'VALIDATION_ERROR'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_ERROR';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: unknown) => new ApiError(400, 'BAD_REQUEST', message, details);
export const notFound = (message: string) => new ApiError(404, 'NOT_FOUND', message);
export const forbidden = (message: string, details?: unknown) => new ApiError(403, 'FORBIDDEN', message, details);

/** 422 VALIDATION_ERROR naming every refused field (spec 7). */
export function validationError(problems: readonly FieldProblem[]): ApiError {
  return new ApiError(422, 'VALIDATION_ERROR', problems.map((p) => `${p.field} ${p.message}`).join('; '), [...problems]);
}

export function errorEnvelope(err: ApiError, requestId: string, timestamp: string) {
  return spec7Envelope(err.code, err.message, timestamp, { details: err.details, requestId });
}

export function dataEnvelope(data: unknown, requestId: string, timestamp: string, extra: Record<string, unknown> = {}) {
  return { success: true as const, data, ...extra, timestamp, requestId };
}
