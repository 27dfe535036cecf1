/**
 * The emulator's redirect rule at the transport (docs/emulate.md, Endpoint rules): `httpsOnly`
 * ends the attempt on a hop that is not https, and `originBoundHeaders` are not sent once a hop
 * leaves the first origin. Without a rule (`hookrelay send`) every hop gets every header.
 */
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport, type Transport } from '../../src/sender/http-attempt.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeSelfSigned } from '../tls/self-signed.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

const BODY = Buffer.from('{"id":"d-1"}');
const HEADERS = { 'content-type': 'application/json', 'x-service-delivery': 'd-1', 'x-service-signature': 't=1,v1=ab', 'X-Api-Token': 'tok_secret' };
const RULE = { originBoundHeaders: ['x-api-token'] };

let open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.map((o) => o.close()));
  open = [];
});

function transport(): Transport {
  // Loopback is allowed here: the scheme and origin logic is under test, not the address rule.
  const t = createHttpTransport({ timeoutMs: 5000, refuseAddress: () => false });
  open.push(t);
  return t;
}

async function server(answer: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const s = await startTestServer(answer);
  open.push(s);
  return s;
}

describe('custom headers stay with the first origin', () => {
  it('without a rule (hookrelay send) a 307 to another port gets every header', async () => {
    const b = await server(() => ({ status: 200 }));
    const a = await server(() => ({ status: 307, headers: { location: b.url('/moved') } }));
    const result = await transport().send({ url: a.url(), headers: HEADERS, body: BODY });
    expect(result.observation).toEqual({ kind: 'response', status: 200, retryAfter: null });
    expect(b.arrivals[0]!.headers['x-api-token']).toBe('tok_secret');
  });

  it('a 307 to another port (another origin) drops them and keeps the spec headers and the body', async () => {
    const b = await server(() => ({ status: 200 }));
    const a = await server(() => ({ status: 307, headers: { location: b.url('/moved') } }));
    const result = await transport().send({ url: a.url(), headers: HEADERS, body: BODY, redirects: RULE });
    expect(result.observation).toEqual({ kind: 'response', status: 200, retryAfter: null });
    expect(a.arrivals[0]!.headers['x-api-token']).toBe('tok_secret');
    const moved = b.arrivals[0]!;
    expect(moved.headers['x-api-token']).toBeUndefined();
    expect(moved.headers).toMatchObject({ 'x-service-delivery': 'd-1', 'x-service-signature': 't=1,v1=ab' });
    expect(moved.body).toEqual(BODY);
  });

  it('a hop on the same origin keeps them; once dropped they stay dropped, back on the first origin too', async () => {
    let b: TestServer;
    const a = await server((arrival) => {
      if (arrival.path === '/webhooks') return { status: 307, headers: { location: '/same' } };
      if (arrival.path === '/same') return { status: 307, headers: { location: b.url('/away') } };
      return { status: 200 };
    });
    b = await server(() => ({ status: 307, headers: { location: a.url('/back') } }));
    const result = await transport().send({ url: a.url(), headers: HEADERS, body: BODY, redirects: RULE });
    expect(result.observation).toEqual({ kind: 'response', status: 200, retryAfter: null });
    expect(a.arrivals.map((x) => [x.path, x.headers['x-api-token']])).toEqual([
      ['/webhooks', 'tok_secret'],
      ['/same', 'tok_secret'],
      ['/back', undefined],
    ]);
    expect(b.arrivals[0]!.headers['x-api-token']).toBeUndefined();
  });
});

describe('httpsOnly: every hop is https (--ssrf strict)', () => {
  const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  let https: { url: string; location: string; close(): Promise<void> };
  let dir: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    // The transport takes no CA; this fork process trusts the self-signed receiver instead.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    dir = tempDir('hookrelay-redirect-tls-');
    const pair = makeSelfSigned(dir.dir);
    const state = { location: '' };
    const srv = createHttpsServer({ cert: pair.cert, key: pair.key }, (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(307, { location: state.location });
        res.end();
      });
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    https = {
      url: `https://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`,
      set location(value: string) {
        state.location = value;
      },
      get location() {
        return state.location;
      },
      close: () => new Promise<void>((resolve) => (srv.closeAllConnections(), srv.close(() => resolve()))),
    };
  });
  afterAll(async () => {
    await https?.close();
    dir?.remove();
    if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
  });

  it('an https → http redirect ends the attempt as redirect (unusable location); nothing reaches the http server', async () => {
    const plain = await server(() => ({ status: 200 }));
    https.location = plain.url('/downgraded');
    const result = await transport().send({ url: https.url, headers: HEADERS, body: BODY, redirects: { ...RULE, httpsOnly: true } });
    expect(result.observation).toEqual({ kind: 'redirect', cause: 'unusable_location', status: 307 });
    expect(result.urls).toEqual([https.url]);
    expect(plain.arrivals).toEqual([]);
  });

  it('without httpsOnly the same redirect is followed, the custom headers dropped (another origin)', async () => {
    const plain = await server(() => ({ status: 200 }));
    https.location = plain.url('/downgraded');
    const result = await transport().send({ url: https.url, headers: HEADERS, body: BODY, redirects: RULE });
    expect(result.observation).toEqual({ kind: 'response', status: 200, retryAfter: null });
    expect(plain.arrivals[0]!.headers['x-api-token']).toBeUndefined();
  });

  it('https → https hops are followed (here to the hop limit)', async () => {
    https.location = `${https.url}?again`;
    const result = await transport().send({ url: https.url, headers: HEADERS, body: BODY, redirects: { httpsOnly: true } });
    expect(result.observation).toEqual({ kind: 'redirect', cause: 'too_many_hops', status: 307 });
    expect(result.urls).toHaveLength(4);
    expect(result.urls.every((u) => u.startsWith('https:'))).toBe(true);
  });
});
