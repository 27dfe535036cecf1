/** A small node:http server on 127.0.0.1:0 that records every arrival and answers as told. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** 1-based, in arrival order. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
}

export type Answer =
  | { status: number; headers?: Record<string, string>; body?: string }
  /** Never answer (the sender's timeout must end it). */
  | { hang: true }
  /** Destroy the socket without a response. */
  | { reset: true }
  /** Send the status line and headers, then a body that never ends. */
  | { status: number; endlessBody: true };

export interface TestServer {
  origin: string;
  url(path?: string): string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

/** Starts a server answering each arrival with `answer(arrival)`. `now` stamps receivedAt. */
export async function startTestServer(answer: (arrival: Arrival) => Answer, options: { now?: () => number } = {}): Promise<TestServer> {
  const now = options.now ?? Date.now;
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrival: Arrival = {
        index: arrivals.length + 1,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        receivedAt: now(),
      };
      arrivals.push(arrival);
      respond(answer(arrival), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (path = '/webhooks') => `${origin}${path}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function respond(answer: Answer, res: ServerResponse): void {
  if ('hang' in answer) return;
  if ('reset' in answer) {
    res.socket?.destroy();
    return;
  }
  if ('endlessBody' in answer) {
    res.writeHead(answer.status, { 'content-type': 'text/plain' });
    res.write('this body never ends and must never be read\n');
    return;
  }
  res.writeHead(answer.status, answer.headers ?? {});
  res.end(answer.body ?? '');
}

/** Answers `/hops/N` with `status` and Location `/hops/N-1`, and `/hops/0` with 200. */
export function redirectChain(status: number): (arrival: Arrival) => Answer {
  return (arrival) => {
    const m = /^\/hops\/(\d+)$/.exec(arrival.path);
    const left = m ? Number(m[1]) : 0;
    if (left === 0) return { status: 200 };
    return { status, headers: { location: `/hops/${left - 1}` } };
  };
}

/** Answers arrival n with answers[n-1]; the last answer repeats. */
export function inTurn(...answers: Answer[]): (arrival: Arrival) => Answer {
  return (arrival) => answers[Math.min(arrival.index, answers.length) - 1]!;
}

/** A port on 127.0.0.1 with nothing listening (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
