/**
 * WebSocket upgrades of the console's HTTP server. An upgrade is refused before the handshake
 * unless its Host is allowed, its Origin is exactly the console's own (a missing or `null` Origin
 * is refused too: only the page opens the feed — no cross-site WebSocket hijacking), and it
 * carries the token when one is required.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Feed } from './feed.js';
import type { HostAllowList } from './host-allow-list.js';
import { FEED_PROTOCOL, tokenFromUpgrade, tokenMatches, tokenRefusal } from './token.js';

export const FEED_PATH = '/api/feed';
/** The page sends nothing; a client message larger than this closes the socket (1009). */
const MAX_CLIENT_PAYLOAD = 1024;

const REASONS: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

function refuse(socket: Duplex, status: number, message: string): void {
  const body = `${message}\n`;
  socket.once('finish', () => socket.destroy());
  socket.once('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export interface UpgradeOptions {
  server: Server;
  feed: Feed;
  hosts: HostAllowList;
  token: string | null;
}

/** Handles `upgrade` on `server`; returns a function that detaches it and closes the WebSocket server. */
export function handleFeedUpgrades(options: UpgradeOptions): () => void {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_CLIENT_PAYLOAD,
    perMessageDeflate: false,
    // The page offers FEED_PROTOCOL (and maybe a token protocol); the token is never echoed.
    handleProtocols: (protocols) => (protocols.has(FEED_PROTOCOL) ? FEED_PROTOCOL : false),
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://console.invalid');
    } catch {
      refuse(socket, 404, 'not found');
      return;
    }
    if (url.pathname !== FEED_PATH) return refuse(socket, 404, 'not found');
    if (!options.hosts.hostAllowed(req.headers.host)) return refuse(socket, 403, 'Host header not allowed');
    if (!options.hosts.originAllowed(req.headers.origin)) return refuse(socket, 403, 'Origin not allowed: the feed only serves the console page');
    if (options.token !== null) {
      const given = tokenFromUpgrade(req.headers, url.searchParams);
      if (!tokenMatches(options.token, given)) return refuse(socket, 401, tokenRefusal('this console', given, 'pass ?token='));
    }
    const since = url.searchParams.get('since');
    const sinceNumber = since !== null && /^\d{1,15}$/.test(since) ? Number(since) : null;
    const epoch = url.searchParams.get('epoch');
    wss.handleUpgrade(req, socket, head, (ws) => options.feed.attach(ws, { since: sinceNumber, epoch }));
  };

  options.server.on('upgrade', onUpgrade);
  return () => {
    options.server.off('upgrade', onUpgrade);
    wss.close();
  };
}
