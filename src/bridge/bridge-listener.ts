/**
 * The bridge's own listener (never the receiver's, never the console's): HTTP, or HTTPS with
 * `--tls-cert`, that takes only WebSocket upgrades at BRIDGE_PATH, in the newest version both sides
 * speak. Whom it lets in is `admit`'s answer; a refused upgrade gets a plain HTTP status and reason.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOLS } from '../core/bridge-protocol.js';
import { urlHost } from '../runtime/hosts.js';

/** What `admit` says of an upgrade request: who it is, or the status and reason it is refused with. */
export type Admission<T> = { ok: true; subscriber: T } | { ok: false; status: number; reason: string };

export interface BridgeListenerOptions<T> {
  host: string;
  port: number;
  /** PEM, already checked: serve wss:// instead of ws://. */
  tls?: { cert: string; key: string } | undefined;
  admit(req: IncomingMessage): Admission<T>;
  /** An admitted client, its WebSocket open. */
  onConnection(ws: WebSocket, subscriber: T): void;
}

export interface BridgeListener {
  url: string;
  /** Stops listening and drops every connection still open. */
  close(): Promise<void>;
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${reason.length}\r\n\r\n${reason}`);
}

export async function openBridgeListener<T>(options: BridgeListenerOptions<T>): Promise<BridgeListener> {
  const answer: RequestListener = (_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end(`the bridge speaks WebSocket (${BRIDGE_PROTOCOLS.join(' or ')}) at ${BRIDGE_PATH}\n`);
  };
  const http: Server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, answer) : createServer(answer);
  // The newest version the client offers (BRIDGE_PROTOCOLS is newest first).
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096, handleProtocols: (offered) => BRIDGE_PROTOCOLS.find((p) => offered.has(p)) ?? false });

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const path = (req.url ?? '').split('?')[0];
    if (path !== BRIDGE_PATH) return refuseUpgrade(socket, 404, `the bridge is at ${BRIDGE_PATH}`);
    const admission = options.admit(req);
    if (!admission.ok) return refuseUpgrade(socket, admission.status, admission.reason);
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (!BRIDGE_PROTOCOLS.some((p) => protocols.includes(p))) return refuseUpgrade(socket, 400, `this bridge speaks ${BRIDGE_PROTOCOLS.join(' or ')}`);
    wss.handleUpgrade(req, socket, head, (ws) => options.onConnection(ws, admission.subscriber));
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? Object.assign(new Error(`bridge port ${options.port} on ${options.host} is already in use: pass another --bridge-port`), { code: 'BRIDGE_PORT_IN_USE' }) : err),
    );
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `${options.tls ? 'wss' : 'ws'}://${urlHost(options.host)}:${port}${BRIDGE_PATH}`,
    async close() {
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
