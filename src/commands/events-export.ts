/** `events export`: stored deliveries as NDJSON, HAR 1.2 or a curl script, raw bodies included. */
import { decodeBodyLeniently } from '../core/envelope.js';
import type { StoredDelivery } from '../store/store.js';

export type ExportFormat = 'ndjson' | 'har' | 'curl';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'har', 'curl'];

const isUtf8 = (bytes: Buffer) => Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);

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
        postData: { mimeType: contentType, text: decodeBodyLeniently(body) },
        headersSize: -1,
        bodySize: body.length,
        // HAR keeps text only; the exact bytes travel in a custom field (HAR allows `_` fields).
        _bodyBase64: body.toString('base64'),
        _bodyIsExactUtf8: isUtf8(body),
      },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', cookies: [], headers: [], content: { size: 0, mimeType: 'application/json' }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
      _hookrelay: { id: d.id, trigger: d.trigger, signature: d.signature, duplicateCount: d.duplicateCount },
    };
  });
  return `${JSON.stringify({ log: { version: '1.2', creator: { name: 'hookrelay', version: '0.1.0' }, entries } }, null, 2)}\n`;
}

/** Single-quotes for POSIX shells: nothing inside is interpreted. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

const SKIPPED_IN_CURL = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'expect']);

export function toCurl(deliveries: readonly StoredDelivery[], receiverUrl: string): string {
  const lines = ['#!/bin/sh', '# Re-sends stored deliveries byte for byte. Their signatures are the original ones:', '# a receiver checking the timestamp tolerance will refuse them unless it skips verification.', 'set -e'];
  for (const d of deliveries) {
    const headers = d.headers.filter(([n]) => !SKIPPED_IN_CURL.has(n.toLowerCase())).map(([n, v]) => `-H ${shellQuote(`${n}: ${v}`)}`);
    lines.push(
      `# ${d.id.replace(/[^\x20-\x7e]/g, '?')}`,
      `printf %s ${shellQuote(Buffer.from(d.rawBody).toString('base64'))} | base64 -d | curl -sS -X POST ${shellQuote(receiverUrl)} ${headers.join(' ')} --data-binary @-`,
    );
  }
  return `${lines.join('\n')}\n`;
}
