/**
 * Secrets never reach the page, the API or the feed (issue 6): only a hint. The status handed to
 * the console deliberately carries the secret in places a careless view would pass on; the test
 * looks for it raw, as hex, and as base64/base64url in everything a browser could receive.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { secretHint } from '../../src/config/data-dir.js';
import type { ConsoleStatus } from '../../src/console/console-options.js';
import { sign } from '../../src/core/signature/sign.js';
import { SECRET, cleanStatus, envelopeBody, receive, refuse, startConsole, type ConsoleFixture } from './helpers/console-fixture.js';
import { createFakeFaults } from './helpers/fake-faults.js';
import { httpRequest, tryUpgrade } from './helpers/sockets.js';
import { ensureWebBuild } from './helpers/web-build.js';
import { withRelayTries } from './helpers/relay-tries.js';

/** Every form the secret could be leaked in. */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [secret, bytes.toString('hex'), bytes.toString('hex').toUpperCase(), bytes.toString('base64'), bytes.toString('base64url'), encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
}

function expectNoSecret(label: string, text: string): void {
  for (const form of forms(SECRET)) expect(text.includes(form), `${label} contains the secret as ${form}`).toBe(false);
}

let fx: ConsoleFixture;
afterEach(async () => {
  await fx?.close();
});

describe('secrets', () => {
  it('appear nowhere in the page, the API answers or the feed', async () => {
    const leakyStatus = (): ConsoleStatus =>
      ({
        ...cleanStatus(),
        secretHints: [secretHint(SECRET)],
        forwardTo: `http://relay:${SECRET}@127.0.0.1:3000/hooks`,
        // Fields the console must not pass on even if the composition root sends them.
        secrets: [SECRET],
        forwardSecret: SECRET,
      }) as ConsoleStatus;
    const redact = (text: string) => text.split(SECRET).join(secretHint(SECRET));
    fx = await startConsole({
      webRoot: await ensureWebBuild(),
      status: leakyStatus,
      redact,
      faults: createFakeFaults(),
      replay: async () => ({ ok: false, status: null, error: `connect ECONNREFUSED http://relay:${SECRET}@127.0.0.1:3000` }),
      store: withRelayTries(() => [{ at: 1, ok: false, status: null, latencyMs: 1, replay: false, error: `auth failed for ${SECRET}`, target: `http://relay:${SECRET}@127.0.0.1:3000/hooks` }]),
    });
    const feed = await tryUpgrade(fx.port, { origin: fx.base });
    if (!feed.opened) throw new Error('feed refused');

    // Deliveries signed with the secret, a refused one, relay events and notices that mention it.
    const body = envelopeBody('evt_s1', 'trustcenter.access_requested', { accessRequestId: 'ar_1' });
    const t = 1_763_719_200;
    await receive(fx.store, fx.hub, { id: 'evt_s1', rawBody: body, rawHeaders: ['Content-Type', 'application/json', 'X-Service-Signature', sign(SECRET, body, t)] });
    await refuse(fx.store, fx.hub, { deliveryId: 'evt_s2', reason: 'signature_mismatch' });
    fx.hub.emit('relay', { deliveryId: 'evt_s1', target: 'http://127.0.0.1:3000/hooks', status: null, ok: false, latencyMs: 3, replay: false, error: `could not reach http://relay:${SECRET}@127.0.0.1:3000` });
    fx.hub.emit('notice', { level: 'info', message: `development secret: ${SECRET}` });
    await feed.feed.next((m) => m.type === 'notice');

    const get = (path: string) => httpRequest(fx.port, { path, headers: { host: fx.host } });
    const answers: Array<[string, string]> = [];
    const page = await get('/');
    answers.push(['page', page.body]);
    for (const asset of page.body.match(/\/assets\/[^"']+/g) ?? []) answers.push([asset, (await get(asset)).body]);
    expect(answers.length).toBeGreaterThanOrEqual(3);
    for (const path of ['/api/status', '/api/deliveries', '/api/deliveries/evt_s1', '/api/attempts', '/api/faults', '/api/deliveries/nope', '/api/deliveries?cursor=bad']) {
      answers.push([path, (await get(path)).body]);
    }
    const replay = await httpRequest(fx.port, { method: 'POST', path: '/api/deliveries/evt_s1/replay', headers: { host: fx.host, origin: fx.base, 'content-type': 'application/json' }, body: '{}' });
    answers.push(['replay', replay.body]);
    answers.push(['feed', feed.feed.raw.join('\n')]);
    feed.ws.close();

    // The test can see what it looks for: the hint is there, and so is what it was derived from.
    expect(answers.find(([label]) => label === '/api/status')![1]).toContain(JSON.stringify(secretHint(SECRET)));
    expect(answers.find(([label]) => label === '/api/deliveries/evt_s1')![1]).toContain('[redacted]@127.0.0.1:3000');
    for (const [label, text] of answers) expectNoSecret(label, text);
  });
});
