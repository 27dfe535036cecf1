/** A hostile API server for the client's tests: each request is answered by the next scripted handler (port 0, real sockets). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface HostileServer {
  baseUrl: string;
  /** Every request seen: method, url, authorization header. */
  requests: Array<{ method: string; url: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** Serves `script(i)` for the i-th request (0-based). */
export async function startHostile(script: (i: number, req: IncomingMessage) => Handler): Promise<HostileServer> {
  const requests: HostileServer['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const i = requests.length;
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
      script(i, req)(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const stamp = () => new Date().toISOString();

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

export const ok = (data: unknown, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Handler => json(200, { success: true, data, ...extra, timestamp: stamp() }, headers);

export const apiError = (status: number, code: string, error: string, details?: unknown, headers: Record<string, string> = {}): Handler =>
  json(status, { success: false, error, code, ...(details === undefined ? {} : { details }), timestamp: stamp(), requestId: 'req-1' }, headers);

export const raw = (status: number, body: string, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, headers);
  res.end(body);
};

export const webhook = (id: string, extra: Record<string, unknown> = {}) => ({
  id, organizationId: 'org-1', name: 'hook', triggers: ['sod.violation_detected'], endpoint: 'https://example.com/hook', status: 'active',
  apiVersion: '2026-06-01', customHeaders: [], signing: { enabled: true, secretHint: 'whsec_…abcd' }, consecutiveFailures: 0, createdAt: stamp(), ...extra,
});

export const delivery = (id: string, extra: Record<string, unknown> = {}) => ({
  id, webhookId: 'wh-1', trigger: 'sod.violation_detected', apiVersion: '2026-06-01', status: 'succeeded', payload: {}, attemptCount: 1,
  attempts: [{ attemptNumber: 1, startedAt: stamp(), finishedAt: stamp(), responseStatus: 200, durationMs: 3 }], isReplay: false, replayOfDeliveryId: null, createdAt: stamp(), ...extra,
});
