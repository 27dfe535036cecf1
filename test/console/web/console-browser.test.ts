/**
 * The console page in a real browser (Debian's chromium, driven by playwright-core): live list,
 * detail, XSS corpus, fault rules panel, replay, download, pause, reconnect, token.
 */
import { createFaultRules } from '../../../src/faults/rules-controller.js';
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEventHub } from '../../../src/runtime/event-hub.js';
import type { ConsoleServerOptions } from '../../../src/console/console-options.js';
import { createMemoryStore } from '../../../src/store/memory-store.js';
import { envelopeBody, receive, refuse, startConsole, type ConsoleFixture } from '../helpers/console-fixture.js';
import { createFakeFaults } from '../helpers/fake-faults.js';
import { ensureWebBuild } from '../helpers/web-build.js';
import { withRelayTries } from '../helpers/relay-tries.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const TRIGGER = 'trustcenter.access_requested';

let browser: Browser;
let webRoot: string;
let fx: ConsoleFixture | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([ensureWebBuild(), chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })]);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await context?.close();
  await fx?.close();
  context = undefined;
  fx = undefined;
});

interface Watched {
  page: Page;
  /** Dialogs (alert/confirm/prompt) and console errors: both must stay empty. */
  dialogs: string[];
  errors: string[];
}

async function openPage(options: { path?: string; bypassCSP?: boolean } = {}): Promise<Watched> {
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: options.bypassCSP ?? false, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${fx!.base}${options.path ?? '/'}`);
  return { page, dialogs, errors };
}

async function start(overrides: Partial<ConsoleServerOptions> = {}) {
  fx = await startConsole({ webRoot, ...overrides });
  return fx;
}

const row = (page: Page, id: string) => page.locator('tbody tr.row', { hasText: id });
const liveFeed = (page: Page) => page.locator('[data-testid=feed-state][data-state=live]').waitFor();

describe('console page', () => {
  it('shows the empty state, then a delivery live; its detail shows headers and body', async () => {
    const hub = createEventHub();
    const faults = createFakeFaults(hub);
    await start({ hub, faults, replay: async () => ({ ok: true, status: 200 }), remove: async () => true, store: withRelayTries(() => [{ at: Date.now(), ok: true, status: 204, latencyMs: 18, replay: false }]) });
    const { page, dialogs, errors } = await openPage();
    const empty = page.locator('[data-testid=empty-state]');
    await empty.waitFor();
    expect(await page.locator('[data-testid=send-command]').textContent()).toBe(`npx hookrelay send --to http://127.0.0.1:4000/webhooks --trigger ${TRIGGER}`);
    expect(await page.locator('[data-testid=secret-hint]').textContent()).toBe('whsec_…1c3e');
    // `send` finds listen's development secret only in listen's folder (issue 36, item 23).
    const emptyText = await empty.textContent();
    expect(emptyText).toContain('Send a signed test delivery from this folder (the one you started listen in):');
    expect(emptyText).toContain("from another folder, point it at listen's database with --db");
    await liveFeed(page);

    // Deliveries arrive while the page is open.
    const body = envelopeBody('evt_live_1', TRIGGER, { accessRequestId: 'ar_42' });
    await receive(fx!.store, fx!.hub, {
      id: 'evt_live_1',
      rawBody: body,
      rawHeaders: ['Content-Type', 'application/json', 'X-Service-Event', TRIGGER, 'X-Service-Delivery', 'evt_live_1', 'X-Service-Delivery-Attempt', '1'],
    });
    await row(page, 'evt_live_1').waitFor();
    await empty.waitFor({ state: 'detached' });
    expect(await row(page, 'evt_live_1').locator('.chip').first().textContent()).toBe('accepted');

    await receive(fx!.store, fx!.hub, { id: 'evt_live_2', trigger: 'vendor.rating_dropped', rawBody: envelopeBody('evt_live_2', 'vendor.rating_dropped', { vendorId: 'v_9', rating: { from: 'A', to: 'C' } }) });
    await receive(fx!.store, fx!.hub, { id: 'evt_live_2' }, { outcome: 'duplicate', attemptHeader: 2 });
    await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_live_3', trigger: 'trustcenter.access_approved', reason: 'timestamp_too_old', status: 400 });
    await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_live_4', trigger: TRIGGER, outcome: 'faulted', status: 503, reason: 'rule r1: 503 retry-after=120', retryAfter: '120' });
    await row(page, 'evt_live_4').waitFor();
    await page.locator('tbody tr.row .chip', { hasText: 'duplicate ×1' }).waitFor();
    expect(await row(page, 'evt_live_3').locator('.chip').first().textContent()).toBe('rejected: timestamp_too_old');
    expect(await row(page, 'evt_live_4').locator('.chip').first().textContent()).toBe('faulted: rule r1: 503 retry-after=120');
    // Newest first.
    expect(await page.locator('tbody tr.row .id').allTextContents()).toEqual(['evt_live_4', 'evt_live_3', 'evt_live_2', 'evt_live_1']);

    await row(page, 'evt_live_1').click();
    const headers = page.locator('[data-testid=headers]');
    await headers.waitFor();
    expect(await headers.locator('tr').allTextContents()).toEqual([
      'Content-Typeapplication/json',
      `X-Service-Event${TRIGGER}`,
      'X-Service-Deliveryevt_live_1',
      'X-Service-Delivery-Attempt1',
    ]);
    expect(await page.locator('[data-testid=json-tree]').textContent()).toContain('accessRequestId: "ar_42"');
    await page.locator('[data-testid=body-tab-raw]').click();
    expect(await page.locator('[data-testid=raw-body]').textContent()).toBe(body.toString('utf8'));
    expect(await page.locator('[data-testid=signature]').textContent()).toContain('signed 2.000 s before arrival');
    expect(await page.locator('[data-testid=relay]').textContent()).toContain('delivered 204');

    fx!.hub.emit('relay', { deliveryId: 'evt_live_1', target: 'http://127.0.0.1:3000/hooks', status: 204, ok: true, latencyMs: 18, replay: false });
    fx!.hub.emit('relay', { deliveryId: 'evt_live_2', target: 'http://127.0.0.1:3000/hooks', status: 503, ok: false, latencyMs: 40, replay: false, nextRetryAt: Date.now() + 30_000 });
    await row(page, 'evt_live_2').locator('.relay', { hasText: 'HTTP 503, retrying' }).waitFor();
    // Two lines, each cut to the column (issue 36, item 9); the whole text is the title.
    expect(await row(page, 'evt_live_2').locator('.relay .cut').allTextContents()).toEqual(['relay failed', 'HTTP 503, retrying']);
    expect(await row(page, 'evt_live_2').locator('.relay').getAttribute('title')).toBe('relay failed: HTTP 503, retrying');
    expect(await row(page, 'evt_live_1').locator('.relay').textContent()).toBe('relayed 204');

    await row(page, 'evt_live_2').click();
    await page.locator('[data-testid=attempt]').nth(1).waitFor();
    expect(await page.locator('[data-testid=attempt]').nth(1).textContent()).toContain('997 ms after the previous answer');

    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('renders an XSS corpus in bodies, headers, triggers, ids and reasons as text, running nothing', async () => {
    await start();
    const payloads = [
      '<script>alert(1)</script>',
      '<img src=x onerror="alert(2);window.__xss=1">',
      '<svg onload="alert(3);window.__xss=1">',
      '<a href="javascript:alert(4)">click</a>',
      'javascript:alert(5)',
      '"><iframe src="javascript:alert(6)"></iframe>',
      '\u202Eexe.txt',
      '\u001b[2J\u001b[31mred\u001b[0m',
      '{{constructor.constructor("alert(7)")()}}',
    ];
    const hostileTrigger = '<img src=x onerror="alert(8);window.__xss=1">';
    const hostileId = '<svg onload="alert(9);window.__xss=1">\u202E';
    const body = Buffer.from(JSON.stringify({ id: hostileId, type: hostileTrigger, apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org', data: Object.fromEntries(payloads.map((p, i) => [`${p}${i}`, p])) }));
    // Header values are latin1 on the wire: the HTML payloads travel as they are.
    const headerPayloads = payloads.filter((p) => /^[\x20-\x7e]*$/.test(p));
    await receive(fx!.store, fx!.hub, { id: hostileId, trigger: hostileTrigger, rawBody: body, rawHeaders: headerPayloads.flatMap((p, i) => [`X-Evil-${i}`, p]) });
    await refuse(fx!.store, fx!.hub, { deliveryId: null, trigger: '<script>alert(10)</script>', reason: '<img src=x onerror="alert(11)"> \u001b[31m' });

    // CSP off: the page's own escaping is what is under test.
    const { page, dialogs, errors } = await openPage({ bypassCSP: true });
    await page.locator('tbody tr.row').nth(1).waitFor();
    const list = await page.locator('tbody').textContent();
    expect(list).toContain(hostileTrigger);
    expect(list).toContain('<svg onload="alert(9);window.__xss=1">\\u202E');
    expect(list).toContain('rejected: <img src=x onerror="alert(11)"> \\u001B[31m');

    await page.locator('tbody tr.row', { hasText: 'svg onload' }).click();
    await page.locator('[data-testid=headers]').waitFor();
    const detail = await page.locator('[data-testid=detail]').textContent();
    for (const p of headerPayloads) expect(detail).toContain(p);
    expect(detail).toContain('\\u202Eexe.txt');
    expect(detail).toContain('\\u001B[2J\\u001B[31mred\\u001B[0m');
    await page.locator('[data-testid=body-tab-raw]').click();
    expect(await page.locator('[data-testid=raw-body]').textContent()).toContain('<script>alert(1)</script>');
    await page.locator('[data-testid=body-tab-tree]').click();
    await page.locator('tbody tr.row', { hasText: 'alert(10)' }).click();
    await page.locator('.notice', { hasText: 'Not stored' }).waitFor();

    // Nothing was injected as markup, nothing ran.
    const injected = await page.evaluate(() => ({
      xss: (window as unknown as { __xss?: number }).__xss ?? null,
      elements: document.querySelectorAll('img, svg, iframe, object, embed, a[href], [onerror], [onload]').length,
      scripts: Array.from(document.querySelectorAll('script'), (s) => s.getAttribute('src')),
    }));
    expect(injected.xss).toBeNull();
    expect(injected.elements).toBe(0);
    expect(injected.scripts).toHaveLength(1);
    expect(injected.scripts[0]).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('edits a rule in place, moves rules up and down, and warns about a rule an earlier one hides', async () => {
    const hub = createEventHub();
    const faults = createFaultRules({ seed: 1, hub });
    faults.add('503 trigger=vendor.*');
    faults.add('500 trigger=vendor.rating_dropped');
    await start({ hub, faults });
    const { page, errors } = await openPage({ path: '/#/faults' });
    const rule = (text: string) => page.locator('[data-testid=fault-rule]', { hasText: text });
    await rule('500 trigger=vendor.rating_dropped').locator('[data-testid=fault-shadowed]', { hasText: 'never fires: rule r1 above' }).waitFor();

    await rule('500 trigger=vendor.rating_dropped').locator('[data-testid=fault-up]').click();
    await page.locator('[data-testid=fault-shadowed]').waitFor({ state: 'detached' });
    expect(faults.list().map((r) => r.id)).toEqual(['r2', 'r1']);

    await rule('503 trigger=vendor.*').locator('[data-testid=fault-edit]').click();
    const input = page.locator('[data-testid=fault-input]');
    expect(await input.inputValue()).toBe('503 trigger=vendor.*');
    await input.fill('429 trigger=vendor.*');
    await page.locator('[data-testid=fault-add]', { hasText: 'Save r1' }).click();
    await rule('429 trigger=vendor.*').waitFor();
    expect(faults.list().map((r) => [r.id, r.line])).toEqual([['r2', '500 trigger=vendor.rating_dropped'], ['r1', '429 trigger=vendor.*']]);

    await rule('429 trigger=vendor.*').locator('[data-testid=fault-up]').click();
    await rule('500 trigger=vendor.rating_dropped').locator('[data-testid=fault-shadowed]').waitFor();
    await input.fill('410 trigger=vendor.rating_dropped');
    await page.locator('[data-testid=fault-warning]', { hasText: 'this rule would never fire' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('says which key a mistyped one meant, and that a used-up rule no longer fires (issue 36, item 24)', async () => {
    const hub = createEventHub();
    const faults = createFaultRules({ seed: 1, hub });
    faults.add('503 times=3');
    faults.add('429 times=5 trigger=vendor.*');
    const arrival = { trigger: 'trustcenter.access_requested', deliveryId: 'evt_1', attemptHeader: 1, arrivalCount: 1, verified: true };
    for (let n = 0; n < 4; n++) faults.decide(arrival);
    faults.decide({ ...arrival, trigger: 'vendor.rating_dropped' });
    await start({ hub, faults });
    const { page, errors } = await openPage({ path: '/#/faults' });
    const rule = (text: string) => page.locator('[data-testid=fault-rule]', { hasText: text });
    await rule('503 times=3').waitFor();
    expect(await rule('503 times=3').locator('.chip', { hasText: 'fired' }).textContent()).toBe('fired 3× — used up, no longer fires');
    expect(await rule('429').locator('.chip', { hasText: 'fired' }).textContent()).toBe('fired 1×');

    const input = page.locator('[data-testid=fault-input]');
    await input.fill('503 atempt=1');
    await page.locator('[data-testid=fault-problem]', { hasText: "did you mean 'attempt'?" }).waitFor();
    expect(await page.locator('[data-testid=fault-problem] .error').textContent()).toMatch(/^unknown key 'atempt' \(did you mean 'attempt'\?\): known keys are .* at column 5$/);
    await page.locator('[data-testid=fault-add]').click();
    await page.locator('[data-testid=fault-problem]', { hasText: "did you mean 'attempt'?" }).waitFor();
    expect(faults.list()).toHaveLength(2);
    // The browser logs the refused add's 422 itself; nothing else may appear.
    expect(errors.filter((e) => !/status of 422/.test(e))).toEqual([]);
  });

  it('adds a fault rule in the panel with live validation, removes it and clears', async () => {
    const hub = createEventHub();
    const faults = createFakeFaults(hub);
    await start({ hub, faults });
    const { page, dialogs, errors } = await openPage({ path: '/#/faults' });
    const input = page.locator('[data-testid=fault-input]');
    await input.fill('attempt=1 <503>');
    await page.locator('[data-testid=fault-problem]', { hasText: 'column 11: unexpected character "<"' }).waitFor();
    expect(faults.rules).toEqual([]);

    await input.fill('attempt=1 503 retry-after=120');
    await page.locator('[data-testid=fault-problem]:empty').waitFor({ state: 'attached' });
    await page.locator('[data-testid=fault-add]').click();
    await page.locator('[data-testid=fault-rule]', { hasText: 'attempt=1 503 retry-after=120' }).waitFor();
    expect(faults.rules).toEqual([{ id: 'r1', line: 'attempt=1 503 retry-after=120' }]);

    // A rule added elsewhere (CLI, another console) shows up through the feed.
    faults.add('hang');
    await page.locator('[data-testid=fault-rule]', { hasText: 'hang' }).waitFor();

    await page.locator('[data-testid=fault-rule]', { hasText: 'attempt=1' }).locator('[data-testid=fault-remove]').click();
    await page.locator('[data-testid=fault-rule]', { hasText: 'attempt=1' }).waitFor({ state: 'detached' });
    expect(faults.rules.map((r) => r.line)).toEqual(['hang']);

    await page.locator('[data-testid=fault-clear]').click();
    await page.locator('[data-testid=fault-clear]', { hasText: 'Really' }).click();
    await page.locator('[data-testid=fault-rule]').first().waitFor({ state: 'detached' });
    expect(faults.rules).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('replays through the adapter, refuses a foreign target, copies curl and downloads the raw body', async () => {
    const replay = vi.fn(async () => ({ ok: true, status: 202 }));
    await start({ replay });
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), envelopeBody('evt_r1', TRIGGER, { accessRequestId: 'ar_1' }), Buffer.from([0xff])]);
    await receive(fx!.store, fx!.hub, { id: 'evt_r1', rawBody: raw });
    const { page, dialogs, errors } = await openPage({ path: `/#/d/evt_r1` });
    await page.locator('[data-testid=replay]').waitFor();
    expect(await page.locator('[data-testid=body-flags]').textContent()).toContain('invalid UTF-8');

    await page.locator('[data-testid=replay]').click();
    await page.locator('[data-testid=action-result]', { hasText: 'replayed' }).waitFor();
    expect(replay).toHaveBeenCalledWith('evt_r1', null);

    // A new arrival refreshes the detail live and leaves the action result and body tab alone.
    await page.locator('[data-testid=body-tab-raw]').click();
    await receive(fx!.store, fx!.hub, { id: 'evt_r1' }, { outcome: 'duplicate', attemptHeader: 2 });
    await page.locator('[data-testid=attempt]').nth(1).waitFor();
    expect(await page.locator('[data-testid=action-result]').textContent()).toContain('replayed');
    expect(await page.locator('[data-testid=raw-body]').count()).toBe(1);

    await page.locator('[data-testid=replay-to]').fill('https://attacker.example/collect');
    await page.locator('[data-testid=replay]').click();
    await page.locator('[data-testid=action-result]', { hasText: 'loopback' }).waitFor();
    expect(replay).toHaveBeenCalledTimes(1);

    await page.locator('[data-testid=copy-curl]').click();
    const curl = await page.locator('[data-testid=curl]').inputValue();
    // Not valid UTF-8: the exact bytes travel in base64 through a quoted here-document (issue 13).
    const lines = curl.split('\n');
    // The body path is under test here; curl's own flags are test/console/web/shell.test.ts's.
    expect(lines[0]).toMatch(/^base64 -d <<'HOOKRELAY_BODY' \| curl -sS (?:-\S+ )*-X POST http:\/\/127\.0\.0\.1:4000\/webhooks \\$/);
    expect(lines.at(-1)).toBe('HOOKRELAY_BODY');
    expect(lines.slice(lines.indexOf('  --data-binary @-') + 1, -1).join('')).toBe(raw.toString('base64'));

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=download]').click()]);
    expect(download.suggestedFilename()).toBe('evt_r1.body');
    expect(readFileSync((await download.path())!).equals(raw)).toBe(true);
    expect(dialogs).toEqual([]);
    // The browser logs the refused replay's 400 itself; nothing else may appear.
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    expect(errors.length).toBeLessThanOrEqual(1);
  });

  it('pauses and resumes the live list, and filters it', async () => {
    await start();
    await receive(fx!.store, fx!.hub, { id: 'evt_p1' });
    const { page } = await openPage();
    await row(page, 'evt_p1').waitFor();
    await liveFeed(page);
    await page.locator('[data-testid=pause]').click();
    await receive(fx!.store, fx!.hub, { id: 'evt_p2', trigger: 'vendor.rating_dropped' });
    // One delivery came in (an arrival and its stored record): one new, not two messages (issue 13, item 14).
    await page.locator('[data-testid=pause]', { hasText: 'Resume (1 new)' }).waitFor();
    expect(await row(page, 'evt_p2').count()).toBe(0);
    await page.locator('[data-testid=pause]').click();
    await row(page, 'evt_p2').waitFor();

    await page.locator('[data-testid=filter-trigger]').selectOption('vendor.rating_dropped');
    await row(page, 'evt_p1').waitFor({ state: 'detached' });
    expect(await page.locator('tbody tr.row .id').allTextContents()).toEqual(['evt_p2']);
    await page.locator('[data-testid=filter-trigger]').selectOption('');
    await page.locator('[data-testid=filter-text]').fill('p1');
    await row(page, 'evt_p2').waitFor({ state: 'detached' });
    expect(await page.locator('tbody tr.row .id').allTextContents()).toEqual(['evt_p1']);
  });

  it('reconnects after the console restarts and catches up', async () => {
    await start();
    const { page } = await openPage();
    await liveFeed(page);
    const port = fx!.port;
    await fx!.close();
    await page.locator('[data-testid=feed-state][data-state=reconnecting]').waitFor();

    // A new process on the same port: another epoch, so the page reloads its lists.
    const store = createMemoryStore();
    const hub = createEventHub();
    fx = await startConsole({ webRoot, store, hub, listenPort: port });
    expect(fx.port).toBe(port);
    await receive(store, hub, { id: 'evt_after_restart' });
    await liveFeed(page);
    await row(page, 'evt_after_restart').waitFor();
  });

  it('asks for the token beyond loopback, then keeps it out of the address bar', async () => {
    const token = 'tok_browser_test_0123456789';
    await start({ listenHost: '0.0.0.0', token });
    await receive(fx!.store, fx!.hub, { id: 'evt_t1' });
    const first = await openPage();
    await first.page.locator('[data-testid=fatal]', { hasText: 'needs its token' }).waitFor();
    await context!.close();

    const { page, errors } = await openPage({ path: `/?token=${token}` });
    await row(page, 'evt_t1').waitFor();
    await liveFeed(page);
    expect(page.url()).toBe(`${fx!.base}/`);
    await receive(fx!.store, fx!.hub, { id: 'evt_t2' });
    await row(page, 'evt_t2').waitFor();
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
  });
});
