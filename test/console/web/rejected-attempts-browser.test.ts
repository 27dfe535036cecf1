/**
 * The console page shows what a refused attempt sent, in a real browser: its hints beside the code,
 * its headers and its hostile body as text (nothing runs), and the conformance verdict of an id
 * that was never stored (issue 13, items 8, 13 and 14).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { attemptFor, makeDelivery } from '../../helpers/fixtures.js';
import { useBrowser } from '../helpers/browser.js';
import { startConsole, type ConsoleFixture } from '../helpers/console-fixture.js';

const suite = useBrowser();
let fx: ConsoleFixture | undefined;

afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const HINT = 'the signature matches secret #1 with a trailing newline added: strip it where the sender loads it';
const PAYLOAD = '<img src=x onerror="alert(1);window.__xss=1">';

describe('console page: refused attempts', () => {
  it('shows the hints, the headers and the hostile body of a never-stored delivery as text, with its conformance verdict', async () => {
    fx = await startConsole({ webRoot: suite.webRoot, conformance: async () => ({ status: 'fail', delivery: 'never', rules: [] }) });
    const d = makeDelivery({ id: 'never-stored-1' });
    const body = Buffer.from(JSON.stringify({ id: 'never-stored-1', evil: PAYLOAD, script: '<script>alert(2)</script>' }));
    await fx.store.recordAttempt(attemptFor(d, {
      outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', hints: [HINT, `second ${PAYLOAD}`],
      request: { headers: [['X-Service-Signature', 't=1,v1=ab'], ['X-Evil', PAYLOAD]], body },
    }));
    await fx.store.recordAttempt(attemptFor(d, { outcome: 'faulted', status: 503, reason: 'fault:503', receivedAt: d.receivedAt + 60_000, request: { headers: [['X-Second', 'yes']], body: Buffer.from('{}') } }));

    const { page, errors, dialogs } = await suite.open(`${fx.base}/#/d/never-stored-1`, { width: 1280, height: 800, bypassCSP: true, consoleErrors: false });

    await page.locator('.notice', { hasText: 'Not stored' }).waitFor();
    const hints = page.locator('[data-testid=attempt-hints]');
    await hints.first().waitFor();
    expect(await hints.first().textContent()).toBe(`hint: ${HINT}hint: second ${PAYLOAD}`);
    // Headers per attempt: each attempt its own.
    const headerTables = page.locator('[data-testid=attempt-headers]');
    expect(await headerTables.count()).toBe(2);
    expect(await headerTables.nth(0).textContent()).toContain(`X-Evil${PAYLOAD}`);
    expect(await headerTables.nth(1).textContent()).toContain('X-Secondyes');
    // The rejected attempt's body is open, as text.
    await page.locator('[data-testid=attempt-body-tab-raw]').first().click();
    expect(await page.locator('[data-testid=attempt-raw-body]').textContent()).toBe(body.toString());
    await page.locator('[data-testid=conformance]').waitFor();

    const injected = await page.evaluate(() => ({
      xss: (window as unknown as { __xss?: number }).__xss ?? null,
      elements: document.querySelectorAll('img, svg, iframe, [onerror], [onload]').length,
      scripts: document.querySelectorAll('script').length,
    }));
    expect(injected).toEqual({ xss: null, elements: 0, scripts: 1 });
    expect([...errors, ...dialogs.map((d) => `dialog: ${d}`)]).toEqual([]);
  }, 60_000);
});
