/** Why the receiver refused an arrival: the code in the error envelope and the HTTP status. */
import type { EnvelopeProblem } from '../core/envelope.js';
import { headerLimitProblem } from '../core/limits.js';
import { ENVELOPE_CODES, SIGNATURE_CODES } from '../core/refusal-codes.js';
import type { VerifyFailure } from '../core/signature/verify.js';
import type { Arrival, ReadProblem } from './arrival.js';

export interface Rejection {
  status: number;
  code: string;
  message: string;
}

export const signatureRejection = (reason: VerifyFailure, message: string): Rejection => ({ status: 400, code: SIGNATURE_CODES[reason], message });

export const envelopeRejection = (problem: EnvelopeProblem, message: string): Rejection => ({ status: 400, code: ENVELOPE_CODES[problem], message });

/** A body the source could not read (fastify raises these before any handler runs). */
export function readRejection(problem: ReadProblem, bodyLimitBytes: number): Rejection {
  switch (problem) {
    case 'too_large':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: `the body is over the limit of ${bodyLimitBytes} bytes` };
    case 'bad_length':
      return { status: 400, code: 'INVALID_CONTENT_LENGTH', message: 'Content-Length does not match the body received' };
    case 'empty':
      return { status: 400, code: 'EMPTY_BODY', message: 'the body is empty' };
  }
}

/**
 * The first check of every arrival, size: a body the source could not read, or header lines over
 * the limits of core/limits.ts (431), which the bridge could not carry either. Null: the size is fine.
 */
export function sizeRejection(arrival: Arrival, bodyLimitBytes: number): Rejection | null {
  if (arrival.unread) return readRejection(arrival.unread.problem, bodyLimitBytes);
  const headers = headerLimitProblem(arrival.rawHeaders);
  return headers === null ? null : { status: 431, code: 'HEADERS_TOO_LARGE', message: `the request has ${headers}` };
}

/** Something an intake received and cannot take as a delivery (Arrival.untaken): recorded, so the intake can move past it. */
export const untakenRejection = (why: string): Rejection => ({ status: 422, code: 'BRIDGE_DELIVERY_REFUSED', message: why });
