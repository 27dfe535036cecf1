/**
 * The detail pane beside the list, in a real browser (issue 36): opening a row keeps the list where
 * it was, the sticky detail fits the window, a narrow window scrolls to the detail (item 8); the
 * detail is wider by default, resizable and remembered, and no time, URL or header name breaks
 * inside itself, while every list row stays one or two lines (item 9); opening a refused row asks
 * for its attempts, never first for a delivery that answers 404 (item 11).
 *
 * HOOKRELAY_TEST_WEB_ROOT serves another build of the page (one of an older commit, to see these
 * tests fail without their fixes); by default the page of the working tree is built.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleServerOptions } from '../../../src/console/console-options.js';
import { envelopeBody, receive, refuse, startConsole, type ConsoleFixture } from '../helpers/console-fixture.js';
import { ensureWebBuild } from '../helpers/web-build.js';
import { withRelayTries } from '../helpers/relay-tries.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const TRIGGERS = ['trustcenter.access_requested', 'trustcenter.resource_downloaded', 'vendor.rating_dropped', 'control.drift_detected'];

let browser: Browser;
let webRoot: string;
let fx: ConsoleFixture | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([
    process.env.HOOKRELAY_TEST_WEB_ROOT ?? ensureWebBuild(),
    chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
  ]);
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

interface Opened {
  page: Page;
  errors: string[];
  /** Every answer of the control API: path and status. */
  answers: Array<{ path: string; status: number }>;
}

async function openPage(options: { width?: number; height?: number; path?: string } = {}): Promise<Opened> {
  context ??= await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  const answers: Opened['answers'] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith('/api/')) answers.push({ path: url.pathname, status: response.status() });
  });
  await page.goto(`${fx!.base}${options.path ?? '/'}`);
  return { page, errors, answers };
}

async function start(overrides: Partial<ConsoleServerOptions> = {}) {
  fx = await startConsole({ webRoot, ...overrides });
  return fx;
}

/** `count` stored deliveries, evt_00 the oldest. */
async function fill(count: number) {
  for (let n = 0; n < count; n++) {
    const id = `evt_${String(n).padStart(2, '0')}`;
    const trigger = TRIGGERS[n % TRIGGERS.length]!;
    await receive(fx!.store, fx!.hub, { id, trigger, rawBody: envelopeBody(id, trigger, { n }) });
  }
}

const rows = (page: Page) => page.locator('tbody tr.row');
const liveFeed = (page: Page) => page.locator('[data-testid=feed-state][data-state=live]').waitFor();
/** The row is drawn selected: the list has re-rendered after the open. */
const opened = (page: Page, key: string) => page.locator(`tbody tr.row.selected[data-key="${key}"]`).waitFor();
const scrollY = (page: Page) => page.evaluate(() => window.scrollY);
const onScreen = (page: Page, key: string) =>
  page.locator(`tbody tr.row[data-key="${key}"]`).evaluate((tr) => {
    const r = tr.getBoundingClientRect();
    // A pixel of slack: a row scrolled to the edge may sit at a fraction of a pixel past it.
    return r.top >= -1 && r.bottom <= window.innerHeight + 1;
  });
const paneBox = (page: Page) =>
  page.locator('[data-testid=detail]').evaluate((pane) => {
    const r = pane.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, width: r.width, scrolls: pane.scrollHeight > pane.clientHeight, viewport: window.innerHeight };
  });

/**
 * Tokens that must never break inside themselves (dates, times, URLs, host:port, header names) and that
 * the browser laid out over more than one line in `scope`.
 */
function brokenTokens(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((scope) => {
    const broken: string[] = [];
    const patterns = [/\b\d{4}-\d{2}-\d{2}\b/g, /\b\d{2}:\d{2}:\d{2}(\.\d{3})?\b/g, /https?:\/\/[^\s;)"]+/g, /\b\d{1,3}(\.\d{1,3}){3}:\d+\b/g];
    const lines = (range: Range) => new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    const root = document.querySelector(scope)!;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest('pre, .json-tree, textarea, [hidden]')) continue;
      for (const pattern of patterns) {
        for (const match of (node.textContent ?? '').matchAll(pattern)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          if (lines(range) > 1) broken.push(match[0]);
        }
      }
    }
    // A header name: from its first character to its last (the text, not the boxes around it).
    for (const th of Array.from(root.querySelectorAll('table.kv tbody th'))) {
      const texts = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      const first = texts.nextNode();
      let last = first;
      for (let node = texts.nextNode(); node; node = texts.nextNode()) last = node;
      if (!first || !last) continue;
      const range = document.createRange();
      range.setStart(first, 0);
      range.setEnd(last, last.textContent!.length);
      if (lines(range) > 1) broken.push(th.textContent ?? '');
    }
    return broken;
  }, scope);
}

describe('opening a row keeps the list where it was (issue 36, item 8)', () => {
  it('with the mouse, scrolled 1,200 px down: the page stays there and the opened row on screen', async () => {
    await start();
    await fill(50);
    const { page, errors } = await openPage();
    await rows(page).nth(49).waitFor();
    await liveFeed(page);
    await page.evaluate(() => window.scrollTo(0, 1200));
    // A row in the middle of the window.
    const key = await rows(page).evaluateAll((trs) => trs.find((tr) => tr.getBoundingClientRect().top > window.innerHeight / 2)!.getAttribute('data-key')!);
    await page.locator(`tbody tr.row[data-key="${key}"]`).click();
    await page.locator('[data-testid=detail-id]', { hasText: key.slice(2) }).waitFor();
    await opened(page, key);
    expect(await scrollY(page)).toBe(1200);
    expect(await onScreen(page, key)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('with j pressed 22 times and Enter: the page stays where the keyboard took it', async () => {
    await start();
    await fill(50);
    const { page } = await openPage();
    await rows(page).nth(49).waitFor();
    await liveFeed(page);
    for (let n = 0; n < 22; n++) await page.keyboard.press('j');
    const key = await page.evaluate(() => document.activeElement!.getAttribute('data-key')!);
    expect(key).toBe('d:evt_28');
    const before = await scrollY(page);
    expect(before).toBeGreaterThan(0);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=detail-id]', { hasText: 'evt_28' }).waitFor();
    await opened(page, key);
    expect(await scrollY(page)).toBe(before);
    expect(await onScreen(page, key)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-key'))).toBe(key);
  });

  it('fits the sticky detail in an 800 px window, at the top of the page and scrolled, with a scroll of its own', async () => {
    await start();
    await fill(50);
    const big = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`field_${i}`, `value ${i}`]));
    await receive(fx!.store, fx!.hub, { id: 'evt_big', rawBody: envelopeBody('evt_big', TRIGGERS[0]!, big) });
    const { page } = await openPage({ path: '/#/d/evt_big' });
    await page.locator('[data-testid=json-tree]').waitFor();
    await opened(page, 'd:evt_big');
    const top = await paneBox(page);
    expect(top.bottom).toBeLessThanOrEqual(top.viewport);
    expect(top.scrolls).toBe(true);
    await page.evaluate(() => window.scrollTo(0, 1200));
    await page.waitForFunction(() => window.scrollY === 1200);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const scrolled = await paneBox(page);
    expect(scrolled.top).toBeGreaterThanOrEqual(0);
    expect(scrolled.bottom).toBeLessThanOrEqual(scrolled.viewport);
    // The pane uses the height it has: it is not cut short either.
    expect(scrolled.bottom).toBeGreaterThan(scrolled.viewport - 40);
  });

  it('at 800 px wide scrolls to the detail it opens, and Esc brings the row back on screen', async () => {
    await start();
    await fill(50);
    const { page } = await openPage({ width: 800, height: 800 });
    await rows(page).nth(49).waitFor();
    await liveFeed(page);
    await page.evaluate(() => window.scrollTo(0, 1200));
    const key = await rows(page).evaluateAll((trs) => trs.find((tr) => tr.getBoundingClientRect().top > 200)!.getAttribute('data-key')!);
    await page.locator(`tbody tr.row[data-key="${key}"]`).click();
    await page.locator('[data-testid=detail-id]', { hasText: key.slice(2) }).waitFor();
    await opened(page, key);
    const pane = await paneBox(page);
    expect(pane.top).toBeGreaterThanOrEqual(0);
    expect(pane.top).toBeLessThan(pane.viewport / 2);

    await page.keyboard.press('Escape');
    await page.locator('.detail-empty').waitFor();
    await page.waitForFunction((k) => document.activeElement?.getAttribute('data-key') === k, key);
    expect(await onScreen(page, key)).toBe(true);
  });
});

describe('the detail is wide enough, resizable, and breaks no token (issue 36, item 9)', () => {
  it('is wider by default than 30% of the window, and still leaves the list every trigger in full', async () => {
    await start();
    await fill(8);
    for (const [width, least] of [[1280, 440], [1440, 560]] as const) {
      const { page } = await openPage({ width, path: '/#/d/evt_01' });
      await page.locator('[data-testid=headers]').waitFor();
      expect((await paneBox(page)).width, `at ${width} px`).toBeGreaterThanOrEqual(least);
      const triggers = await page.locator('tbody tr.row .trigger-name').evaluateAll((nodes) => nodes.map((n) => n.getClientRects().length === 1 && (n as HTMLElement).offsetHeight < 24));
      expect(triggers.every(Boolean), `at ${width} px`).toBe(true);
      await context!.close();
      context = undefined;
    }
  });

  it('is resized by dragging its handle or with the arrow keys, and the width is remembered', async () => {
    await start();
    await fill(3);
    const { page } = await openPage({ width: 1440, path: '/#/d/evt_01' });
    await page.locator('[data-testid=headers]').waitFor();
    const handle = page.getByRole('separator', { name: 'Resize the detail' });
    const before = (await paneBox(page)).width;
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 40);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 60, box.y + 40, { steps: 4 });
    await page.mouse.move(box.x + box.width / 2 - 120, box.y + 40, { steps: 4 });
    await page.mouse.up();
    const dragged = (await paneBox(page)).width;
    expect(Math.abs(dragged - (before + 120))).toBeLessThanOrEqual(2);
    expect(Number(await handle.getAttribute('aria-valuenow'))).toBe(Math.round(dragged));

    await handle.focus();
    await page.keyboard.press('ArrowLeft');
    const wider = (await paneBox(page)).width;
    expect(wider).toBeGreaterThan(dragged);
    await page.keyboard.press('ArrowRight');
    expect((await paneBox(page)).width).toBeCloseTo(dragged, 0);
    // Keys on the handle are the handle's: the list did not move.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('separator');

    await page.reload();
    await page.locator('[data-testid=headers]').waitFor();
    expect((await paneBox(page)).width).toBeCloseTo(dragged, 0);
    // A narrower window never gives the detail so much that the list has no room.
    await page.setViewportSize({ width: 1000 + 1, height: 800 });
    // The page clamps the detail on its resize event, which lands after the viewport changes.
    await expect.poll(() => page.locator('.list-pane').evaluate((n) => n.getBoundingClientRect().width), { timeout: 5000 }).toBeGreaterThanOrEqual(400);
  });

  it('keeps times, URLs and header names whole in the detail at 1280 px, and every list row at one or two lines', async () => {
    const target = 'http://127.0.0.1:3999/dead';
    const error = `connect ECONNREFUSED 127.0.0.1:3999; gave up after 3 tries (retry by hand: hookrelay events retry evt_tokens)`;
    const at = Date.now();
    await start({
      store: withRelayTries((id) => id !== 'evt_tokens' ? [] : [
        { at: at - 4000, ok: false, status: null, latencyMs: 3, replay: false, error: 'connect ECONNREFUSED 127.0.0.1:3999', target },
        { at: at - 2000, ok: false, status: null, latencyMs: 2, replay: false, error: 'connect ECONNREFUSED 127.0.0.1:3999', target },
        { at, ok: false, status: null, latencyMs: 2, replay: false, error, target },
      ]),
    });
    await fill(6);
    await receive(fx!.store, fx!.hub, {
      id: 'evt_tokens',
      trigger: TRIGGERS[1],
      rawHeaders: ['Content-Type', 'application/json', 'X-Service-Event', TRIGGERS[1]!, 'X-Service-Delivery', 'evt_tokens', 'X-Service-Delivery-Attempt', '1', 'X-Service-Api-Version', '2026-06-01', 'X-Service-Signature', `t=1763719200,v1=${'ab'.repeat(32)}`],
    });
    const { page, errors } = await openPage({ width: 1280, path: '/#/d/evt_tokens' });
    await page.locator('[data-testid=relay]').waitFor();
    expect(await brokenTokens(page, '[data-testid=detail]')).toEqual([]);
    // The relay error is whole in the detail.
    expect(await page.locator('[data-testid=relay]').textContent()).toContain(error);

    // The list: the failed relay's error is cut to the row, whole in its title.
    fx!.hub.emit('relay', { deliveryId: 'evt_05', target: 'http://127.0.0.1:3000/hooks', status: null, ok: false, latencyMs: 2, replay: false, error });
    const failing = page.locator('tbody tr.row[data-key="d:evt_05"]');
    await failing.locator('.relay-failed').waitFor();
    expect(await failing.locator('td.relay').getAttribute('title')).toContain('gave up after 3 tries');
    const heights = await rows(page).evaluateAll((trs) => Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-key'), tr.getBoundingClientRect().height])));
    const plain = heights['d:evt_04']!;
    expect(heights['d:evt_05']).toBeLessThanOrEqual(plain + 1);
    // Lines of text in the cell (the tops of its text, not of the boxes around it).
    const relayLines = await failing.locator('td.relay').evaluate((td) => {
      const tops = new Set<number>();
      const texts = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      for (let node = texts.nextNode(); node; node = texts.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of Array.from(range.getClientRects())) if (r.width > 0) tops.add(Math.round(r.top));
      }
      return tops.size;
    });
    expect(relayLines).toBeLessThanOrEqual(2);
    expect(errors).toEqual([]);
  });
});

describe('opening a refused row (issue 36, item 11)', () => {
  it('asks for its attempts first: no request answers 404, nothing is logged', async () => {
    await start();
    await receive(fx!.store, fx!.hub, { id: 'evt_stored' });
    await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_rejected', reason: 'SIGNATURE_MISMATCH', status: 400 });
    await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_faulted', outcome: 'faulted', status: 503, reason: 'fault:503' });
    // Opened by a link on load, then from the list.
    const { page, errors, answers } = await openPage({ path: '/#/d/evt_rejected' });
    await page.locator('.notice', { hasText: 'Not stored' }).waitFor();
    await liveFeed(page);
    await page.locator('tbody tr.row', { hasText: 'evt_faulted' }).click();
    await page.locator('[data-testid=detail-id]', { hasText: 'evt_faulted' }).waitFor();
    await page.locator('.notice', { hasText: 'Not stored' }).waitFor();
    await page.locator('tbody tr.row', { hasText: 'evt_stored' }).click();
    await page.locator('[data-testid=headers]').waitFor();
    await page.locator('tbody tr.row', { hasText: 'evt_rejected' }).click();
    await page.locator('[data-testid=detail-id]', { hasText: 'evt_rejected' }).waitFor();
    await page.locator('.notice', { hasText: 'Not stored' }).waitFor();

    expect(answers.filter((a) => a.status === 404)).toEqual([]);
    // Each open asks for the right thing (a live refresh may ask again for the same).
    const asked = answers.filter((a) => a.path.startsWith('/api/deliveries/evt_')).map((a) => a.path);
    expect(asked.filter((path, i) => path !== asked[i - 1])).toEqual([
      '/api/deliveries/evt_rejected/attempts',
      '/api/deliveries/evt_faulted/attempts',
      '/api/deliveries/evt_stored',
      '/api/deliveries/evt_rejected/attempts',
    ]);
    expect(errors).toEqual([]);
  });
});
