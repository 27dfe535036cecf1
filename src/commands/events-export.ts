/**
 * `events export`: stored deliveries, or one attempt of a delivery, as NDJSON, HAR 1.2, a curl
 * script or a capture file (what `hookrelay verify` reads), raw bodies included. Every format
 * redacts the signature header's MACs unless asked to keep them (captured-request.ts).
 */
import { createHash } from 'node:crypto';
import { VERSION } from '../runtime/version.js';
import { decodeBodyLeniently } from '../core/envelope.js';
import { commentText, curlCommand } from '../core/shell-command.js';
import type { AttemptRecord, StoredDelivery } from '../store/store.js';
import { exportHeaders, formatCapture } from './captured-request.js';

export type ExportFormat = 'ndjson' | 'har' | 'curl' | 'capture';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'har', 'curl', 'capture'];

export interface ExportOptions {
  /** Keep the signature header as received (default: its MACs are redacted). */
  includeSignature?: boolean;
}

/** One request to export: a stored delivery, or one attempt of a delivery id. */
export interface ExportItem {
  /** What a comment or an error names it by. */
  label: string;
  receivedAt: number;
  headers: Array<[string, string]>;
  /** Null when the body was not kept (never read: over --body-limit). */
  body: Buffer | null;
  /** The NDJSON line's own fields, and HAR's `_hookrelay`. */
  fields: Record<string, unknown>;
}

export function deliveryItem(d: StoredDelivery): ExportItem {
  return {
    label: `delivery ${d.id}`,
    receivedAt: d.receivedAt,
    headers: d.headers,
    body: Buffer.from(d.rawBody),
    fields: { id: d.id, trigger: d.trigger, apiVersion: d.apiVersion, signature: d.signature, duplicateCount: d.duplicateCount },
  };
}

/**
 * Attempt `number` (1 = the first arrival of the id) as it arrived: what it kept (rejected, faulted,
 * unavailable: headers and body; a duplicate: headers), or for the accepted one its delivery. A
 * duplicate's body is its delivery's when their SHA-256 agree (the same bytes), else not kept
 * (`events export --attempt` also reuses the delivery's body for any attempt whose SHA-256 agrees).
 */
export function attemptItem(a: AttemptRecord, number: number, delivery: StoredDelivery | undefined): ExportItem {
  const fields = {
    deliveryId: a.deliveryId, trigger: a.trigger, attempt: number, attemptHeader: a.attemptHeader, outcome: a.outcome, status: a.status,
    reason: a.reason, hints: a.hints ?? [], retryAfter: a.retryAfter, bodySha256: a.bodySha256, bodyBytes: a.bodyBytes,
  };
  const label = `attempt ${number} of ${a.deliveryId ?? '(no id)'}`;
  const deliveryBody = delivery ? Buffer.from(delivery.rawBody) : null;
  const sameBody = deliveryBody !== null && createHash('sha256').update(deliveryBody).digest('hex') === a.bodySha256 ? deliveryBody : null;
  if (a.outcome === 'accepted' && delivery) return { label, receivedAt: a.receivedAt, headers: delivery.headers, body: deliveryBody, fields };
  const request = a.request ?? null;
  const kept = request?.body ? Buffer.from(request.body) : null;
  // A refused body longer than what is kept (64 KiB) cannot be exported as the request it was.
  const body = kept !== null ? (kept.length < a.bodyBytes ? null : kept) : a.outcome === 'duplicate' ? sameBody : null;
  return { label, receivedAt: a.receivedAt, headers: request?.headers ?? [], body, fields };
}

/**
 * The export of `items` in `format`, as `events export` writes it: text, or for a capture the
 * bytes of its one request (the first item). Throws BodyNotKeptError for a request whose body was
 * not kept, in every format but NDJSON.
 */
export function formatExport(format: ExportFormat, items: readonly ExportItem[], receiverUrl: string, options: ExportOptions): string | Buffer {
  switch (format) {
    case 'ndjson': return itemsToNdjson(items, options);
    case 'har': return itemsToHar(items, receiverUrl, options);
    case 'curl': return itemsToCurl(items, receiverUrl, options);
    case 'capture': return itemToCapture(items[0]!, receiverUrl, options);
  }
}

function itemsToNdjson(items: readonly ExportItem[], options: ExportOptions): string {
  return items
    .map((item) =>
      JSON.stringify({
        ...item.fields,
        receivedAt: new Date(item.receivedAt).toISOString(),
        headers: exportHeaders(item.headers, options.includeSignature === true),
        signatureRedacted: options.includeSignature !== true,
        bodyBase64: item.body === null ? null : item.body.toString('base64'),
        body: item.body === null ? null : decodeBodyLeniently(item.body),
      }),
    )
    .map((line) => `${line}\n`)
    .join('');
}

function itemsToHar(items: readonly ExportItem[], receiverUrl: string, options: ExportOptions): string {
  const entries = items.map((item) => {
    const body = requireBody(item);
    const text = decodeBodyLeniently(body);
    const headers = exportHeaders(item.headers, options.includeSignature === true);
    const contentType = headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? 'application/json';
    return {
      startedDateTime: new Date(item.receivedAt).toISOString(),
      time: 0,
      request: {
        method: 'POST',
        url: receiverUrl,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: headers.map(([name, value]) => ({ name, value })),
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
      _hookrelay: { ...item.fields, signatureRedacted: options.includeSignature !== true },
    };
  });
  return `${JSON.stringify({ log: { version: '1.2', creator: { name: 'hookrelay', version: VERSION }, entries } }, null, 2)}\n`;
}

/**
 * A sh script that re-sends each request byte for byte with curl. The commands are built by
 * core/shell-command.ts, as the console's "Copy as curl" is: safe and exact in sh, bash and zsh.
 */
function itemsToCurl(items: readonly ExportItem[], receiverUrl: string, options: ExportOptions): string {
  const lines = [
    '#!/bin/sh',
    '# Re-sends stored requests byte for byte.',
    options.includeSignature
      ? '# Their signatures are the original ones: a receiver checking the timestamp tolerance will refuse them unless it skips verification.'
      : '# Their signatures are redacted: a receiver that verifies will refuse them. Export with --include-signature to keep them.',
    'set -e',
  ];
  for (const item of items) {
    lines.push(`# ${commentText(item.label)}`, curlCommand({ url: receiverUrl, headers: exportHeaders(item.headers, options.includeSignature === true), body: requireBody(item) }));
    // curl prints the answer as it came, seldom ending in a newline: without one, the answers of
    // successive commands run together on one line.
    lines.push('echo');
  }
  return `${lines.join('\n')}\n`;
}

/** One request as a capture file for `hookrelay verify`. */
function itemToCapture(item: ExportItem, receiverUrl: string, options: ExportOptions): Buffer {
  let path = '/webhooks';
  try {
    path = new URL(receiverUrl).pathname || '/';
  } catch {
    /* the default path */
  }
  return formatCapture({ path, headers: exportHeaders(item.headers, options.includeSignature === true), body: requireBody(item), receivedAt: item.receivedAt });
}

/** Thrown for a request whose body was not kept: only NDJSON can say so (body null). */
export class BodyNotKeptError extends Error {}

function requireBody(item: ExportItem): Buffer {
  if (item.body === null) throw new BodyNotKeptError(`the body of ${item.label} was not kept (never read: over --body-limit; longer than the 64 KiB a refused attempt keeps; or a duplicate whose body differed): only its headers are; export it with --format ndjson`);
  return item.body;
}
