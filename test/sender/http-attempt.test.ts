import type { LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpTransport, type Transport } from '../../src/sender/http-attempt.js';
import { closedPort, inTurn, redirectChain, startTestServer, type Answer, type TestServer } from './helpers/test-server.js';

const BODY = Buffer.from('{"id":"d-1","type":"trustcenter.access_requested"}');
const HEADERS = { 'content-type': 'application/json', 'x-service-delivery': 'd-1', 'x-service-signature': 't=1,v1=ab' };

let open: Array<TestServer | Transport> = [];
afterEach(async () => {
  await Promise.all(open.map((o) => o.close()));
  open = [];
});

async function setup(answer: (a: import('./helpers/test-server.js').Arrival) => Answer, options: Parameters<typeof createHttpTransport>[0] = {}) {
  const server = await startTestServer(answer);
  const transport = createHttpTransport({ timeoutMs: 300, ...options });
  open.push(server, transport);
  return { server, transport };
}

describe('one attempt over real sockets (spec 6.4)', () => {
  it('POSTs the body and headers and reports the status', async () => {
    const { server, transport } = await setup(() => ({ status: 202 }));
    const result = await transport.send({ url: server.url(), headers: HEADERS, body: BODY });
    expect(result.observation).toEqual({ kind: 'response', status: 202, retryAfter: null });
    expect(server.arrivals[0]).toMatchObject({ method: 'POST', path: '/webhooks', body: BODY });
    expect(server.arrivals[0]!.headers['x-service-delivery']).toBe('d-1');
  });

  it('passes Retry-After on', async () => {
    const { server, transport } = await setup(() => ({ status: 429, headers: { 'retry-after': '17' } }));
    expect((await transport.send({ url: server.url(), headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'response', status: 429, retryAfter: '17' });
  });

  it("reads a hookrelay receiver's refusal code from x-hookrelay-error, and ignores a value that is not a plain code", async () => {
    const { server, transport } = await setup((a) => ({ status: 400, headers: { 'x-hookrelay-error': a.headers['x-case'] === 'hostile' ? 'SIG MISMATCH<b>' : 'SIGNATURE_MISMATCH' } }));
    const named = await transport.send({ url: server.url(), headers: HEADERS, body: BODY });
    expect(named).toMatchObject({ observation: { kind: 'response', status: 400 }, receiverCode: 'SIGNATURE_MISMATCH' });
    const hostile = await transport.send({ url: server.url(), headers: { ...HEADERS, 'x-case': 'hostile' }, body: BODY });
    expect(hostile.observation).toMatchObject({ kind: 'response', status: 400 });
    expect('receiverCode' in hostile).toBe(false);
    // Only a refusal names a code: a 2xx carrying the header is a delivery.
    const delivered = await setup(() => ({ status: 200, headers: { 'x-hookrelay-error': 'SIGNATURE_MISMATCH' } }));
    expect('receiverCode' in (await delivered.transport.send({ url: delivered.server.url(), headers: HEADERS, body: BODY }))).toBe(false);
    const other = await setup(() => ({ status: 400 }));
    const plain = await other.transport.send({ url: other.server.url(), headers: HEADERS, body: BODY });
    expect('receiverCode' in plain).toBe(false);
  });

  it('never reads the response body: a body that never ends still gives a prompt answer', async () => {
    const { server, transport } = await setup(() => ({ status: 200, endlessBody: true }), { timeoutMs: 5000 });
    const result = await transport.send({ url: server.url(), headers: HEADERS, body: BODY });
    expect(result.observation).toEqual({ kind: 'response', status: 200, retryAfter: null });
  });

  it('gives up after the attempt timeout: timeout', async () => {
    const { server, transport } = await setup(() => ({ hang: true }));
    expect((await transport.send({ url: server.url(), headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'timeout' });
  });

  it('reports a reset connection as network', async () => {
    const { server, transport } = await setup(() => ({ reset: true }));
    expect((await transport.send({ url: server.url(), headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'network', cause: 'reset' });
  });

  it('reports a refused connection as network', async () => {
    const transport = createHttpTransport({ timeoutMs: 2000 });
    open.push(transport);
    const port = await closedPort();
    expect((await transport.send({ url: `http://127.0.0.1:${port}/`, headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'network', cause: 'refused' });
  });

  it('reports a DNS failure as network', async () => {
    const failing: LookupFunction = (_host, _options, callback) => callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), '', 4);
    const transport = createHttpTransport({ timeoutMs: 2000, lookup: failing });
    open.push(transport);
    expect((await transport.send({ url: 'http://receiver.invalid/hook', headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'network', cause: 'dns' });
  });
});

describe('redirects (spec 6.4, section 8: at most 3 hops)', () => {
  it.each([
    [307, 1],
    [308, 2],
    [307, 3],
    [301, 3],
    [302, 1],
    [303, 2],
  ])('follows %i for %i hop(s), re-sending the same POST', async (status, hops) => {
    const { server, transport } = await setup(redirectChain(status));
    const result = await transport.send({ url: server.url(`/hops/${hops}`), headers: HEADERS, body: BODY });
    expect(result.observation).toEqual({ kind: 'response', status: 200, retryAfter: null });
    expect(result.urls).toHaveLength(hops + 1);
    expect(server.arrivals.map((a) => a.path)).toEqual(Array.from({ length: hops + 1 }, (_, i) => `/hops/${hops - i}`));
    for (const a of server.arrivals) {
      expect(a.method).toBe('POST');
      expect(a.body.equals(BODY)).toBe(true);
      expect(a.headers['x-service-signature']).toBe(HEADERS['x-service-signature']);
    }
  });

  it('fails on the 4th hop: redirect', async () => {
    const { server, transport } = await setup(redirectChain(307));
    const result = await transport.send({ url: server.url('/hops/4'), headers: HEADERS, body: BODY });
    expect(result.observation).toEqual({ kind: 'redirect', cause: 'too_many_hops', status: 307 });
    expect(server.arrivals).toHaveLength(4);
  });

  it.each([
    ['no Location', {}, 'missing_location'],
    ['an empty Location', { location: ' ' }, 'missing_location'],
    ['a non-HTTP Location', { location: 'mailto:ops@example.com' }, 'unusable_location'],
    ['an unparseable Location', { location: 'http://[::1' }, 'unusable_location'],
  ])('fails a redirect with %s: redirect', async (_name, headers, cause) => {
    const { server, transport } = await setup(() => ({ status: 302, headers }));
    expect((await transport.send({ url: server.url(), headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'redirect', cause, status: 302 });
    expect(server.arrivals).toHaveLength(1);
  });

  it('counts the timeout over all hops of one attempt', async () => {
    const { server, transport } = await setup(inTurn({ status: 307, headers: { location: '/next' } }, { hang: true }));
    expect((await transport.send({ url: server.url(), headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'timeout' });
    expect(server.arrivals.map((a) => a.path)).toEqual(['/webhooks', '/next']);
  });
});

describe('--block-private (the service SSRF rule)', () => {
  it('blocks a private literal address without connecting', async () => {
    const { server, transport } = await setup(() => ({ status: 200 }), { blockPrivate: true });
    expect((await transport.send({ url: server.url(), headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'blocked' });
    expect(server.arrivals).toHaveLength(0);
  });

  it('blocks a name that resolves to a private address, and allows it when off', async () => {
    const server = await startTestServer(() => ({ status: 200 }));
    open.push(server);
    const port = new URL(server.origin).port;
    const toLoopback: LookupFunction = (_host, options, callback) =>
      options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
    const blocking = createHttpTransport({ timeoutMs: 2000, blockPrivate: true, lookup: toLoopback });
    const allowing = createHttpTransport({ timeoutMs: 2000, lookup: toLoopback });
    open.push(blocking, allowing);
    const url = `http://receiver.example.test:${port}/webhooks`;
    expect((await blocking.send({ url, headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'blocked' });
    expect(server.arrivals).toHaveLength(0);
    expect((await allowing.send({ url, headers: HEADERS, body: BODY })).observation).toEqual({ kind: 'response', status: 200, retryAfter: null });
    expect(server.arrivals).toHaveLength(1);
  });
});
