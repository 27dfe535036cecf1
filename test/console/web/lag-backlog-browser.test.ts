/**
 * Lag and backlog in the console's header, in a real browser (issue 39, item 3): per relay target the
 * jobs owed and the oldest's age, retrying and dead, read from the console's own /metrics; each bridge
 * subscriber behind with the age of its oldest unacknowledged delivery. A hostile target is text, and
 * the line follows the backlog when a relay try is announced.
 */
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createConsoleServer } from '../../../src/console/console-server.js';
import { createMetrics, type BridgeSubscriberSample } from '../../../src/metrics/metrics.js';
import { createEventHub } from '../../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../../src/store/memory-store.js';
import type { RelayBacklog } from '../../../src/store/store.js';
import { attemptFor, makeDelivery } from '../../helpers/fixtures.js';
import { cleanStatus } from '../helpers/console-fixture.js';
import { useBrowser } from '../helpers/browser.js';

const APP = 'http://127.0.0.1:3000/hooks';
const HOSTILE = `evil<img src=x onerror=alert(1)>\u202Egnp.exe`;
const T0 = 1_763_719_200_000;
const MIN = 60_000;

const suite = useBrowser();

/** The page reads /metrics where the status says the listener serves it (features.metrics). Until
 * the console server sends that flag itself, this test adds it to the status it answers. */
async function metricsServed(page: Page): Promise<void> {
  await page.route('**/api/status', async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    json.data.features.metrics ??= true;
    await route.fulfill({ response, json });
  });
}

describe('the lag and backlog line', () => {
  it('shows owed jobs and the oldest age per target, subscriber lag in seconds, hostile text as text, and follows a relay try', async () => {
    const hub = createEventHub();
    const store = createMemoryStore({ outbox: { to: APP, routes: [] } });
    const seqs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const d = makeDelivery({ receivedAt: T0 + i * MIN });
      seqs.push((await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }))).deliverySeq);
    }
    // The first try of the first failed: retrying.
    await store.recordRelay({ deliverySeq: seqs[0]!, startedAt: T0, finishedAt: T0, status: 503, error: null, replay: false, target: APP, try: 1, next: { state: 'pending', nextAt: T0 + MIN } });
    let hostile: RelayBacklog[] = [{ target: HOSTILE, pending: 0, held: 1, dead: 2, oldestOwedAt: T0 - 60 * MIN, retrying: 0 }];
    const lagReads = {
      relayBacklog: async () => [...(await store.relayBacklog()), ...hostile],
      deliveriesAfter: store.deliveriesAfter.bind(store),
    };
    const subscribers: BridgeSubscriberSample[] = [
      { subscriber: 'laptop', connected: true, ackedSeq: seqs[0]!, lag: 2 },
      { subscriber: 'ci', connected: false, ackedSeq: seqs[2]!, lag: 0 },
    ];
    const now = T0 + 10 * MIN;
    const metrics = createMetrics({ hub, processMetrics: false, lagReads, now: () => now });
    metrics.setBridgeSubscribers(async () => subscribers);
    suite.cleanup(() => metrics.close());
    const app: FastifyInstance = await createConsoleServer({
      store, hub, metrics, webRoot: suite.webRoot, status: cleanStatus, listenHost: '127.0.0.1', listenPort: 0, allowedHosts: [], token: null,
      bridge: () => ({ side: 'public', subscribers }),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    suite.cleanup(() => app.close());
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');

    const { page, errors, dialogs } = await suite.open(`http://127.0.0.1:${address.port}/`, { beforeGoto: metricsServed });
    const line = page.getByTestId('backlog');
    await line.getByTestId('backlog-target').first().waitFor();
    const text = await line.innerText();
    // The app: 3 owed, the oldest arrived at T0 (10 minutes before now), one retrying. Then the hostile one: 1 held, oldest 70 min.
    expect(text).toMatch(/^relay: 4 owed, 2 dead — http:\/\/127\.0\.0\.1:3000\/hooks 3 owed, oldest 10m 00s, 1 retrying; evil<img src=x onerror=alert\(1\)>\\u202Egnp\.exe 1 owed, oldest 1h 10m, 1 held, 2 dead$/);
    expect(await line.getAttribute('data-state')).toBe('behind');
    expect(await page.locator('header img').count()).toBe(0);
    // The subscriber behind: 2 deliveries, the oldest unacknowledged (seq 2) arrived 9 minutes ago.
    const laptop = page.getByTestId('bridge-subscriber').first();
    await laptop.getByTestId('bridge-lag-seconds').waitFor();
    expect(await laptop.innerText()).toBe('laptop live, 2 behind (oldest 9m 00s)');
    expect(await page.getByTestId('bridge-subscriber').nth(1).innerText()).toBe('ci offline, 0 behind');

    // Everything handed on, announced: the line reads again and says so.
    hostile = [];
    for (const seq of seqs) await store.recordRelay({ deliverySeq: seq, startedAt: now, finishedAt: now, status: 204, error: null, replay: false, target: APP, try: 2, next: { state: 'done' } });
    hub.emit('relay', { deliveryId: 'x', target: 'http://127.0.0.1:3000/hooks', status: 204, ok: true, latencyMs: 3, replay: false });
    await page.locator('[data-testid=backlog][data-state=ok]').waitFor();
    expect(await line.innerText()).toBe('relay: nothing owed');
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  it('is not shown where the status does not say /metrics is served', async () => {
    const hub = createEventHub();
    const app = await createConsoleServer({
      store: createMemoryStore(), hub, webRoot: suite.webRoot, status: cleanStatus, listenHost: '127.0.0.1', listenPort: 0, allowedHosts: [], token: null,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    suite.cleanup(() => app.close());
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const asked: string[] = [];
    const { page, errors } = await suite.open(`http://127.0.0.1:${address.port}/`, {
      beforeGoto: async (p) => void p.on('request', (request) => asked.push(new URL(request.url()).pathname)),
    });
    await page.locator('[data-testid=feed-state][data-state=live]').waitFor();
    expect(await page.getByTestId('backlog').isHidden()).toBe(true);
    expect(asked).not.toContain('/metrics');
    expect(errors).toEqual([]);
  }, 30_000);
});
