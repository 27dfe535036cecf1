/** The seams the emulator added to the sender's transport: an address rule, and a connection per attempt. */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { addressRule } from '../../src/emulator/endpoint-rule.js';
import { createHttpTransport, type Transport } from '../../src/sender/http-attempt.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function server() {
  let connections = 0;
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  s.on('connection', () => connections++);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  closers.push(() => new Promise((r) => s.close(r)));
  return { port: (s.address() as AddressInfo).port, connections: () => connections };
}

function transport(options: Parameters<typeof createHttpTransport>[0]): Transport {
  const t = createHttpTransport(options);
  closers.push(() => t.close());
  return t;
}

const send = (t: Transport, url: string) => t.send({ url, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') });

it("refuseAddress: loopback mode lets 127.0.0.1 through and blocks what a name resolves to otherwise", async () => {
  const { port } = await server();
  const toMetadata: LookupFunction = ((_h: string, o: { all?: boolean }, cb: (e: null, a: unknown, f?: number) => void) =>
    o.all ? cb(null, [{ address: '169.254.169.254', family: 4 }]) : cb(null, '169.254.169.254', 4)) as unknown as LookupFunction;
  const loopback = transport({ refuseAddress: addressRule('loopback'), lookup: toMetadata });
  expect((await send(loopback, `http://127.0.0.1:${port}/x`)).observation).toMatchObject({ kind: 'response', status: 200 });
  expect((await send(loopback, `http://metadata.example.test:${port}/x`)).observation).toEqual({ kind: 'blocked' });
  const strict = transport({ refuseAddress: addressRule('strict') });
  expect((await send(strict, `http://127.0.0.1:${port}/x`)).observation).toEqual({ kind: 'blocked' });
});

// The pooled default reuses a connection now and then (the unread body is destroyed, which
// sometimes costs the socket), so only the per-attempt side is exact.
it('keepAlive false opens a connection per attempt, so each attempt resolves the name again', async () => {
  const fresh = await server();
  const perAttempt = transport({ keepAlive: false });
  for (let i = 0; i < 10; i++) await send(perAttempt, `http://127.0.0.1:${fresh.port}/x`);
  expect(fresh.connections()).toBe(10);
});
