/** A real server on port 0 for the adapter tests, and a client that sends exact bytes. */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sent } from './verify-cases.js';

export async function serve(handler: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((err) => (err ? reject(err) : resolve()));
    }),
  };
}

export interface Answer {
  status: number;
  /** The refusal's code as `hookrelay listen` also sends it (`x-hookrelay-error`), null when absent. */
  errorHeader: string | null;
  json: { success: boolean; code?: string; error?: string; details?: { hints?: string[] }; data?: Record<string, unknown> } | null;
}

/** POSTs the exact bytes with the exact headers. */
export async function post(url: string, sent: Sent): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers: sent.headers, body: new Uint8Array(sent.body) });
  const text = await response.text();
  let json: Answer['json'] = null;
  try {
    json = JSON.parse(text) as Answer['json'];
  } catch {
    json = null;
  }
  return { status: response.status, errorHeader: response.headers.get('x-hookrelay-error'), json };
}
