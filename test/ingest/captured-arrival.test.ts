/** A captured request becomes the Arrival the HTTP source builds: headers as Node presents them, a body over the limit unread. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedArrival } from '../../src/ingest/captured-arrival.js';

let server: ReturnType<typeof createServer>;
let port: number;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends the header lines as written and resolves with the headers Node's server read. */
function nodeHeaders(lines: Array<[string, string]>): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const before = seen.length;
    const socket = connect(port, '127.0.0.1', () => {
      socket.end(`POST / HTTP/1.1\r\nhost: x\r\n${lines.map(([n, v]) => `${n}: ${v}\r\n`).join('')}content-length: 0\r\nconnection: close\r\n\r\n`);
    });
    socket.on('error', reject);
    socket.resume();
    socket.on('close', () => resolve(seen[before]!));
  });
}

describe('capturedArrival', () => {
  it.each<[string, Array<[string, string]>]>([
    ['a repeated x-service-delivery is joined with ", "', [['x-service-delivery', 'a'], ['x-service-delivery', 'b']]],
    ['names in any case are lower-cased and joined', [['X-Service-Signature', 't=1,v1=aa'], ['x-service-SIGNATURE', 't=2,v1=bb']]],
    ['a repeated content-type or user-agent keeps the first', [['content-type', 'application/json'], ['Content-Type', 'text/plain'], ['user-agent', 'one'], ['user-agent', 'two']]],
    ['set-cookie is a list, cookie joined with "; "', [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['cookie', 'c=3'], ['cookie', 'd=4']]],
    ['empty values are kept', [['x-service-event', ''], ['x-service-delivery', '']]],
  ])('%s, as Node reads them', async (_name, lines) => {
    const fromNode = await nodeHeaders(lines);
    const all: Array<[string, string]> = [['host', 'x'], ...lines, ['content-length', '0'], ['connection', 'close']];
    const arrival = capturedArrival({ headers: all, body: Buffer.alloc(0), receivedAt: 0, bodyLimitBytes: 1024 });
    expect(arrival.headers).toEqual(fromNode);
    expect(arrival.rawHeaders).toEqual(all.flat());
  });

  it('leaves a body over the limit unread, as fastify does, and keeps one at the limit', () => {
    const over = capturedArrival({ headers: [], body: Buffer.alloc(1025), receivedAt: 5, bodyLimitBytes: 1024 });
    expect(over).toMatchObject({ unread: { problem: 'too_large', declaredBytes: 1025 }, receivedAt: 5 });
    expect(over.rawBody).toHaveLength(0);
    const at = capturedArrival({ headers: [], body: Buffer.alloc(1024), receivedAt: 5, bodyLimitBytes: 1024 });
    expect(at.unread).toBeUndefined();
    expect(at.rawBody).toHaveLength(1024);
  });
});
