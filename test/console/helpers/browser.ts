/**
 * A real browser for a console test file: Debian's chromium, headless, launched once a file beside
 * the built page; one context a test, closed after it with whatever the test registered to clean up.
 * Every page it opens records its errors (uncaught, and console errors unless told not to) and the
 * dialogs it raised, so a test can say "nothing ran" of hostile content.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { tempDir } from '../../helpers/temp-dir.js';
import { ensureWebBuild } from './web-build.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];

export interface OpenOptions {
  width?: number;
  height?: number;
  colorScheme?: 'light' | 'dark';
  bypassCSP?: boolean;
  acceptDownloads?: boolean;
  /** The page's default timeout for waits; 15 s unless told. */
  timeoutMs?: number;
  /** What a dialog gets: dismissed (the default: an alert from hostile content) or accepted (a confirm the test answers). */
  dialogs?: 'dismiss' | 'accept';
  /** Whether console errors count as errors (uncaught errors always do); true unless told. */
  consoleErrors?: boolean;
  /** Runs on the page before it loads the URL (a route to intercept, a script to add). */
  beforeGoto?: (page: Page) => Promise<void>;
}

export interface OpenedPage {
  page: Page;
  errors: string[];
  dialogs: string[];
  /** Every answer of the control API the page read: path and status. */
  answers: Array<{ path: string; status: number }>;
}

export interface BrowserSuite {
  readonly browser: Browser;
  /** Where the built console page is, for the console servers a test starts. */
  readonly webRoot: string;
  /** A page in this test's context (made by the first open of the test), loaded from `url`. */
  open(url: string, options?: OpenOptions): Promise<OpenedPage>;
  /** Closes this test's context and its pages now: the next open makes a new one (another viewport, colour scheme). */
  closeContext(): Promise<void>;
  /** Runs after the test, newest first, once its pages are closed. */
  cleanup(step: () => unknown): void;
  /** A temporary folder removed after the test. */
  folder(): string;
}

/** Registers the file's hooks; call it once, at the top of a test file. */
export function useBrowser(): BrowserSuite {
  let browser: Browser | undefined;
  let webRoot: string | undefined;
  let context: BrowserContext | undefined;
  const cleanups: Array<() => unknown> = [];

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
    context = undefined;
    for (const step of cleanups.splice(0).reverse()) await step();
  });

  return {
    get browser() {
      if (!browser) throw new Error('useBrowser: the browser starts in beforeAll; use it inside a test');
      return browser;
    },
    get webRoot() {
      if (!webRoot) throw new Error('useBrowser: the page is built in beforeAll; use it inside a test');
      return webRoot;
    },
    async open(url, options = {}) {
      context ??= await this.browser.newContext({
        viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
        colorScheme: options.colorScheme ?? 'light',
        bypassCSP: options.bypassCSP ?? false,
        acceptDownloads: options.acceptDownloads ?? false,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(options.timeoutMs ?? 15_000);
      const opened: OpenedPage = { page, errors: [], dialogs: [], answers: [] };
      if (options.consoleErrors !== false) {
        page.on('console', (message) => {
          if (message.type() === 'error') opened.errors.push(message.text());
        });
      }
      page.on('pageerror', (error) => opened.errors.push(error.message));
      page.on('dialog', (dialog) => {
        opened.dialogs.push(dialog.message());
        void (options.dialogs === 'accept' ? dialog.accept() : dialog.dismiss());
      });
      page.on('response', (response) => {
        const path = new URL(response.url()).pathname;
        if (path.startsWith('/api/')) opened.answers.push({ path, status: response.status() });
      });
      await options.beforeGoto?.(page);
      await page.goto(url);
      return opened;
    },
    async closeContext() {
      await context?.close();
      context = undefined;
    },
    cleanup(step) {
      cleanups.push(step);
    },
    folder() {
      const { dir, remove } = tempDir();
      cleanups.push(remove);
      return dir;
    },
  };
}
