/**
 * A delivery handed to several targets (fan-out) in a real browser, over the in-memory store: the
 * detail shows one row per target (state, tries, last answer), the hostile text of an answer as text,
 * and Retry on the dead row queues that target's job only; the list row says the jobs by state.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/store/memory-store.js';
import { receive, startConsole } from '../helpers/console-fixture.js';
import { useBrowser } from '../helpers/browser.js';

const suite = useBrowser();

const APP = 'http://127.0.0.1:3000/hooks';
const AUDIT = 'http://audit:pw-audit-55@127.0.0.1:3001/audit';
const SHOWN_AUDIT = 'http://[redacted]@127.0.0.1:3001/audit';
const HOSTILE = '<img src=x onerror="window.__pwned=1">\u202eevil';

describe('the relay jobs of a fan-out in the detail', () => {
  it('shows one row per target and retries the dead one alone', async () => {
    const store = createMemoryStore({ outbox: { to: APP, routes: [{ glob: '*', urls: [AUDIT], also: true }] } });
    const fx = await startConsole({ store, webRoot: suite.webRoot });
    suite.cleanup(() => fx.close());
    await receive(store, fx.hub, { id: 'evt_fan' });
    const seq = (await store.getDelivery('evt_fan'))!.seq;
    await store.recordRelay({ deliverySeq: seq, startedAt: 1, finishedAt: 2, status: 204, error: null, replay: false, target: APP, try: 1, next: { state: 'done' } });
    await store.recordRelay({ deliverySeq: seq, startedAt: 3, finishedAt: 4, status: 500, error: HOSTILE, replay: false, target: SHOWN_AUDIT, jobTarget: AUDIT, try: 1, next: { state: 'dead' } });

    const { page, errors } = await suite.open(`${fx.base}/#/d/evt_fan`);
    const rows = page.locator('[data-testid=relay-job]');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-state')).toBe('done');
    expect(await rows.nth(0).textContent()).toBe(`${APP}handed on1 try204—`);
    expect(await rows.nth(0).locator('[data-testid=relay-retry]').count()).toBe(0);
    expect(await rows.nth(1).getAttribute('data-state')).toBe('dead');
    // The answer's hostile text is text: its markup shown, its bidi override made visible.
    expect(await rows.nth(1).textContent()).toContain('500 — <img src=x onerror="window.__pwned=1">\\u202Eevil');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('[data-testid=relay-dead]').textContent()).toContain('The relay gave up on 1 of its 2 targets');
    expect(await page.locator('tbody tr.row[data-key="d:evt_fan"] [data-testid=row-relay-jobs]').textContent()).toBe('1 dead, 1 done (2 targets)');
    expect(await page.content()).not.toContain('pw-audit-55');

    await rows.nth(1).locator('[data-testid=relay-retry]').click();
    // The detail reads the jobs again: the audit target's job is queued, the app's stays done.
    await page.locator('[data-testid=relay-job][data-state=pending]').waitFor();
    await page.locator('[data-testid=relay-dead]').waitFor({ state: 'detached' });
    expect((await store.relayHistory('evt_fan')).jobs.map((j) => [j.target, j.state])).toEqual([[APP, 'done'], [AUDIT, 'pending']]);
    expect(errors).toEqual([]);
  }, 60_000);
});
