/**
 * End to end in a real browser: the receiver from buildApp, the console over its store, hub and
 * fault rules, and `hookrelay send` as a separate process. A delivery appears live; a fault rule
 * added in the panel faults the next one, whose retry is accepted and judged conforming.
 *
 * The console is composed here the way the composition root is expected to compose it
 * (docs/console.md, "Wiring"); once buildApp starts the console itself this test can use it.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../../src/app/build-app.js';
import { resolveListenConfig } from '../../../src/config/listen-config.js';
import { secretHint } from '../../../src/config/data-dir.js';
import { judgeStoredDelivery } from '../../../src/conformance/judge-stored.js';
import { createConsoleServer } from '../../../src/console/console-server.js';
import { runCli } from '../../helpers/run-cli.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { ensureWebBuild } from '../helpers/web-build.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const TIME_SCALE = 0.001;

let browser: Browser;
let webRoot: string;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([ensureWebBuild(), chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })]);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startListenWithConsole(): Promise<{ app: AppHandle; console: FastifyInstance; consoleUrl: string; db: string }> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = join(dir, 'data', 'hookrelay.db');
  const resolved = resolveListenConfig({ flags: { port: 0, db, logFormat: 'silent', console: false }, env: {}, configFile: join(dir, 'none.json') });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const app = await buildApp(resolved.config);
  cleanups.push(() => app.close());
  const secrets = app.config.secrets;
  const server = await createConsoleServer({
    store: app.store,
    hub: app.hub,
    faults: app.faults,
    conformance: (id) => judgeStoredDelivery(app.store, id, { timeScale: TIME_SCALE }),
    status: () => ({
      version: 'e2e',
      receiverUrl: app.receiverUrl,
      path: app.config.path,
      secretHints: secrets.map(secretHint),
      skipVerify: app.config.skipVerify,
      forwardTo: null,
      toleranceSeconds: app.config.toleranceSeconds,
    }),
    redact: (text) => secrets.reduce((t, s) => t.split(s).join(secretHint(s)), text),
    listenHost: '127.0.0.1',
    listenPort: 0,
    token: null,
    webRoot,
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => server.close());
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { app, console: server, consoleUrl: `http://localhost:${address.port}/`, db };
}

describe('console end to end', () => {
  it('shows a sent delivery live, and a delivery faulted by a rule added in the panel, with its retry', async () => {
    const { app, consoleUrl, db } = await startListenWithConsole();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    cleanups.push(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(consoleUrl);
    await page.locator('[data-testid=empty-state]').waitFor();
    expect(await page.locator('[data-testid=receiver-url]').textContent()).toBe(app.receiverUrl);
    await page.locator('[data-testid=feed-state][data-state=live]').waitFor();

    // 1. The command the empty state shows (plus --db for this temporary data folder).
    const first = await runCli(['send', '--to', app.receiverUrl, '--db', db, '--trigger', 'trustcenter.access_requested', '--count', '3', '--json']);
    expect(first.code).toBe(0);
    const batch = JSON.parse(first.stdout) as Array<{ id: string }>;
    for (const { id } of batch) await page.locator('tbody tr.row', { hasText: id }).locator('.chip', { hasText: 'accepted' }).waitFor();
    const sent = batch[0];
    const firstRow = page.locator('tbody tr.row', { hasText: sent!.id });
    await firstRow.click();
    const headers = page.locator('[data-testid=headers]');
    await headers.waitFor();
    const headerText = await headers.textContent();
    expect(headerText).toContain(`x-service-delivery${sent!.id}`);
    expect(headerText).toContain('x-service-eventtrustcenter.access_requested');
    expect(headerText).toMatch(/x-service-signaturet=\d+,v1=[0-9a-f]{64}/);
    expect(await page.locator('[data-testid=json-tree]').textContent()).toContain('accessRequestId');
    expect(await page.locator('[data-testid=signature]').textContent()).toContain('valid');

    // 2. A fault rule added in the panel answers the next delivery's first attempt.
    await page.locator('[data-testid=tab-faults]').click();
    await page.locator('[data-testid=fault-input]').fill('503 retry-after=120 attempt=1');
    await page.locator('[data-testid=fault-add]').click();
    await page.locator('[data-testid=fault-rule]', { hasText: '503' }).waitFor();
    expect(app.faults.list()).toHaveLength(1);

    await page.locator('[data-testid=tab-deliveries]').click();
    const second = await runCli(['send', '--to', app.receiverUrl, '--db', db, '--trigger', 'vendor.rating_dropped', '--time-scale', String(TIME_SCALE), '--json']);
    expect(second.code).toBe(0);
    const [retried] = JSON.parse(second.stdout) as Array<{ id: string; attemptCount: number }>;
    expect(retried!.attemptCount).toBe(2);
    const secondRow = page.locator('tbody tr.row', { hasText: retried!.id });
    await secondRow.locator('.chip', { hasText: 'accepted' }).waitFor();
    await secondRow.click();
    const attempts = page.locator('[data-testid=attempt]');
    await attempts.nth(1).waitFor();
    expect(await attempts.nth(0).textContent()).toMatch(/faulted.*answered 503, Retry-After 120/);
    expect(await attempts.nth(1).textContent()).toMatch(/after the previous answer.*accepted.*answered 200/);
    await page.locator('[data-testid=conformance]', { hasText: 'conforms' }).waitFor();

    // A screenshot of the page in this state, into the test's own folder: a test never writes
    // tracked files (docs/console.png is made by scripts/console-screenshot.ts).
    await page.evaluate(() => document.getElementById('toasts')?.replaceChildren());
    const shot = tempDir();
    cleanups.push(shot.remove);
    await page.screenshot({ path: join(shot.dir, 'console.png') });
    await page.locator('[data-testid=tab-faults]').click();
    await page.locator('[data-testid=fault-rule]', { hasText: 'fired 1×' }).waitFor();
    expect(problems).toEqual([]);
  });
});
