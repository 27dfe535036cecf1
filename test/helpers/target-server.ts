/** A local app for relay tests: records what arrives, answers as told. */
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Target {
  url: string;
  port: number;
  received: Received[];
  /** Resolves once at least `n` requests have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTarget(answer: (received: Received, index: number) => number = () => 200, port = 0): Promise<Target> {
  const received: Received[] = [];
  const events = new EventEmitter();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      res.statusCode = answer(entry, received.length - 1);
      res.end('{"ok":true}');
      events.emit('received');
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/hook`,
    port: actual,
    received,
    async waitFor(n) {
      while (received.length < n) await once(events, 'received');
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port with nothing listening on it (a target that is down). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}
