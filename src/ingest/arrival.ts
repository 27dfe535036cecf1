/** What the receiver reads off one request before deciding anything. */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_ID_LENGTH } from '../core/envelope.js';

export interface Arrival {
  receivedAt: number;
  rawBody: Buffer;
  deliveryId: string | undefined;
  event: string | undefined;
  attemptHeader: number | null;
  signatureHeader: string | undefined;
  bodySha256: string;
}

const MAX_HEADER_ATTEMPT = 1_000_000;

/** `x-service-delivery-attempt` as a positive integer, or null when absent or not one. */
export function parseAttemptHeader(value: string | string[] | undefined): number | null {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,6}$/.test(value)) return null;
  const n = Number(value);
  return n <= MAX_HEADER_ATTEMPT ? n : null;
}

const single = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);

export function readArrival(headers: IncomingHttpHeaders, rawBody: Buffer, receivedAt: number): Arrival {
  return {
    receivedAt,
    rawBody,
    deliveryId: single(headers['x-service-delivery']),
    event: single(headers['x-service-event']),
    attemptHeader: parseAttemptHeader(headers['x-service-delivery-attempt']),
    signatureHeader: single(headers['x-service-signature']),
    bodySha256: hash('sha256', rawBody, 'hex'),
  };
}

/** How many `x-service-signature` header lines the request carried (Node joins repeats). */
export function countSignatureHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'x-service-signature') count++;
  return count;
}

/** Attempt-record fields that identify an arrival; ids and triggers are capped so a hostile header cannot bloat the store. */
export function identify(arrival: Arrival) {
  return {
    deliveryId: arrival.deliveryId === undefined ? null : arrival.deliveryId.slice(0, MAX_ID_LENGTH),
    trigger: arrival.event === undefined ? null : arrival.event.slice(0, MAX_ID_LENGTH),
    receivedAt: arrival.receivedAt,
    attemptHeader: arrival.attemptHeader,
    bodySha256: arrival.bodySha256,
    bodyBytes: arrival.rawBody.length,
  };
}
