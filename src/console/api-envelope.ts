/** The spec's envelopes: success (section 2.1), cursor lists (4.1) and errors (7, core/error-envelope.ts's). */
import { errorEnvelope } from '../core/error-envelope.js';

export interface CursorInfo {
  nextCursor: string | null;
  hasMore: boolean;
  limit: number;
}

export function success(data: unknown, now: number, cursor?: CursorInfo): Record<string, unknown> {
  return { success: true, data, ...(cursor ? { cursor } : {}), timestamp: new Date(now).toISOString() };
}

export function failure(code: string, error: string, now: number, details?: unknown): Record<string, unknown> {
  return { ...errorEnvelope(code, error, now, { details }) };
}

/** An expected refusal of the control API: mapped to its status and code by the error handler. */
export class ConsoleApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ConsoleApiError';
  }
}

/** Spec 7 codes by status, for errors raised by fastify itself (bad JSON, body too large...). */
export function codeForStatus(status: number): string {
  switch (status) {
    case 400: return 'BAD_REQUEST';
    case 401: return 'UNAUTHORIZED';
    case 403: return 'FORBIDDEN';
    case 404: return 'NOT_FOUND';
    case 405: return 'METHOD_NOT_ALLOWED';
    case 413: return 'PAYLOAD_TOO_LARGE';
    case 415: return 'UNSUPPORTED_MEDIA_TYPE';
    case 422: return 'VALIDATION_ERROR';
    case 429: return 'TOO_MANY_REQUESTS';
    case 501: return 'NOT_IMPLEMENTED';
    default: return status < 500 ? 'BAD_REQUEST' : 'INTERNAL_ERROR';
  }
}

export const badRequest = (message: string, details?: unknown) => new ConsoleApiError(400, 'BAD_REQUEST', message, details);
export const notFound = (message: string) => new ConsoleApiError(404, 'NOT_FOUND', message);
export const notImplemented = (message: string) => new ConsoleApiError(501, 'NOT_IMPLEMENTED', message);
