/**
 * A dead relay job in a real browser (issue 36, item 10): a real `listen` forwarding to a target
 * that fails, with --forward-max-tries 1, and its console as the composition root starts it. The
 * detail says the job is dead and offers Retry (the job goes back in the queue, as `hookrelay
 * events retry` puts it) and Replay (sent again, marked as a replay; the job stays dead).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app/build-app.js';
import { startConsole } from '../../../src/app/start-console.js';
import { testListenConfig } from '../../helpers/listen-config.js';
import { signedRequest, TEST_SECRET } from '../../helpers/signed-delivery.js';
import { useBrowser } from '../helpers/browser.js';

const suite = useBrowser();

/** The app's target: answers 503 until `healthy`, then 204; counts what it was sent. */
async function target(): Promise<{ url: string; healthy: boolean; received: number }> {
  const state = { url: '', healthy: false, received: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.received += 1;
      response.writeHead(state.healthy ? 204 : 503).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  suite.cleanup(() => new Promise((resolve) => server.close(resolve)));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return state;
}

describe('a dead relay job in the detail', () => {
  it('says the job is dead, replays it (the job stays dead) and retries it (the relay hands it on)', async () => {
    const to = await target();
    const dir = suite.folder();
    const app = await buildApp(
      testListenConfig(join(dir, 'hookrelay.db'), {
        forward: { to: to.url, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 1 },
      }),
    );
    suite.cleanup(() => app.close());
    const console_ = await startConsole({
      settings: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null },
      store: app.store,
      hub: app.hub,
      faults: app.faults,
      receiverUrl: () => app.receiverUrl,
      path: app.config.path,
      secrets: app.config.secrets,
      skipVerify: false,
      toleranceSeconds: app.config.toleranceSeconds,
      forward: app.config.forward ?? null,
      replay: (id, url) => app.replay(id, url),
      forget: () => undefined,
      clock: Date.now,
      webRoot: suite.webRoot,
    });
    suite.cleanup(() => console_.server.close());
    suite.cleanup(() => console_.metrics.close());

    // One delivery; its only relay try fails, so its job is dead.
    const dead = new Promise<void>((resolve) => {
      const off = app.hub.on('relay', (event) => {
        if (!event.ok && !event.replay) {
          off();
          resolve();
        }
      });
    });
    const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const answer = await fetch(app.receiverUrl, { method: 'POST', headers: sent.headers, body: new Uint8Array(sent.body) });
    expect(answer.status).toBe(200);
    await dead;
    expect((await app.store.relayHistory(sent.id)).jobs.map((j) => j.state)).toEqual(['dead']);

    const { page, errors } = await suite.open(`${console_.url.replace('//localhost:', '//127.0.0.1:')}#/d/${sent.id}`);

    const notice = page.locator('[data-testid=relay-dead]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('The relay gave up after 1 try');

    // Replay: sent again, marked as a replay; the job is still dead.
    to.healthy = true;
    await notice.locator('[data-testid=relay-replay]').click();
    await notice.locator('[data-testid=relay-action-result]', { hasText: 'replayed' }).waitFor();
    await page.locator('[data-testid=relay-try]', { hasText: 'replay' }).waitFor();
    // The detail was redrawn with the replay's try: the notice, and what Replay answered, stay.
    expect(await notice.locator('[data-testid=relay-action-result]').textContent()).toContain('replayed');
    expect((await app.store.relayHistory(sent.id)).jobs.map((j) => j.state)).toEqual(['dead']);

    // The job's row: its target, state, tries and last answer; Retry queues it again and the relay hands it on.
    const row = page.locator('[data-testid=relay-job]');
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toMatch(new RegExp(`${to.url.replace(/[.]/g, '\\.')}dead1 try503`));
    await row.locator('[data-testid=relay-retry]').click();
    await notice.waitFor({ state: 'detached' });
    await page.locator('[data-testid=relay-try]', { hasNotText: 'replay' }).filter({ hasText: 'delivered 204' }).waitFor();
    expect((await app.store.relayHistory(sent.id)).jobs.map((j) => j.state)).toEqual(['done']);
    expect(to.received).toBe(3);
    expect(errors).toEqual([]);
  }, 60_000);

  it('shows one row per target of a fan-out, and Retry on the dead one queues that target only', async () => {
    const app_ = await target();
    const audit = await target();
    app_.healthy = true;
    const dir = suite.folder();
    const app = await buildApp(
      testListenConfig(join(dir, 'hookrelay.db'), {
        forward: { to: app_.url, routes: [{ glob: '*', urls: [audit.url], also: true }], secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 1 },
      }),
    );
    suite.cleanup(() => app.close());
    const console_ = await startConsole({
      settings: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null },
      store: app.store,
      hub: app.hub,
      faults: app.faults,
      receiverUrl: () => app.receiverUrl,
      path: app.config.path,
      secrets: app.config.secrets,
      skipVerify: false,
      toleranceSeconds: app.config.toleranceSeconds,
      forward: app.config.forward ?? null,
      replay: (id, url) => app.replay(id, url),
      forget: () => undefined,
      clock: Date.now,
      webRoot: suite.webRoot,
    });
    suite.cleanup(() => console_.server.close());
    suite.cleanup(() => console_.metrics.close());

    // The app's target takes it; the audit target's only try fails, so its job (and only its) is dead.
    const settled = new Promise<void>((resolve) => {
      let seen = 0;
      const off = app.hub.on('relay', (event) => {
        if (!event.replay && (seen += 1) === 2) {
          off();
          resolve();
        }
      });
    });
    const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
    expect((await fetch(app.receiverUrl, { method: 'POST', headers: sent.headers, body: new Uint8Array(sent.body) })).status).toBe(200);
    await settled;
    expect((await app.store.relayHistory(sent.id)).jobs.map((j) => [j.target, j.state])).toEqual([[app_.url, 'done'], [audit.url, 'dead']]);

    const { page, errors } = await suite.open(`${console_.url.replace('//localhost:', '//127.0.0.1:')}#/d/${sent.id}`);
    const notice = page.locator('[data-testid=relay-dead]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('The relay gave up on 1 of its 2 targets');
    const rows = page.locator('[data-testid=relay-job]');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-state')).toBe('done');
    expect(await rows.nth(0).locator('[data-testid=relay-retry]').count()).toBe(0);
    expect(await rows.nth(1).getAttribute('data-state')).toBe('dead');
    expect(await rows.nth(1).textContent()).toContain(audit.url);

    // The list's row says the fan-out's jobs by state.
    expect(await page.locator('[data-testid=row-relay-jobs]').textContent()).toBe('1 dead, 1 done (2 targets)');

    audit.healthy = true;
    await rows.nth(1).locator('[data-testid=relay-retry]').click();
    await notice.waitFor({ state: 'detached' });
    await page.locator('[data-testid=relay-job][data-state=done]').nth(1).waitFor();
    expect((await app.store.relayHistory(sent.id)).jobs.map((j) => j.state)).toEqual(['done', 'done']);
    // The app's target was handed it once: only the audit target's job was queued again.
    expect(app_.received).toBe(1);
    expect(audit.received).toBe(2);
    expect(errors).toEqual([]);
  }, 60_000);
});
