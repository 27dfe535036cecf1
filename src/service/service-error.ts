/**
 * What can go wrong talking to the service, each with a message naming the cause. Every message
 * passes through the client's scrubber before it is thrown, so the API key never appears in one,
 * even when a hostile answer echoes it back.
 */
import { escapeForReading } from '../core/printable-text.js';
export type ServiceErrorCode =
  | 'API_ERROR' // the service answered with its error envelope (spec 7): shown verbatim
  | 'BAD_RESPONSE' // not the API's JSON: an HTML page, malformed JSON, a missing envelope
  | 'NETWORK' // no answer: refused, reset, DNS
  | 'TIMEOUT' // no answer, or no body, in time
  | 'RATE_LIMITED' // 429 again and again, or a Retry-After beyond our cap
  | 'CURSOR_LOOP'; // a cursor that leads back to a page already read (spec 4.1)

/** The error envelope of spec 7, as far as it could be read. Unknown fields are kept in `raw`. */
export interface ErrorEnvelope {
  error: string;
  code: string;
  details?: unknown;
  requestId?: string;
  raw: Record<string, unknown>;
}

export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly status: number | null = null,
    readonly envelope: ErrorEnvelope | null = null,
    /** What likely went wrong on our side (a base URL without /v1, which key was sent): hookrelay's words, not the service's. */
    readonly hint: string | null = null,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  /** The service's own code (spec 7), such as `ACCESS_REQUEST_ALREADY_DECIDED`; null when it sent no envelope. */
  get apiCode(): string | null {
    return this.envelope?.code ?? null;
  }

  /** The `requestId` of the service's error envelope, for its support. */
  get requestId(): string | null {
    return this.envelope?.requestId ?? null;
  }
}

/** The fields an error envelope's `details` names: `{field}`, `[{field}]`, or `{fields: [...]}`. */
export function namedFields(details: unknown): string[] {
  const fields: string[] = [];
  const take = (v: unknown) => {
    if (v !== null && typeof v === 'object' && typeof (v as { field?: unknown }).field === 'string') fields.push((v as { field: string }).field);
  };
  if (Array.isArray(details)) details.forEach(take);
  else if (details !== null && typeof details === 'object') {
    take(details);
    const list = (details as { fields?: unknown }).fields;
    if (Array.isArray(list)) list.forEach((f) => (typeof f === 'string' ? fields.push(f) : take(f)));
  }
  return [...new Set(fields)];
}

/** "422 VALIDATION_ERROR: <message> (field: triggers)" — the service's own words, printable. */
export function describeEnvelope(status: number, envelope: ErrorEnvelope): string {
  const fields = namedFields(envelope.details);
  const field = fields.length > 0 ? ` (field${fields.length > 1 ? 's' : ''}: ${fields.map((f) => excerpt(f, 80)).join(', ')})` : '';
  const request = envelope.requestId !== undefined ? ` [request ${excerpt(envelope.requestId, 80)}]` : '';
  return `the service answered ${status} ${excerpt(envelope.code, 80)}: ${excerpt(envelope.error, 500)}${field}${request}`;
}

/** A hostile string made safe for one terminal line (core/printable-text.ts): control characters escaped, length capped. */
export const excerpt = (text: string, max = 120): string => escapeForReading(text, max + 1);
