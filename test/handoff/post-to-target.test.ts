/** One POST to the app through undici's dispatch: answers, the hard timeout, and what is discarded. */
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { postToTarget } from '../../src/handoff/post-to-target.js';
import { freePort } from '../helpers/target-server.js';

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

describe('postToTarget', () => {
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
