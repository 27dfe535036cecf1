/** The spec's envelopes (sections 2.1 and 7), built as strings on the hot path. */

export function successBody(data: Record<string, unknown>, now: number): string {
  return `{"success":true,"data":${JSON.stringify(data)},"timestamp":"${new Date(now).toISOString()}"}`;
}

export function errorBody(code: string, error: string, now: number, details?: unknown): string {
  return JSON.stringify({ success: false, error, code, ...(details === undefined ? {} : { details }), timestamp: new Date(now).toISOString() });
}
