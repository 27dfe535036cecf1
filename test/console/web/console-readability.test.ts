/**
 * The console page in a real browser, for the console items of issue 13: the duplicate chip on
 * every load (10), numbers as sent (11), density at 1280 and 1440 px (12), and the smaller ones
 * (14): the refused-attempts line, no mid-word wrapping, keyboard navigation, dark mode; and the
 * detail's order (13): what was sent first, the verdicts below.
 *
 * HOOKRELAY_TEST_WEB_ROOT serves another build of the page (for example one of an older commit, to
 * see these tests fail without their fixes); by default the page of the working tree is built.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ConsoleServerOptions } from '../../../src/console/console-options.js';
import { envelopeBody, receive, refuse, startConsole, type ConsoleFixture } from '../helpers/console-fixture.js';
import { useBrowser } from '../helpers/browser.js';
import { withRelayTries } from '../helpers/relay-tries.js';

const TRIGGERS = [
  'trustcenter.access_requested',
  'trustcenter.access_approved',
  'trustcenter.access_rejected',
  'trustcenter.resource_downloaded',
  'vendor.rating_dropped',
  'control.drift_detected',
  'sod.violation_detected',
];

const suite = useBrowser();
let fx: ConsoleFixture | undefined;
/** Screenshots go here (never into the repository); kept when HOOKRELAY_KEEP_SCREENSHOTS is set. */
const shots = mkdtempSync(join(tmpdir(), 'hookrelay-console-shots-'));

afterAll(() => {
  if (!process.env.HOOKRELAY_KEEP_SCREENSHOTS) rmSync(shots, { recursive: true, force: true });
});
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function start(overrides: Partial<ConsoleServerOptions> = {}) {
  fx = await startConsole({ webRoot: suite.webRoot, ...overrides });
  return fx;
}

const openPage = (options: { path?: string; width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}) =>
  suite.open(`${fx!.base}${options.path ?? '/'}`, { timeoutMs: 10_000, ...options });

const row = (page: Page, id: string) => page.locator('tbody tr.row', { hasText: id });
const liveFeed = (page: Page) => page.locator('[data-testid=feed-state][data-state=live]').waitFor();

/**
 * Words (letters only, as in "Latency") that the browser broke over two lines, outside the places
 * where long tokens may break (bodies, header values, ids).
 */
function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('pre, .json-tree, table.kv tbody td, .id, [hidden], textarea')) continue;
      for (const match of (node.textContent ?? '').matchAll(/[A-Za-z]{3,30}/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });
}

describe('duplicate chip (issue 13, item 10)', () => {
  it('shows the stored count on every load, whatever order the API and the feed backlog answer in', async () => {
    await start();
    await receive(fx!.store, fx!.hub, { id: 'evt_dup' });
    await receive(fx!.store, fx!.hub, { id: 'evt_dup' }, { outcome: 'duplicate', attemptHeader: 2 });
    await receive(fx!.store, fx!.hub, { id: 'evt_dup' }, { outcome: 'duplicate', attemptHeader: 3 });
    const chips: string[] = [];
    for (let load = 0; load < 8; load++) {
      const { page, errors } = await openPage();
      await row(page, 'evt_dup').waitFor();
      await liveFeed(page);
      // A delivery after the page is live: once its row shows, the backlog before it has been applied.
      await receive(fx!.store, fx!.hub, { id: `evt_marker_${load}` });
      await row(page, `evt_marker_${load}`).waitFor();
      chips.push((await row(page, 'evt_dup').locator('.chip').first().textContent()) ?? '');
      expect(errors).toEqual([]);
      await page.close();
    }
    expect(chips).toEqual(Array(8).fill('duplicate ×2'));
  });
});

describe('JSON tree (issue 13, item 11)', () => {
  it('shows every number with the digits it was sent with', async () => {
    await start();
    const text = '{"id":"evt_num","type":"vendor.rating_dropped","apiVersion":"2026-06-01","createdAt":"2026-11-21T10:00:00Z","organizationId":"org_1","data":{"big":12345678901234567890,"dec":1.000,"exp":1E+2,"negZero":-0.0,"same":"a","same":"b"}}';
    await receive(fx!.store, fx!.hub, { id: 'evt_num', trigger: 'vendor.rating_dropped', rawBody: Buffer.from(text) });
    const { page, errors } = await openPage({ path: '/#/d/evt_num' });
    const tree = page.locator('[data-testid=json-tree]');
    await tree.waitFor();
    const shown = await tree.textContent();
    expect(shown).toContain('big: 12345678901234567890');
    expect(shown).toContain('dec: 1.000');
    expect(shown).toContain('exp: 1E+2');
    expect(shown).toContain('negZero: -0.0');
    // A repeated key is shown twice, in order, as sent.
    expect(shown).toMatch(/same: "a".*same: "b"/);
    expect(errors).toEqual([]);
  });
});

describe('density (issue 13, item 12)', () => {
  async function fill() {
    await start({ store: withRelayTries(() => [{ at: Date.now(), ok: true, status: 204, latencyMs: 18, replay: false }]) });
    const reasons = ['SIGNATURE_MISMATCH', 'TIMESTAMP_IN_FUTURE', 'DELIVERY_ID_MISMATCH', 'SIGNATURE_MALFORMED'];
    for (let n = 0; n < 30; n++) {
      const trigger = TRIGGERS[n % TRIGGERS.length]!;
      const id = `${n.toString().padStart(2, '0')}c9f1e4-7d2a-4b8e-9a51-6f3e2d1c0b${n.toString().padStart(2, '0')}`;
      if (n % 5 === 1) await refuse(fx!.store, fx!.hub, { deliveryId: id, trigger, status: 400, reason: reasons[n % reasons.length]! });
      else await receive(fx!.store, fx!.hub, { id, trigger, rawBody: envelopeBody(id, trigger, { n }) });
    }
    // Faulted five times, then accepted.
    for (let n = 1; n <= 5; n++) await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_f5', trigger: TRIGGERS[3], outcome: 'faulted', status: 503, reason: 'rule r1: 503 retry-after=120', retryAfter: '120', attemptHeader: n });
    await receive(fx!.store, fx!.hub, { id: 'evt_f5', trigger: TRIGGERS[3], rawBody: envelopeBody('evt_f5', TRIGGERS[3]!, {}) }, { attemptHeader: 6 });
  }

  it.each([1280, 1440])('at %i px every trigger and every rejection code reads in full, with status, size, tries and duration', async (width) => {
    await fill();
    const { page, errors } = await openPage({ width, height: 800, path: '/#/d/evt_f5' });
    await page.locator('[data-testid=headers]').waitFor();
    await row(page, 'evt_f5').waitFor();
    await page.locator('tbody tr.row').nth(30).waitFor();
    await page.screenshot({ path: join(shots, `list-${width}.png`) });

    expect(await page.locator('table.list thead th').allTextContents()).toEqual(expect.arrayContaining(['Status', 'Tries', 'Size', 'Took']));
    const cells = await page.locator('tbody tr.row').evaluateAll((rows) =>
      rows.map((tr) => {
        const trigger = tr.querySelector<HTMLElement>('.trigger-name')!;
        const chip = tr.querySelector<HTMLElement>('.chip')!;
        const fits = (e: HTMLElement) => e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1;
        return { trigger: trigger.textContent, triggerFits: fits(trigger) && fits(trigger.closest('td')!), chip: chip.textContent, chipFits: fits(chip) && fits(chip.closest('td')!) };
      }),
    );
    for (const cell of cells) {
      expect(TRIGGERS).toContain(cell.trigger);
      expect(cell, JSON.stringify(cell)).toMatchObject({ triggerFits: true, chipFits: true });
    }
    expect(cells.map((c) => c.chip)).toEqual(expect.arrayContaining(['rejected: SIGNATURE_MISMATCH', 'rejected: TIMESTAMP_IN_FUTURE', 'rejected: DELIVERY_ID_MISMATCH']));
    // The trigger names fit on one line at these widths.
    const lines = await page.locator('tbody tr.row .trigger-name').evaluateAll((nodes) => nodes.map((n) => n.getClientRects().length === 1 && (n as HTMLElement).offsetHeight < 24));
    expect(lines.every(Boolean)).toBe(true);

    const f5 = row(page, 'evt_f5');
    expect(await f5.locator('.chip').first().textContent()).toBe('accepted');
    expect(await f5.locator('[data-testid=row-history]').textContent()).toBe('after 5 faulted');
    expect(await f5.locator('td.tries').textContent()).toBe('6');
    expect(await f5.locator('td.status').textContent()).toBe('200');
    expect(await f5.locator('td.took').textContent()).toBe('3 ms');
    expect(await f5.locator('td.size').textContent()).toMatch(/^\d+ B$/);
    expect(await brokenWords(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe('detail order (issue 13, item 13)', () => {
  it('shows the headers and the body first and the verdicts below them, with each attempt\'s headers when the API has them', async () => {
    await start({ conformance: async () => ({ status: 'pass', state: 'delivered', rules: [] }) });
    await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_order', outcome: 'faulted', status: 503, reason: 'rule r1: 503' });
    await receive(fx!.store, fx!.hub, { id: 'evt_order' }, { attemptHeader: 2 });
    const { page } = await openPage();
    // The page shows per-attempt headers as soon as the API sends them (hostile text stays text).
    await page.route('**/api/deliveries/evt_order', async (route) => {
      try {
        const response = await route.fetch();
        const json = await response.json();
        json.data.attempts[0].headers = [['X-Service-Delivery-Attempt', '1'], ['X-Evil', '<img src=x onerror=alert(1)>']];
        await route.fulfill({ response, json });
      } catch {
        // The page refreshed the detail as the test closed it: that request has no one to answer.
      }
    });
    await page.goto(`${fx!.base}/#/d/evt_order`);
    await page.locator('[data-testid=conformance]').waitFor();
    const titles = (await page.locator('[data-testid=detail] section.block > h3').allTextContents()).map((t) => t.replace(/ \(.*$/, ''));
    // The fixture's body lacks its trigger's data fields: the drift warning is the first verdict about it.
    expect(titles).toEqual(['Headers', 'Body', 'Schema drift', 'Signature', 'Attempts', 'Relay', 'Retry conformance']);
    const first = page.locator('[data-testid=attempt]').first();
    await first.locator('summary', { hasText: 'Headers of this attempt (2)' }).click();
    expect(await first.locator('[data-testid=attempt-headers] tr').allTextContents()).toEqual(['X-Service-Delivery-Attempt1', 'X-Evil<img src=x onerror=alert(1)>']);
    // The accepted attempt's headers are its delivery's, from the API itself.
    const accepted = page.locator('[data-testid=attempt]').nth(1);
    await accepted.locator('summary', { hasText: 'Headers of this attempt (2)' }).click();
    expect(await accepted.locator('[data-testid=attempt-headers] tr').allTextContents()).toEqual(['Content-Typeapplication/json', 'X-Service-Deliveryevt_order']);
    expect(await page.locator('img').count()).toBe(0);
  });

  it('shows what the target answered to each relay try: its headers folded, its body in the body view, every hostile byte as text; an older try says its answer was not kept', async () => {
    const hostile = Buffer.concat([Buffer.from('<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>\u0000\u001b[31m\u202e'), Buffer.from([0xff, 0xfe])]);
    const at = Date.now();
    await start({
      store: withRelayTries((_id, options) => [
        // Recorded before hookrelay kept answers.
        { at: at - 3000, ok: false, status: 503, latencyMs: 40, replay: false, error: 'responded 503', ...(options?.withAnswers ? { answer: null } : {}) },
        { at: at - 2000, ok: false, status: null, latencyMs: 2000, replay: false, error: 'timeout after 2000 ms', ...(options?.withAnswers ? { answer: null } : {}) },
        {
          at, ok: false, status: 500, latencyMs: 12, replay: false, error: 'responded 500',
          ...(options?.withAnswers
            ? { answer: { headers: [['X-Evil', '<img src=x onerror="window.__pwned=3">\t\u00ff'], ['Content-Type', 'text/html']] as Array<[string, string]>, headerLines: 120, body: hostile, bodyBytes: 9000, complete: true } }
            : {}),
        },
      ]),
    });
    await receive(fx!.store, fx!.hub, { id: 'evt_answers' });
    const { page, errors } = await openPage({ path: '/#/d/evt_answers' });
    await page.locator('[data-testid=relay]').waitFor();
    expect(await page.locator('[data-testid=relay-try]').count()).toBe(3);
    expect(await page.locator('[data-testid=relay-answer-not-kept]').allTextContents()).toEqual(['Answer not kept (recorded before hookrelay kept answers).']);

    const answer = page.locator('[data-testid=relay-answer]');
    expect(await answer.count()).toBe(1);
    await answer.locator('summary', { hasText: 'Headers of the answer (120)' }).click();
    expect(await answer.locator('[data-testid=relay-answer-headers] tr').allTextContents()).toEqual(['X-Evil<img src=x onerror="window.__pwned=3">\\t\u00ff', 'Content-Typetext/html']);
    expect(await answer.textContent()).toContain('118 more header lines not kept');
    // The newest try failed: its answer's body is open, flagged, and shown as text.
    expect(await answer.locator('summary', { hasText: 'Body of the answer' }).textContent()).toBe(`Body of the answer (8.8 KiB, the first ${hostile.length} B kept)`);
    expect(await answer.locator('[data-testid=relay-body-flags]').textContent()).toContain('invalid UTF-8');
    await answer.locator('[data-testid=relay-body-tab-raw]').click();
    const raw = await answer.locator('[data-testid=relay-raw-body]').textContent();
    expect(raw).toContain('<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>\\u0000\\u001B[31m\\u202E\uFFFD\uFFFD');
    await answer.locator('[data-testid=relay-body-tab-bytes]').click();
    expect(await answer.locator('[data-testid=relay-hex-body]').textContent()).toContain('ff fe');
    // A live refresh (a relay try of this delivery) rebuilds the relay section: the body stays on Bytes.
    await answer.evaluate((node) => ((node as unknown as { beforeRefresh: boolean }).beforeRefresh = true));
    fx!.hub.emit('relay', { deliveryId: 'evt_answers', target: 'http://127.0.0.1:3000/hooks', status: 500, ok: false, latencyMs: 12, replay: false });
    await page.waitForFunction(() => !(document.querySelector('[data-testid=relay-answer]') as unknown as { beforeRefresh?: boolean } | null)?.beforeRefresh);
    expect(await answer.locator('[data-testid=relay-hex-body]').textContent()).toContain('ff fe');
    expect(await answer.locator('[data-testid=relay-body-tab-bytes]').getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('[data-testid=detail] img, [data-testid=detail] script').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows the answers of the newest 20 relay tries; an older one says where to read it', async () => {
    await start({
      store: withRelayTries((_id, options) =>
        Array.from({ length: 23 }, (_, i) => ({
          at: Date.now() - (23 - i) * 1000, ok: false, status: 500, latencyMs: 3, replay: i >= 15, error: 'responded 500',
          ...(options?.withAnswers ? { answer: { headers: [['Content-Type', 'text/plain']] as Array<[string, string]>, headerLines: 1, body: Buffer.from(`answer ${i + 1}`), bodyBytes: 9, complete: true } } : {}),
        }))),
    });
    await receive(fx!.store, fx!.hub, { id: 'evt_many_tries' });
    const { page, errors } = await openPage({ path: '/#/d/evt_many_tries' });
    await page.locator('[data-testid=relay]').waitFor();
    expect(await page.locator('[data-testid=relay-try]').count()).toBe(23);
    expect(await page.locator('[data-testid=relay-answer]').count()).toBe(20);
    const leftOut = page.locator('[data-testid=relay-answer-left-out]');
    expect(await leftOut.count()).toBe(3);
    expect(await leftOut.first().textContent()).toMatch(/^Answer not shown here \(the page shows the newest answers\): hookrelay events show .* --json$/);
    expect(errors).toEqual([]);
  });

  it('shows the redirect hops of one attempt as one attempt listing its hops, numbered by the sender\'s attempt', async () => {
    await start();
    const body = envelopeBody('evt_hops', TRIGGERS[0]!, {});
    const t = 1_763_719_100;
    const sent = { deliveryId: 'evt_hops', trigger: TRIGGERS[0]!, attemptHeader: 1, signatureTimestamp: t, bodySha256: createHash('sha256').update(body).digest('hex'), bodyBytes: body.length };
    const hop = (n: number, reason: string) =>
      refuse(fx!.store, fx!.hub, { ...sent, outcome: 'faulted', status: 307, reason, request: { headers: [['X-Service-Delivery', 'evt_hops'], ['X-Hop', `<b>${n}</b>`]], body } });
    await hop(0, 'fault:redirect hops=3');
    await hop(1, 'fault-hop:1/3');
    await hop(2, 'fault-hop:2/3');
    await receive(fx!.store, fx!.hub, { id: 'evt_hops', trigger: TRIGGERS[0]!, rawBody: body }, { attemptHeader: 1, signatureTimestamp: t, reason: 'fault-hop:3/3' });
    await receive(fx!.store, fx!.hub, { id: 'evt_hops', trigger: TRIGGERS[0]!, rawBody: body }, { outcome: 'duplicate', attemptHeader: 2, signatureTimestamp: t + 60 });

    const { page, errors } = await openPage({ path: '/#/d/evt_hops' });
    await page.locator('[data-testid=attempts]').waitFor();
    expect(await page.locator('h3', { hasText: 'Attempts' }).textContent()).toBe('Attempts (2, 5 arrivals)');
    const attempts = page.locator('[data-testid=attempt]');
    expect(await attempts.count()).toBe(2);
    const first = attempts.nth(0);
    expect(await first.locator('.attempt-head').textContent()).toMatch(/^#1 \(attempt header 1\)/);
    expect(await first.locator('[data-testid=hop-count]').textContent()).toBe('3 redirect hops followed');
    const hops = first.locator('[data-testid=hop]');
    expect(await hops.count()).toBe(4);
    const lines = (await hops.evaluateAll((items) => items.map((li) => li.firstElementChild!.textContent ?? ''))).map((line) => line.replace(/ · \d{4}-\d\d-\d\d [\d:]+ · /, ' · '));
    expect(lines).toEqual([
      'request · faulted answered 307 → redirect to hop 1 — fault:redirect hops=3 · took 1 ms',
      'hop 1 · faulted answered 307 → redirect to hop 2 — fault-hop:1/3 · took 1 ms',
      'hop 2 · faulted answered 307 → redirect to hop 3 — fault-hop:2/3 · took 1 ms',
      'hop 3 · accepted answered 200 — fault-hop:3/3 · took 3 ms',
    ]);
    // Each hop with its own headers, hostile text as text.
    await hops.nth(1).locator('summary', { hasText: 'Headers of this hop (2)' }).click();
    expect(await hops.nth(1).locator('[data-testid=attempt-headers] tr').allTextContents()).toEqual(['X-Service-Deliveryevt_hops', 'X-Hop<b>1</b>']);
    expect(await first.locator('summary', { hasText: 'Body of this attempt' }).textContent()).toBe(`Body of this attempt (${body.length} bytes, sent on every hop)`);
    expect(await attempts.nth(1).locator('.attempt-head').textContent()).toMatch(/^#2 \(attempt header 2\)/);
    expect(await attempts.nth(1).locator('[data-testid=hop]').count()).toBe(0);
    // The hops led on to an accept: nothing was refused.
    expect(await page.locator('[data-testid=refused-note]').count()).toBe(0);
    expect(await page.locator('[data-testid=detail] b').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});

describe('smaller console items (issue 13, item 14)', () => {
  it('says refused attempts are on the timeline only when some were refused', async () => {
    await start();
    await receive(fx!.store, fx!.hub, { id: 'evt_clean' });
    await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_retried', outcome: 'faulted', status: 503, reason: 'rule r1: 503' });
    await receive(fx!.store, fx!.hub, { id: 'evt_retried' }, { attemptHeader: 2 });
    const { page } = await openPage({ path: '/#/d/evt_clean' });
    await page.locator('[data-testid=signature]').waitFor();
    expect(await page.locator('[data-testid=detail]').textContent()).not.toMatch(/refused/i);
    await row(page, 'evt_retried').click();
    await page.locator('[data-testid=refused-note]').waitFor();
    expect(await page.locator('[data-testid=refused-note]').textContent()).toContain('1 attempt was refused');
  });

  it('never wraps a word in the middle ("Latenc y")', async () => {
    const longTarget = `http://127.0.0.1:3000/${'hooks/'.repeat(20)}receiver`;
    await start({
      store: withRelayTries(() => [
        { at: Date.now(), ok: false, status: null, latencyMs: 10_000, replay: false, error: `connect ECONNREFUSED ${'x'.repeat(120)}`, target: longTarget },
        { at: Date.now(), ok: true, status: 204, latencyMs: 18, replay: true, target: longTarget },
      ]),
      conformance: async () => ({ status: 'fail', state: 'delivered', rules: [{ rule: 'backoff', status: 'fail', message: 'attempt 2 came 1.993 s after attempt 1: expected at least 1.204 s' }] }),
    });
    await refuse(fx!.store, fx!.hub, { deliveryId: 'evt_wrap', trigger: TRIGGERS[3], outcome: 'faulted', status: 503, reason: 'rule r1: 503 retry-after=120', retryAfter: '120' });
    await receive(fx!.store, fx!.hub, { id: 'evt_wrap', trigger: TRIGGERS[3], rawHeaders: ['X-Long', 'y'.repeat(300)] }, { attemptHeader: 2 });
    for (const width of [1280, 1440]) {
      const { page } = await openPage({ width, path: '/#/d/evt_wrap' });
      await page.locator('[data-testid=relay]').waitFor();
      await page.screenshot({ path: join(shots, `detail-${width}.png`), fullPage: true });
      expect(await brokenWords(page), `at ${width} px`).toEqual([]);
      await suite.closeContext();
    }
  });

  it('moves through the list with j/k and the arrows, opens with Enter and closes with Esc', async () => {
    await start();
    for (const id of ['evt_k1', 'evt_k2', 'evt_k3']) await receive(fx!.store, fx!.hub, { id });
    const { page } = await openPage();
    await row(page, 'evt_k1').waitFor();
    await liveFeed(page);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-key') ?? document.activeElement?.tagName ?? null);

    await page.keyboard.press('j');
    expect(await focused()).toBe('d:evt_k3');
    await page.keyboard.press('j');
    expect(await focused()).toBe('d:evt_k2');
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('d:evt_k1');
    await page.keyboard.press('k');
    expect(await focused()).toBe('d:evt_k2');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=detail-id]', { hasText: 'evt_k2' }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/d/evt_k2');

    // A live update rebuilds the rows: the focus stays on the same one.
    await receive(fx!.store, fx!.hub, { id: 'evt_k4' });
    await row(page, 'evt_k4').waitFor();
    expect(await focused()).toBe('d:evt_k2');

    await page.keyboard.press('Escape');
    await page.locator('.detail-empty').waitFor();
    expect(new URL(page.url()).hash).toBe('#/');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-key') === 'd:evt_k2');
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe('d:evt_k3');

    // Typing in the search box is left alone.
    await page.locator('[data-testid=filter-text]').focus();
    await page.keyboard.press('j');
    expect(await page.locator('[data-testid=filter-text]').inputValue()).toBe('j');
  });

  it('follows prefers-color-scheme: dark', async () => {
    await start();
    await receive(fx!.store, fx!.hub, { id: 'evt_dark' });
    const luminance = (page: Page, selector: string, property: 'color' | 'backgroundColor') =>
      page.locator(selector).first().evaluate((node, prop) => {
        const [r, g, b] = getComputedStyle(node)[prop].match(/\d+(\.\d+)?/g)!.map(Number) as [number, number, number];
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      }, property);
    for (const scheme of ['dark', 'light'] as const) {
      const { page } = await openPage({ colorScheme: scheme, path: '/#/d/evt_dark' });
      await page.locator('[data-testid=json-tree]').waitFor();
      await page.screenshot({ path: join(shots, `scheme-${scheme}.png`) });
      for (const selector of ['html', '.list-pane', '.detail-pane', '.json-tree']) {
        const background = await luminance(page, selector, 'backgroundColor');
        const ink = await luminance(page, selector, 'color');
        if (scheme === 'dark') expect({ selector, dark: background < 0.2 && ink > 0.6 }).toEqual({ selector, dark: true });
        else expect({ selector, light: background > 0.8 && ink < 0.3 }).toEqual({ selector, light: true });
      }
      await suite.closeContext();
    }
  });
});
