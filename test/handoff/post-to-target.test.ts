/** One POST to the app through undici's dispatch: answers, the hard timeout, and what is kept of an answer and discarded. */
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { KEPT_BODY_BYTES, KEPT_HEADER_LINES, KEPT_HEADER_VALUE_BYTES, sendToTarget, type TargetAnswer } from '../../src/handoff/post-to-target.js';
import { freePort } from '../helpers/target-server.js';

/** One POST, its answer awaited. */
const postToTarget = (dispatcher: Dispatcher, url: string, headers: Record<string, string>, body: Buffer, timeoutMs: number) =>
  new Promise<TargetAnswer>((resolve) => sendToTarget(dispatcher, url, headers, body, timeoutMs, resolve));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?x=1`;
}

function agent(): Agent {
  const dispatcher = new Agent({ keepAliveTimeout: 1000 });
  cleanups.push(() => dispatcher.destroy());
  return dispatcher;
}

const BODY = Buffer.from('{"id":"d-1"}');

describe('sendToTarget', () => {
  it('sends the body and headers to the path with its query, and reports a 2xx', async () => {
    let seen = { url: '', body: '', header: '' };
    const url = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen = { url: req.url!, body: Buffer.concat(chunks).toString(), header: String(req.headers['x-service-delivery']) };
        res.writeHead(204).end();
      });
    });
    const answer = await postToTarget(agent(), url, { 'x-service-delivery': 'd-1', 'content-type': 'application/json' }, BODY, 2000);
    expect(answer).toMatchObject({ status: 204, error: null });
    expect(seen).toEqual({ url: '/hook?x=1', body: '{"id":"d-1"}', header: 'd-1' });
  });

  it('does not follow a redirect, and names a non-2xx', async () => {
    const redirect = await serve((req, res) => (req.resume(), res.writeHead(307, { location: 'http://127.0.0.1:1/' }).end()));
    expect(await postToTarget(agent(), redirect, {}, BODY, 2000)).toMatchObject({ status: 307, error: 'redirect not followed' });
    const failing = await serve((req, res) => (req.resume(), res.writeHead(503).end('busy')));
    expect(await postToTarget(agent(), failing, {}, BODY, 2000)).toMatchObject({ status: 503, error: 'responded 503' });
  });

  it('keeps the status of an answer whose body is large, without reading all of it', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200);
      res.write(Buffer.alloc(200 * 1024, 97));
      // The body never ends: only the discard limit can finish this answer.
    });
    expect(await postToTarget(agent(), url, {}, BODY, 5000)).toMatchObject({ status: 200, error: null });
  });

  it('gives up at the timeout on a target that never answers, within a sweep of it', async () => {
    const url = await serve((req) => req.resume());
    const started = performance.now();
    const answer = await postToTarget(agent(), url, {}, BODY, 300);
    const took = performance.now() - started;
    expect(answer).toMatchObject({ status: null, error: 'timeout after 300 ms' });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(3000);
  });

  it('reports a target that is down, and a URL that is not one', async () => {
    const down = await postToTarget(agent(), `http://127.0.0.1:${await freePort()}/hook`, {}, BODY, 2000);
    expect(down).toMatchObject({ status: null, error: 'could not connect (ECONNREFUSED)' });
    expect(await postToTarget(agent(), 'not a url', {}, BODY, 2000)).toMatchObject({ status: null });
  });
});

/**
 * A target that writes its answer's bytes itself, once the request has arrived: header names in
 * their own case and order, bytes Node's server would refuse to send, a body in several writes.
 */
async function rawTarget(answer: (socket: Socket) => void): Promise<string> {
  const server = createTcpServer((socket) => {
    let seen = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(seen.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      if (seen.length >= end + 4 + length) answer(socket);
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

/** A status line and header lines (strings as Latin-1, or raw bytes), then the blank line. */
const head = (lines: Array<string | Buffer>) =>
  Buffer.concat([...lines.flatMap((l) => [typeof l === 'string' ? Buffer.from(l, 'latin1') : l, Buffer.from('\r\n')]), Buffer.from('\r\n')]);

describe('what sendToTarget keeps of the answer (issue 13, item 13)', () => {
  it('keeps the header lines as received and exactly the first 4096 bytes of a larger body, with its size', async () => {
    const body = Buffer.alloc(10_000);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    const url = await rawTarget((socket) => {
      socket.write(head(['HTTP/1.1 503 Service Unavailable', 'Retry-After: 7', 'X-Trace: abc', 'set-cookie: a=1', 'Set-Cookie: b=2', `Content-Length: ${body.length}`]));
      // In three writes: the kept bytes span chunks.
      socket.write(body.subarray(0, 1000));
      setImmediate(() => socket.write(body.subarray(1000, 4500), () => socket.end(body.subarray(4500))));
    });
    const answer = await postToTarget(agent(), url, {}, BODY, 2000);
    expect(answer).toMatchObject({ status: 503, error: 'responded 503' });
    const reply = answer.reply!;
    expect(reply.headers).toEqual([['Retry-After', '7'], ['X-Trace', 'abc'], ['set-cookie', 'a=1'], ['Set-Cookie', 'b=2'], ['Content-Length', '10000']]);
    expect(reply.headerLines).toBe(5);
    expect(reply.body.length).toBe(4096);
    expect(KEPT_BODY_BYTES).toBe(4096);
    expect(reply.body.equals(body.subarray(0, 4096))).toBe(true);
    expect(reply).toMatchObject({ bodyBytes: 10_000, complete: true });
  });

  it('keeps hostile bytes as they came: markup, a tab and invalid UTF-8 in a header, control characters and invalid UTF-8 in the body', async () => {
    const body = Buffer.concat([Buffer.from('<script>alert(1)</script>\u0000\u001b[31m\u202e'), Buffer.from([0xff, 0xfe, 0xc3])]);
    const url = await rawTarget((socket) => {
      socket.end(Buffer.concat([head(['HTTP/1.1 200 OK', Buffer.concat([Buffer.from('X-Evil: <script>alert(1)</script>\t'), Buffer.from([0xff, 0xfe])]), `Content-Length: ${body.length}`]), body]));
    });
    const answer = await postToTarget(agent(), url, {}, BODY, 2000);
    expect(answer.reply!.headers[0]).toEqual(['X-Evil', '<script>alert(1)</script>\t\u00ff\u00fe']);
    expect(answer.reply!.body.equals(body)).toBe(true);
    expect(answer.reply).toMatchObject({ bodyBytes: body.length, complete: true });
  });

  it('keeps at most 100 header lines, each value cut at 2 KiB, and says how many there were', async () => {
    const url = await rawTarget((socket) => {
      const lines = ['HTTP/1.1 200 OK', `X-Long: ${'v'.repeat(5000)}`, ...Array.from({ length: 129 }, (_, i) => `X-H${i}: ${i}`), 'Content-Length: 0'];
      socket.end(head(lines));
    });
    const reply = (await postToTarget(agent(), url, {}, BODY, 2000)).reply!;
    expect(reply.headerLines).toBe(131);
    expect(reply.headers).toHaveLength(KEPT_HEADER_LINES);
    expect(reply.headers[0]).toEqual(['X-Long', 'v'.repeat(KEPT_HEADER_VALUE_BYTES)]);
    expect(reply.headers[99]).toEqual(['X-H98', '98']);
    expect(reply).toMatchObject({ bodyBytes: 0, complete: true });
    expect(reply.body.length).toBe(0);
  });

  it('keeps the first 4 KiB of a body it stops reading, as seen so far, and nothing of a target that never answered', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'x-endless': 'yes' });
      res.write(Buffer.alloc(200 * 1024, 98));
    });
    const reply = (await postToTarget(agent(), url, {}, BODY, 5000)).reply!;
    expect(reply.body.equals(Buffer.alloc(4096, 98))).toBe(true);
    expect(reply.complete).toBe(false);
    expect(reply.bodyBytes).toBeGreaterThan(64 * 1024);
    expect(reply.headers).toContainEqual(['x-endless', 'yes']);
    const down = await postToTarget(agent(), `http://127.0.0.1:${await freePort()}/hook`, {}, BODY, 2000);
    expect(down.reply).toBeNull();
  });
});
