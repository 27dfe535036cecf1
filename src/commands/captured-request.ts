/**
 * Reads a captured request: a raw HTTP request (request line, headers, blank line, body) or
 * just the header lines, a blank line and the body. The body is the exact bytes after the
 * first blank line.
 */
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
