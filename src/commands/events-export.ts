/** `events export`: stored deliveries as NDJSON, HAR 1.2 or a curl script, raw bodies included. */
import { VERSION } from '../runtime/version.js';
import { decodeBodyLeniently } from '../core/envelope.js';
import { commentText, curlCommand } from '../core/shell-command.js';
import type { StoredDelivery } from '../store/store.js';

export type ExportFormat = 'ndjson' | 'har' | 'curl';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'har', 'curl'];

export function toNdjson(deliveries: readonly StoredDelivery[]): string {
  return deliveries
    .map((d) =>
      JSON.stringify({
        id: d.id,
        trigger: d.trigger,
        apiVersion: d.apiVersion,
        receivedAt: new Date(d.receivedAt).toISOString(),
        signature: d.signature,
        duplicateCount: d.duplicateCount,
        headers: d.headers,
        bodyBase64: Buffer.from(d.rawBody).toString('base64'),
        body: decodeBodyLeniently(Buffer.from(d.rawBody)),
      }),
    )
    .map((line) => `${line}\n`)
    .join('');
}

export function toHar(deliveries: readonly StoredDelivery[], receiverUrl: string): string {
  const entries = deliveries.map((d) => {
    const body = Buffer.from(d.rawBody);
    const text = decodeBodyLeniently(body);
    const contentType = d.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? 'application/json';
    return {
      startedDateTime: new Date(d.receivedAt).toISOString(),
      time: 0,
      request: {
        method: 'POST',
        url: receiverUrl,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: d.headers.map(([name, value]) => ({ name, value })),
        queryString: [],
        postData: { mimeType: contentType, text },
        headersSize: -1,
        bodySize: body.length,
        // HAR keeps text only; the exact bytes travel in a custom field (HAR allows `_` fields).
        _bodyBase64: body.toString('base64'),
        // True only when postData.text is the body byte for byte (not when a BOM was skipped or bytes replaced).
        _bodyIsExactUtf8: Buffer.from(text, 'utf8').equals(body),
      },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', cookies: [], headers: [], content: { size: 0, mimeType: 'application/json' }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
      _hookrelay: { id: d.id, trigger: d.trigger, signature: d.signature, duplicateCount: d.duplicateCount },
    };
  });
  return `${JSON.stringify({ log: { version: '1.2', creator: { name: 'hookrelay', version: VERSION }, entries } }, null, 2)}\n`;
}

export { shellQuote } from '../core/shell-command.js';

/**
 * A sh script that re-sends each delivery byte for byte with curl. The commands are built by
 * core/shell-command.ts, as the console's "Copy as curl" is: safe and exact in sh, bash and zsh.
 */
export function toCurl(deliveries: readonly StoredDelivery[], receiverUrl: string): string {
  const lines = ['#!/bin/sh', '# Re-sends stored deliveries byte for byte. Their signatures are the original ones:', '# a receiver checking the timestamp tolerance will refuse them unless it skips verification.', 'set -e'];
  for (const d of deliveries) {
    lines.push(`# delivery ${commentText(d.id)}`, curlCommand({ url: receiverUrl, headers: d.headers, body: d.rawBody }));
  }
  return `${lines.join('\n')}\n`;
}
