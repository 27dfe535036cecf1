/**
 * The spec's error envelope (sections 2.1 and 7): `{success: false, error, code, details?, timestamp,
 * requestId?}`, in that order. The one builder: the receiver, the library's adapters, the emulator,
 * the console and the fault rules all answer with it; and its success twin (section 2.1).
 */
export interface ErrorEnvelope<C extends string = string> {
  success: false;
  error: string;
  code: C;
  details?: unknown;
  /** ISO date-time; null only for a fault rule's answer at a time past what a Date can hold. */
  timestamp: string | null;
  requestId?: string;
}

/** `at`: ms since the epoch, or the ISO text already made. */
export function errorEnvelope<C extends string>(code: C, error: string, at: number | string | null, extras: { details?: unknown; requestId?: string } = {}): ErrorEnvelope<C> {
  const timestamp = typeof at === 'number' ? new Date(at).toISOString() : at;
  const requestId = extras.requestId === undefined ? {} : { requestId: extras.requestId };
  // Built in the spec's order in one literal each: JSON keeps the order the keys were made in.
  return extras.details === undefined
    ? { success: false, error, code, timestamp, ...requestId }
    : { success: false, error, code, details: extras.details, timestamp, ...requestId };
}

/** The error envelope as JSON text, `at` ms since the epoch: the receiver's refusals. */
export function errorEnvelopeText(code: string, error: string, at: number, details?: unknown): string {
  return JSON.stringify(errorEnvelope(code, error, at, { details }));
}

/** The spec's success envelope (section 2.1), `{success: true, data, timestamp}`, as JSON text: the receiver's and the adapters' 2xx. */
export function successEnvelopeText(data: unknown, at: number): string {
  return `{"success":true,"data":${JSON.stringify(data)},"timestamp":"${new Date(at).toISOString()}"}`;
}
