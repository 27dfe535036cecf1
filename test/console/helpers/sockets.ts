/** Raw HTTP and WebSocket clients for the security tests: they set Host and Origin as an attacker would. */
import { request } from 'node:http';
import { WebSocket } from 'ws';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function httpRequest(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export type UpgradeResult = { opened: true; ws: WebSocket; protocol: string; feed: Collector } | { opened: false; status: number };

/** Tries a WebSocket upgrade; resolves when it opened or was refused. */
export function tryUpgrade(
  port: number,
  options: { path?: string; origin?: string; host?: string; protocols?: string[]; autoPong?: boolean } = {},
): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${options.path ?? '/api/feed'}`, options.protocols ?? [], {
      ...(options.origin === undefined ? {} : { origin: options.origin }),
      ...(options.host === undefined ? {} : { headers: { host: options.host } }),
      ...(options.autoPong === undefined ? {} : { autoPong: options.autoPong }),
    });
    // Collect from the start: the hello and the backlog can arrive in the same read as the handshake.
    const feed = collect(ws);
    ws.once('open', () => resolve({ opened: true, ws, protocol: ws.protocol, feed }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ opened: false, status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

export interface Collector {
  messages: Array<Record<string, unknown>>;
  raw: string[];
  next(test: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/** Collects the feed's messages; `next(predicate)` resolves with the first (past or future) match. */
export function collect(ws: WebSocket): Collector {
  const messages: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const waiters: Array<{ test: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }> = [];
  ws.on('message', (data) => {
    const text = String(data);
    raw.push(text);
    // A frame holds one message, or the messages of one window (~50 ms), or the backlog, as an array.
    const parsed = JSON.parse(text) as Record<string, unknown> | Array<Record<string, unknown>>;
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.test(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  });
  return {
    messages,
    raw,
    next(test: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
      const found = messages.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

export function closed(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => ws.once('close', () => resolve()));
}
