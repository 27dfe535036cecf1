/**
 * An OTLP/HTTP receiver for tests: a plain node http server on port 0 that takes what the JSON
 * exporter POSTs to /v1/traces and keeps each span, flat, with its resource's attributes.
 */
import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  events: Array<{ name: string; attributes: Record<string, string | number | boolean> }>;
  status: { code?: number; message?: string };
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request body as received (decoded text), for "nothing was exported" and secret checks. */
  bodies: string[];
  /** Resolves once `check` holds over the spans received so far. */
  waitFor(check: (spans: ReceivedSpan[]) => boolean): Promise<void>;
  close(): Promise<void>;
}

const valueOf = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue ?? '');

const attributesOf = (list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, string | number | boolean> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const events = new EventEmitter();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const text = raw.toString('utf8');
      bodies.push(text);
      if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
        const payload = JSON.parse(text) as { resourceSpans?: Array<{ resource?: { attributes?: Array<{ key: string; value: AnyValue }> }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
        for (const rs of payload.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId as string,
                spanId: s.spanId as string,
                parentSpanId: (s.parentSpanId as string | undefined) ?? '',
                name: s.name as string,
                kind: s.kind as number,
                attributes: attributesOf(s.attributes as Array<{ key: string; value: AnyValue }>),
                events: ((s.events as Array<{ name: string; attributes?: Array<{ key: string; value: AnyValue }> }> | undefined) ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
                status: (s.status as { code?: number; message?: string } | undefined) ?? {},
                resource,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      events.emit('received');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitFor(check) {
      while (!check(spans)) await once(events, 'received');
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
