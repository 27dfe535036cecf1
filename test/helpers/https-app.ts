/** An https app with a self-signed certificate that keeps every request it gets (headers and body) and answers 204. */
import { once } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SelfSigned } from '../tls/self-signed.js';

export interface HttpsApp {
  url: string;
  seen: Array<{ headers: IncomingHttpHeaders; body: Buffer }>;
  close(): Promise<void>;
}

export async function startHttpsApp(pair: SelfSigned, path = '/vendor'): Promise<HttpsApp> {
  const seen: HttpsApp['seen'] = [];
  const server = createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    seen,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
