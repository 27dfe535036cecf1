/** The outcome classes of spec 6.4: what one attempt observed, and the class it falls in. */
import type { FailureClass } from './policy.js';

/** What the transport saw for one attempt (redirects with a usable Location already followed). */
export type AttemptObservation =
  | { kind: 'response'; status: number; retryAfter?: string | null }
  | { kind: 'timeout' }
  | { kind: 'network'; cause: 'refused' | 'reset' | 'dns' | 'other' }
  | { kind: 'redirect'; cause: 'missing_location' | 'unusable_location' | 'too_many_hops'; status: number }
  | { kind: 'blocked' };

/** The errorMessage of an attempt that never reached the endpoint (refused, unresolved): `send` tells it apart by this. */
export const COULD_NOT_CONNECT = 'could not connect';

/** The judged attempt: the Attempt record's result fields (spec 2.11). */
export interface AttemptOutcome {
  delivered: boolean;
  failureClass: FailureClass | null;
  responseStatus: number | null;
  /** Deliberately coarse (spec 2.11): it never echoes the endpoint's answer. */
  errorMessage: string | null;
  /** Retry-After as sent, kept only where spec 6.4 honours it (429, 503). */
  retryAfter: string | null;
}

/**
 * Classifies one attempt per the spec 6.4 table. Only 2xx is success; the body is never
 * looked at. A 3xx reaching here was not followable (no usable Location), so it is `redirect`.
 * Statuses outside 200-599 are malformed answers and count as `network`.
 */
export function classifyOutcome(observation: AttemptObservation): AttemptOutcome {
  switch (observation.kind) {
    case 'timeout':
      return failed('timeout', null, 'timeout');
    case 'network':
      return failed('network', null, observation.cause === 'reset' ? 'connection closed without a response' : COULD_NOT_CONNECT);
    case 'blocked':
      return failed('blocked', null, 'endpoint resolves to a private or reserved address');
    case 'redirect':
      return failed('redirect', observation.status, observation.cause === 'too_many_hops' ? 'more than 3 redirect hops' : 'redirect without usable location');
    case 'response':
      return classifyStatus(observation.status, observation.retryAfter ?? null);
  }
}

function classifyStatus(status: number, retryAfter: string | null): AttemptOutcome {
  if (!Number.isInteger(status) || status < 200 || status > 599) return failed('network', null, 'invalid response');
  if (status < 300) return { delivered: true, failureClass: null, responseStatus: status, errorMessage: null, retryAfter: null };
  if (status < 400) return failed('redirect', status, 'redirect without usable location');
  const responded = 'responded with a status';
  if (status === 408) return failed('http_408', status, responded);
  if (status === 429) return failed('http_429', status, responded, retryAfter);
  if (status === 410) return failed('http_410', status, responded);
  if (status < 500) return failed('http_4xx', status, responded);
  if (status === 501 || status === 505) return failed('http_unsupported', status, responded);
  // Spec 6.4: a 503 with Retry-After is honoured; other 5xx use the backoff.
  return failed('http_5xx', status, responded, status === 503 ? retryAfter : null);
}

function failed(failureClass: FailureClass, responseStatus: number | null, errorMessage: string, retryAfter: string | null = null): AttemptOutcome {
  return { delivered: false, failureClass, responseStatus, errorMessage, retryAfter };
}
