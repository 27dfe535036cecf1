/**
 * The bridge line in a real browser (issue 15): on the laptop's console (a real `connect` to a real
 * public side) its state, host, lag and reconnects, and the change when the public side goes away;
 * on the public side a hostile subscriber name shown as text, escaped and clipped; and no line at
 * all where there is no bridge.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app/build-app.js';
import { buildConnect } from '../../../src/app/build-connect.js';
import type { ConsoleServerOptions } from '../../../src/console/console-options.js';
import { testListenConfig } from '../../helpers/listen-config.js';
import { useBrowser } from '../helpers/browser.js';
import { startConsole } from '../helpers/console-fixture.js';

const TOKEN = 'bridge-browser-token-0123456789abcdefghijklmnopqrstuvwxyz';
const HOSTILE = `laptop/\u202Egnp.exe<img src=x onerror=alert(1)>${'A'.repeat(120)}`;

const suite = useBrowser();

async function consoleWith(overrides: Partial<ConsoleServerOptions>) {
  const fx = await startConsole({ webRoot: suite.webRoot, ...overrides });
  suite.cleanup(() => fx.close());
  return fx;
}

describe('the bridge line', () => {
  it("shows the laptop's connection, then that it was lost, never the token", async () => {
    const app = await buildApp(
      testListenConfig(join(suite.folder(), 'public.db'), {
        bridge: { port: 0, host: '127.0.0.1', retainMs: 86_400_000, tokens: [{ name: 'laptop', token: TOKEN, triggers: [] }] },
      }),
    );
    let appOpen = true;
    suite.cleanup(() => appOpen && app.close());
    const laptop = await buildConnect(
      {
        url: app.bridgeUrl!, token: TOKEN, name: 'laptop-ana', dbPath: join(suite.folder(), 'laptop.db'),
        forward: null, console: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null }, logFormat: 'silent', retainMs: null, devSecret: null,
      },
      { webRoot: suite.webRoot },
    );
    suite.cleanup(() => laptop.close());

    const { page, errors } = await suite.open(laptop.consoleUrl!.replace('//localhost:', '//127.0.0.1:'));
    const line = page.getByTestId('bridge');
    await page.locator('[data-testid=bridge][data-state=live]').waitFor();
    const text = await line.innerText();
    expect(text).toContain('bridge: live');
    expect(text).toContain('laptop-ana');
    expect(text).toContain(`127.0.0.1:${new URL(app.bridgeUrl!).port}`);
    expect(text).toContain('0 behind');
    expect(text).toContain('0 reconnects');

    // The public side stops: the client's notice reaches the page, which reads the line again.
    await app.close();
    appOpen = false;
    await page.locator('[data-testid=bridge][data-state=lost]').waitFor();
    expect(await line.innerText()).toMatch(/bridge: lost · laptop-ana .* · \d+ reconnects?/);
    expect(await page.content()).not.toContain(TOKEN);
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  }, 60_000);

  it("shows a hostile subscriber name as text, escaped and clipped, on the public side", async () => {
    const fx = await consoleWith({
      bridge: () => ({
        side: 'public',
        subscribers: [
          { subscriber: 'ci/box', connected: false, ackedSeq: 3, lag: 37 },
          { subscriber: HOSTILE, connected: true, ackedSeq: 40, lag: 0 },
        ],
      }),
    });
    const { page, errors } = await suite.open(fx.base);
    await page.getByTestId('bridge-subscriber').first().waitFor();
    const line = page.getByTestId('bridge');
    const text = await line.innerText();
    expect(text).toMatch(/^bridge: 2 subscribers — ci\/box offline, 37 behind; laptop\/\\u202Egnp\.exe<img src=x[^…]*… live, 0 behind$/);
    expect(text).not.toContain('A'.repeat(60));
    expect(await line.locator('img').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    // The whole name (escaped) is the tooltip of the clipped one.
    const title = await page.getByTestId('bridge-subscriber').nth(1).locator('.bridge-name').getAttribute('title');
    expect(title).toContain('\\u202Egnp.exe');
    expect(errors).toEqual([]);
  }, 30_000);

  it('is not shown without a bridge', async () => {
    const fx = await consoleWith({});
    const { page } = await suite.open(fx.base);
    await page.locator('[data-testid=feed-state][data-state=live]').waitFor();
    expect(await page.getByTestId('bridge').count()).toBe(0);
  }, 30_000);
});
