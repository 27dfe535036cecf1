/**
 * Bulk replay in a real browser (issue 39): a real `listen` with its console forwarding to an app.
 * Two rows ticked and "Replay chosen" make one job of two copies; "Replay all matching" with the
 * list filtered by a trigger makes one of every delivery of that trigger. The jobs strip shows
 * each job to its end, its texts as text.
 */
import { describe, expect, it } from 'vitest';
import { signedRequest, TEST_SECRET } from '../../helpers/signed-delivery.js';
import { join } from 'node:path';
import { buildApp } from '../../../src/app/build-app.js';
import { testListenConfig } from '../../helpers/listen-config.js';
import { TEST_CONSOLE } from '../../helpers/start-app.js';
import { startTarget } from '../../helpers/target-server.js';
import { useBrowser } from '../helpers/browser.js';

const suite = useBrowser();

describe('bulk replay in the console', () => {
  it('replays the ticked rows, then everything the trigger filter matches, as jobs shown to their end', async () => {
    const target = await startTarget();
    suite.cleanup(() => target.close());
    // The relay hands each delivery on once; the console's jobs replay them again.
    const dir = suite.folder();
    const app = await buildApp(
      testListenConfig(join(dir, 'app.db'), { console: TEST_CONSOLE, forward: { to: target.url, secret: TEST_SECRET, timeoutMs: 5000, headers: [], mode: 'async', maxTries: 1 } }),
      { webRoot: suite.webRoot },
    );
    suite.cleanup(() => app.close());
    const triggers = ['vendor.rating_dropped', 'trustcenter.access_requested', 'vendor.rating_dropped', 'trustcenter.access_requested', 'vendor.rating_dropped'];
    for (const trigger of triggers) {
      const sent = signedRequest({ t: Math.floor(Date.now() / 1000), trigger });
      expect((await fetch(app.receiverUrl, { method: 'POST', headers: sent.headers, body: new Uint8Array(sent.body) })).status).toBe(200);
    }
    await target.waitFor(5);
    const live = target.received.length;

    const { page, errors } = await suite.open(app.consoleUrl!.replace('//localhost:', '//127.0.0.1:'), { width: 1400, dialogs: 'accept', consoleErrors: false });

    const boxes = page.locator('[data-testid=row-choose]');
    await expect.poll(() => boxes.count()).toBe(5);
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    expect(await page.locator('[data-testid=replay-chosen]').textContent()).toBe('Replay chosen (2)');
    await page.locator('[data-testid=replay-chosen]').click();
    await page.locator('[data-testid=replay-job].replay-job-finished', { hasText: '2/2' }).waitFor();
    expect(await page.locator('[data-testid=replay-chosen]').isDisabled()).toBe(true);
    expect(target.received.length).toBe(live + 2);

    await page.locator('[data-testid=filter-trigger]').selectOption('vendor.rating_dropped');
    await page.locator('[data-testid=replay-matching]').click();
    await page.locator('[data-testid=replay-job].replay-job-finished', { hasText: '3/3' }).waitFor();
    const copies = target.received.slice(live + 2);
    expect(copies).toHaveLength(3);
    expect(copies.every((r) => r.headers['x-hookrelay-replay'] === 'true' && String(r.headers['x-hookrelay-replay-job']).startsWith('rj_'))).toBe(true);
    expect(await page.locator('[data-testid=replay-job]', { hasText: '3/3' }).textContent()).toContain('trigger "vendor.rating_dropped"');
    expect(errors).toEqual([]);
  }, 60_000);
});
