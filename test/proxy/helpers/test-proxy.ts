/**
 * An HTTP proxy for tests, in this process: CONNECT tunnels (https://, ws://, wss://) and plain
 * requests in absolute form (http://), each target recorded as `host:port` in the order it came.
 * Names in `hosts` are resolved here only: nothing else on the machine can resolve a `.test` name,
 * so a client that reached one went through this proxy and nothing went around it. With `auth`, a
 * request without that Proxy-Authorization is answered 407. `stop()` destroys every socket (clients'
 * and upstreams') and the server; `start()` listens again on the same port.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface TestProxy {
  port: number;
  /** http://127.0.0.1:PORT */
  url: string;
  /** Every target that passed through (tunnelled or forwarded), as `host:port`. */
  targets: string[];
  /** Targets refused: `407 host:port` (credentials), `502 host:port` (a name this proxy does not know). */
  refused: string[];
  /** Client connections accepted, over every start. */
  connections(): number;
  /** Tunnels open now. */
  openTunnels(): number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** Names only this proxy resolves, to the address it connects to. Loopback addresses resolve as themselves. */
  hosts?: Record<string, string>;
  auth?: { user: string; password: string };
}

export async function startTestProxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const targets: string[] = [];
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  let tunnels = 0;
  let accepted = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString('base64')}` : null;
  const authorized = (req: IncomingMessage) => expected === null || req.headers['proxy-authorization'] === expected;
  const address = (host: string): string | null => {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    return options.hosts?.[bare] ?? (/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(bare) ? bare : null);
  };

  const server = createServer((req, res) => {
    // A plain request through the proxy: its target in absolute form.
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('not a proxy request');
      return;
    }
    const hostPort = `${target.hostname}:${target.port || 80}`;
    if (!authorized(req)) {
      refused.push(`407 ${hostPort}`);
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const to = address(target.hostname);
    if (to === null) {
      refused.push(`502 ${hostPort}`);
      res.writeHead(502).end('unknown host');
      return;
    }
    targets.push(hostPort);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest({ host: to, port: Number(target.port || 80), method: req.method, path: `${target.pathname}${target.search}`, headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('socket', track);
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    accepted++;
    track(socket);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const hostPort = req.url ?? '';
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(hostPort);
    if (!authorized(req)) {
      refused.push(`407 ${hostPort}`);
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const to = match ? address(match[1]!) : null;
    if (to === null) {
      refused.push(`502 ${hostPort}`);
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    targets.push(hostPort);
    const upstream = connect(Number(match![2]), to);
    track(upstream);
    tunnels++;
    let closed = false;
    const end = () => {
      if (closed) return;
      closed = true;
      tunnels--;
      client.destroy();
      upstream.destroy();
    };
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on('error', end);
    client.on('error', end);
    upstream.once('close', end);
    client.once('close', end);
  });

  let port = 0;
  const start = async () => {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  };
  const stop = async () => {
    const closed = once(server, 'close');
    server.close();
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await start();
  return {
    get port() {
      return port;
    },
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    targets,
    refused,
    connections: () => accepted,
    openTunnels: () => tunnels,
    stop,
    start,
    async close() {
      if (server.listening) await stop();
    },
  };
}
