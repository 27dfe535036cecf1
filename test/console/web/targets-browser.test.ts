/**
 * The Targets panel in a real browser: a real `listen --forward-to … --pace …` with its console. The
 * page lists the relay's target with its pace, pauses it (the API then says paused, and a delivery
 * waits) and resumes it (the delivery goes). A target whose URL holds markup shows it as text.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../../src/app/build-app.js';
import type { ListenConfig } from '../../../src/config/listen-config.js';
import { resolvePacing } from '../../../src/core/pacing.js';
import { createSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { countingReads } from '../../helpers/counted-reads.js';
import { testListenConfig } from '../../helpers/listen-config.js';
import { signedRequest, TEST_SECRET } from '../../helpers/signed-delivery.js';
import { TEST_CONSOLE } from '../../helpers/start-app.js';
import { startTarget } from '../../helpers/target-server.js';
import { useBrowser } from '../helpers/browser.js';

const suite = useBrowser();

interface TargetEntry {
  id: string;
  target: string;
  paused: boolean;
  ratePerSecond: number | null;
}

/**
 * A real listen app relaying (async) to `to`, paced by `paces`, its console serving the built page; its
 * store's outbox reads counted (`nextReads`), so "nothing was sent" is checked after the relay looked.
 */
async function relayingApp(to: string, paces: string[]): Promise<AppHandle & { nextReads: (n: number) => Promise<void> }> {
  const problems: string[] = [];
  const pacing = resolvePacing(paces, '--pace', [to], problems, []);
  expect(problems).toEqual([]);
  const forward: ListenConfig['forward'] = { to, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 5, pacing };
  const db = join(suite.folder(), 'app.db');
  const sqlite = await createSqliteStore(db, { outbox: { to, routes: [] } });
  suite.cleanup(() => sqlite.close());
  const counted = countingReads(sqlite);
  const app = await buildApp(testListenConfig(db, { console: TEST_CONSOLE, forward }), { webRoot: suite.webRoot, store: counted.store });
  suite.cleanup(() => app.close());
  return Object.assign(app, { nextReads: counted.nextReads });
}

async function targetsOf(app: AppHandle): Promise<TargetEntry[]> {
  const res = await fetch(new URL('/api/targets', app.consoleUrl!));
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: TargetEntry[] }).data;
}

describe('the Targets panel', () => {
  it('lists the target with its pace, pauses it (the API says so, a delivery waits) and resumes it', async () => {
    const target = await startTarget();
    suite.cleanup(() => target.close());
    const to = new URL(target.url).href;
    const app = await relayingApp(to, [`${to} rate=50/s burst=3 concurrency=4`]);

    const { page, errors, dialogs } = await suite.open(app.consoleUrl!.replace('//localhost:', '//127.0.0.1:'));
    const panel = page.getByTestId('targets');
    const row = panel.getByTestId('target');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await panel.locator('h3').textContent()).toBe('Targets');
    expect(await row.getByTestId('target-url').textContent()).toBe(to);
    expect(await row.getByTestId('target-pace').textContent()).toBe('rate 50/s, burst 3, concurrency 4');
    expect(await row.getByTestId('target-counts').textContent()).toBe('0 in flight, 0 waiting');
    expect(await row.getByTestId('target-state').textContent()).toBe('running');
    expect(await row.getAttribute('data-state')).toBe('running');

    const toggle = row.getByTestId('target-toggle');
    expect(await toggle.textContent()).toBe('Pause');
    await toggle.click();
    await expect.poll(() => row.getByTestId('target-state').textContent()).toBe('PAUSED');
    expect(await row.getAttribute('data-state')).toBe('paused');
    expect(await toggle.textContent()).toBe('Resume');
    expect(await panel.getByTestId('targets-summary').textContent()).toBe('1 target, 1 paused');
    expect(await targetsOf(app)).toMatchObject([{ id: '1', paused: true, ratePerSecond: 50 }]);

    // Paused: a delivery is received and stored, not handed on.
    const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
    expect((await fetch(app.receiverUrl, { method: 'POST', headers: sent.headers, body: new Uint8Array(sent.body) })).status).toBe(200);
    // Two reads of the outbox after it was stored: each would have started it.
    await app.nextReads(2);
    expect(target.received).toHaveLength(0);
    // A refresh of the panel keeps it paused.
    await page.waitForResponse((r) => new URL(r.url()).pathname === '/api/targets' && r.request().method() === 'GET');
    expect(await row.getByTestId('target-state').textContent()).toBe('PAUSED');

    await toggle.click();
    await expect.poll(() => row.getByTestId('target-state').textContent()).toBe('running');
    expect(await toggle.textContent()).toBe('Pause');
    expect(await targetsOf(app)).toMatchObject([{ id: '1', paused: false }]);
    await target.waitFor(1);
    expect(errors).toEqual([]);
    expect(dialogs).toEqual([]);
  }, 60_000);

  it('shows a target URL holding markup as text, and a target without a rate as "no rate"', async () => {
    const target = await startTarget();
    suite.cleanup(() => target.close());
    // Never fetched by the test (nothing is delivered): a URL as an operator might write it, markup in its path.
    const hostile = `${new URL(target.url).origin}/hooks/<img src=x onerror=alert(1)>/\u202Egnp.exe`;
    const app = await relayingApp(hostile, ['concurrency=2']);
    const [listed] = await targetsOf(app);
    expect(listed!.target).toContain('<img src=x onerror=alert(1)>');

    const { page, errors, dialogs } = await suite.open(app.consoleUrl!.replace('//localhost:', '//127.0.0.1:'));
    const row = page.getByTestId('target');
    await row.first().waitFor();
    const url = row.getByTestId('target-url');
    // The markup is text; the bidi override is shown as an escape.
    expect(await url.innerText()).toBe(listed!.target.replace('\u202E', '\\u202E'));
    expect(await url.locator('.esc').count()).toBe(1);
    expect(await page.locator('[data-testid=targets] img').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(await row.getByTestId('target-pace').textContent()).toBe('no rate, concurrency 2');
    expect(errors).toEqual([]);
    expect(dialogs).toEqual([]);
  }, 60_000);

  it('is not shown, and /api/targets not read, where the node has no relay', async () => {
    const app = await buildApp(testListenConfig(join(suite.folder(), 'app.db'), { console: TEST_CONSOLE }), { webRoot: suite.webRoot });
    suite.cleanup(() => app.close());
    const { page, errors, answers } = await suite.open(app.consoleUrl!.replace('//localhost:', '//127.0.0.1:'));
    await page.locator('[data-testid=feed-state][data-state=live]').waitFor();
    expect(await page.getByTestId('targets').count()).toBe(0);
    expect(answers.filter((a) => a.path === '/api/targets')).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);
});
