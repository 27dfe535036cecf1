/**
 * Reads a captured request: a raw HTTP request (request line, headers, blank line, body) or
 * just the header lines, a blank line and the body. The body is the exact bytes after the
 * first blank line.
 */
import { SIGNATURE_HEADER_NAME } from '../core/signature/signature-header.js';

export interface CapturedRequest {
  headers: Array<[string, string]>;
  body: Buffer;
}

export type CaptureResult = { ok: true; request: CapturedRequest } | { ok: false; message: string };

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d(\.\d)?$/;

export function parseCapturedRequest(bytes: Buffer): CaptureResult {
  const crlf = bytes.indexOf('\r\n\r\n');
  const lf = bytes.indexOf('\n\n');
  let split: number;
  let gap: number;
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) [split, gap] = [crlf, 4];
  else if (lf >= 0) [split, gap] = [lf, 2];
  else return { ok: false, message: 'no blank line between the headers and the body: a capture is "Header: value" lines, an empty line, then the body' };

  const lines = bytes.subarray(0, split).toString('latin1').split(/\r?\n/);
  if (lines[0] !== undefined && REQUEST_LINE.test(lines[0])) lines.shift();
  const headers: Array<[string, string]> = [];
  for (const [i, line] of lines.entries()) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { ok: false, message: `header line ${i + 1} has no "name: value" form: ${JSON.stringify(line.slice(0, 80))}` };
    headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return { ok: true, request: { headers, body: bytes.subarray(split + gap) } };
}

export function headerValues(request: CapturedRequest, name: string): string[] {
  return request.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
}

/**
 * The signature header as every export writes it (issue 13, item 8): its `t` stays, its MACs do not.
 * A MAC with its message is enough to guess a weak secret offline, and an export is made to be
 * shared. `events export --include-signature` keeps it, for `hookrelay verify`.
 */
export const REDACTED = 'redacted';
/** Names the arrival time of an exported request, so that `verify` judges its `t` as the receiver did. */
export const RECEIVED_AT_HEADER = 'x-hookrelay-received-at';

export function redactSignature(value: string): string {
  const t = /^\s*t=(\d{1,12})(?:,|$)/.exec(value);
  return t ? `t=${t[1]},v1=${REDACTED}` : REDACTED;
}

export function isRedactedSignature(value: string): boolean {
  return value === REDACTED || new RegExp(`^t=\\d{1,12},v1=${REDACTED}$`).test(value);
}

/** Headers with every signature line redacted, unless `includeSignature`. */
export function exportHeaders(headers: ReadonlyArray<readonly [string, string]>, includeSignature: boolean): Array<[string, string]> {
  return headers.map(([name, value]) => [name, !includeSignature && name.toLowerCase() === SIGNATURE_HEADER_NAME ? redactSignature(value) : value]);
}

export interface CaptureInput {
  /** The path of the request line. */
  path: string;
  headers: ReadonlyArray<readonly [string, string]>;
  body: Buffer;
  /** Milliseconds since the epoch: written as RECEIVED_AT_HEADER. */
  receivedAt: number;
}

/**
 * One request in the capture format parseCapturedRequest reads: request line, header lines (bytes
 * as Node read them: Latin-1), RECEIVED_AT_HEADER, a blank line, the raw body byte for byte.
 */
export function formatCapture(input: CaptureInput): Buffer {
  const lines = [`POST ${input.path} HTTP/1.1`, ...input.headers.map(([name, value]) => `${name}: ${value}`), `${RECEIVED_AT_HEADER}: ${new Date(input.receivedAt).toISOString()}`];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), input.body]);
}

/** The arrival time a capture records (RECEIVED_AT_HEADER), ms since the epoch; null when absent or unreadable. */
export function capturedReceivedAt(request: CapturedRequest): number | null {
  const [value] = headerValues(request, RECEIVED_AT_HEADER);
  if (value === undefined || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
