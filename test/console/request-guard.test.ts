/**
 * Security of the console listener over real sockets (issue 6, "Security"): Host allow-list on
 * pages, API and WebSocket upgrades; exact Origin on upgrades and state-changing requests; JSON
 * only; no CORS; the token beyond loopback; security headers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/console/request-guard.js';
import { startConsole, type ConsoleFixture } from './helpers/console-fixture.js';
import { createFakeFaults } from './helpers/fake-faults.js';
import { closed, httpRequest, tryUpgrade } from './helpers/sockets.js';
import { ensureWebBuild } from './helpers/web-build.js';

const TOKEN = 'tok_9f8e7d6c5b4a39281706';

let fx: ConsoleFixture;
afterEach(async () => {
  await fx?.close();
});

describe('Host allow-list (no DNS rebinding)', () => {
  it.each(['/', '/api/status', '/api/deliveries', '/assets/anything.js'])('refuses a foreign Host on %s', async (path) => {
    fx = await startConsole({ webRoot: await ensureWebBuild() });
    for (const host of ['attacker.example', `attacker.example:${fx.port}`, `localhost.attacker.example:${fx.port}`, `localhost:${fx.port + 1}`]) {
      const res = await httpRequest(fx.port, { path, headers: { host } });
      expect(res.status, `${host} ${path}`).toBe(403);
      expect(res.body).not.toContain('<script');
    }
    const ok = await httpRequest(fx.port, { path: '/api/status', headers: { host: `localhost:${fx.port}` } });
    expect(ok.status).toBe(200);
  });

  it('refuses a foreign Host on the WebSocket upgrade', async () => {
    fx = await startConsole();
    const refused = await tryUpgrade(fx.port, { host: `attacker.example:${fx.port}`, origin: `http://attacker.example:${fx.port}` });
    expect(refused).toEqual({ opened: false, status: 403 });
  });

  it('answers the extra names of --console-allowed-host', async () => {
    fx = await startConsole({ allowedHosts: ['devbox.example'] });
    expect((await httpRequest(fx.port, { path: '/api/status', headers: { host: 'devbox.example' } })).status).toBe(200);
    const ws = await tryUpgrade(fx.port, { host: 'devbox.example', origin: 'https://devbox.example' });
    expect(ws.opened).toBe(true);
    if (ws.opened) ws.ws.close();
  });
});

describe('WebSocket Origin (no cross-site WebSocket hijacking)', () => {
  it.each([
    ['a foreign origin', 'https://attacker.example'],
    ['the null origin', 'null'],
    ['another local port', 'http://localhost:3000'],
    ['a look-alike', 'http://127.0.0.1.attacker.example'],
    ['no origin', undefined],
  ])('refuses %s', async (_name, origin) => {
    fx = await startConsole();
    expect(await tryUpgrade(fx.port, { ...(origin === undefined ? {} : { origin }) })).toEqual({ opened: false, status: 403 });
  });

  it('opens for the console page itself, choosing the hookrelay.v1 protocol', async () => {
    fx = await startConsole();
    const result = await tryUpgrade(fx.port, { origin: fx.base, protocols: ['hookrelay.v1'] });
    expect(result.opened).toBe(true);
    if (result.opened) {
      expect(result.protocol).toBe('hookrelay.v1');
      result.ws.close();
      await closed(result.ws);
    }
  });

  it('upgrades nothing but the feed path', async () => {
    fx = await startConsole();
    expect(await tryUpgrade(fx.port, { path: '/', origin: fx.base })).toEqual({ opened: false, status: 404 });
  });
});

describe('state-changing requests (no CSRF)', () => {
  const form = (fx: ConsoleFixture, type: string, body: string, extra: Record<string, string> = {}) =>
    httpRequest(fx.port, { method: 'POST', path: '/api/faults', headers: { host: fx.host, 'content-type': type, ...extra }, body });

  it.each([
    ['application/x-www-form-urlencoded', 'line=attempt%3D1+503'],
    ['text/plain', 'attempt=1 503'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="line"\r\n\r\n503\r\n--x--\r\n'],
    ['application/json', '{"line":"503"}'],
  ])('refuses a cross-site POST (%s, foreign Origin); the rules stay unchanged', async (type, body) => {
    const faults = createFakeFaults();
    fx = await startConsole({ faults });
    const res = await form(fx, type, body, { origin: 'https://attacker.example' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'FORBIDDEN' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(faults.rules).toEqual([]);
  });

  it.each([
    ['null Origin', { origin: 'null' }],
    ['no Origin, form type', {}],
    ['no Origin, cross-site fetch metadata', { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a form POST with %s', async (_name, extra) => {
    const faults = createFakeFaults();
    fx = await startConsole({ faults });
    const res = await form(fx, 'text/plain', '503', extra);
    expect(res.status).toBe(403);
    expect(faults.rules).toEqual([]);
  });

  it('refuses a cross-site DELETE and a same-site one from another port', async () => {
    const faults = createFakeFaults();
    faults.add('503');
    fx = await startConsole({ faults });
    for (const origin of ['https://attacker.example', 'http://localhost:3000']) {
      const res = await httpRequest(fx.port, { method: 'DELETE', path: '/api/faults', headers: { host: fx.host, origin } });
      expect(res.status).toBe(403);
    }
    expect(faults.rules).toHaveLength(1);
  });

  it('accepts the page (same Origin, JSON) and curl (no Origin, JSON)', async () => {
    const faults = createFakeFaults();
    fx = await startConsole({ faults });
    expect((await form(fx, 'application/json', '{"line":"503"}', { origin: fx.base, 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    expect((await form(fx, 'application/json; charset=utf-8', '{"line":"429"}')).status).toBe(201);
    expect((await httpRequest(fx.port, { method: 'DELETE', path: '/api/faults', headers: { host: fx.host } })).status).toBe(200);
    expect(faults.rules).toEqual([]);
  });

  it('sends no CORS headers, to a preflight or a simple request', async () => {
    fx = await startConsole({ faults: createFakeFaults() });
    const preflight = await httpRequest(fx.port, {
      method: 'OPTIONS',
      path: '/api/faults',
      headers: { host: fx.host, origin: 'https://attacker.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    const simple = await httpRequest(fx.port, { path: '/api/deliveries', headers: { host: fx.host, origin: 'https://attacker.example' } });
    for (const res of [preflight, simple]) {
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('token beyond loopback', () => {
  // The options say "bound to 0.0.0.0"; the socket itself stays on 127.0.0.1 for the test.
  const start = () => startConsole({ listenHost: '0.0.0.0', token: TOKEN, faults: createFakeFaults() });

  it.each([
    ['no token', {}],
    ['a wrong token', { 'x-hookrelay-token': 'tok_wrong_wrong_wrong' }],
    ['a token prefix', { 'x-hookrelay-token': TOKEN.slice(0, -1) }],
    ['a wrong bearer', { authorization: 'Bearer nope-nope-nope' }],
  ])('answers 401 to API requests with %s', async (_name, headers) => {
    fx = await start();
    for (const path of ['/api/status', '/api/deliveries', '/api/faults']) {
      const res = await httpRequest(fx.port, { path, headers: { host: fx.host, ...headers } });
      expect(res.status, path).toBe(401);
      expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
    // A token that was sent but is wrong is told so, not told to send one; the token is never echoed.
    const status = await httpRequest(fx.port, { path: '/api/status', headers: { host: fx.host, ...headers } });
    const sent = Object.keys(headers).length > 0;
    expect(JSON.parse(status.body).error).toMatch(sent ? /the token sent is not this console's/ : /needs its token \(the one given by --console-token or HOOKRELAY_CONSOLE_TOKEN, else the one generated in the console URL printed at start\): send the x-hookrelay-token header/);
    for (const value of Object.values(headers)) expect(status.body).not.toContain(value.replace(/^Bearer /, ''));
    const post = await httpRequest(fx.port, { method: 'POST', path: '/api/faults', headers: { host: fx.host, 'content-type': 'application/json', ...headers }, body: '{"line":"503"}' });
    expect(post.status).toBe(401);
    // The relay retry of the detail (issue 36, item 10) is behind the same token.
    const retry = await httpRequest(fx.port, { method: 'POST', path: '/api/deliveries/evt_1/retry', headers: { host: fx.host, 'content-type': 'application/json', ...headers }, body: '{}' });
    expect(retry.status).toBe(401);
  });

  it.each(['/%61pi/status', '/api/%73tatus', '/api//status', '/api/status/', '/api/./status', '/api/status;x', '/api/deliveries/%2e%2e/status'])(
    'cannot be dodged by spelling the path differently: %s',
    async (path) => {
      fx = await start();
      const res = await httpRequest(fx.port, { path, headers: { host: fx.host } });
      expect([401, 404]).toContain(res.status);
      expect(res.body).not.toContain('receiverUrl');
    },
  );

  it('serves the page files without the token (they hold nothing secret)', async () => {
    fx = await startConsole({ listenHost: '0.0.0.0', token: TOKEN, webRoot: await ensureWebBuild() });
    const page = await httpRequest(fx.port, { path: '/', headers: { host: fx.host } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module"');
  });

  it('answers the token as a header or a bearer', async () => {
    fx = await start();
    expect((await httpRequest(fx.port, { path: '/api/status', headers: { host: fx.host, 'x-hookrelay-token': TOKEN } })).status).toBe(200);
    expect((await httpRequest(fx.port, { path: '/api/status', headers: { host: fx.host, authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('opens the feed only with the token (subprotocol or query)', async () => {
    fx = await start();
    expect(await tryUpgrade(fx.port, { origin: fx.base, protocols: ['hookrelay.v1'] })).toEqual({ opened: false, status: 401 });
    expect(await tryUpgrade(fx.port, { origin: fx.base, protocols: ['hookrelay.v1', 'hookrelay.token.wrong-token'] })).toEqual({ opened: false, status: 401 });
    for (const attempt of [{ protocols: ['hookrelay.v1', `hookrelay.token.${TOKEN}`] }, { path: `/api/feed?token=${TOKEN}` }]) {
      const result = await tryUpgrade(fx.port, { origin: fx.base, ...attempt });
      expect(result.opened).toBe(true);
      if (result.opened) {
        // The token is never echoed back as the chosen protocol.
        expect(result.protocol).not.toContain(TOKEN);
        result.ws.close();
        await closed(result.ws);
      }
    }
  });

  it('still checks Host and Origin when the token is right', async () => {
    fx = await start();
    expect((await httpRequest(fx.port, { path: '/api/status', headers: { host: 'attacker.example', 'x-hookrelay-token': TOKEN } })).status).toBe(403);
    expect(await tryUpgrade(fx.port, { origin: 'https://attacker.example', path: `/api/feed?token=${TOKEN}` })).toEqual({ opened: false, status: 403 });
  });
});

describe('security headers', () => {
  it('sends CSP, nosniff and no-referrer on pages, API answers and refusals', async () => {
    fx = await startConsole({ webRoot: await ensureWebBuild() });
    const answers = await Promise.all([
      httpRequest(fx.port, { path: '/', headers: { host: fx.host } }),
      httpRequest(fx.port, { path: '/api/status', headers: { host: fx.host } }),
      httpRequest(fx.port, { path: '/api/nope', headers: { host: fx.host } }),
      httpRequest(fx.port, { path: '/', headers: { host: 'attacker.example' } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 403]);
    for (const res of answers) {
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'");
    // The built page has no inline script for the CSP to have to allow.
    expect(answers[0]!.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
});
