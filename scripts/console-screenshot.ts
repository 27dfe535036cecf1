/**
 * Makes docs/console.png: the console at 1280 × 800 holding 30 deliveries of all 7 triggers, with
 * every verdict a user meets (accepted, duplicate, faulted then accepted on a retry, rejected for
 * each of three reasons). Run it after changing the page:
 *
 *   npm run build && npx tsx scripts/console-screenshot.ts [output.png]
 *
 * It starts the built `hookrelay listen` (dist/) on free ports in a temporary folder, sends signed
 * deliveries over HTTP, and photographs the page in Debian's chromium. Deterministic data (a
 * seeded random source), so a new picture differs from the old one only where the page changed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { mulberry32, uuidFromRandom } from '../src/core/seeded-random.js';
import { sign } from '../src/core/signature/sign.js';
import type { TriggerName } from '../src/core/envelope.js';
import { sampleData, TRIGGER_CATALOGUE } from '../src/core/triggers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT = resolve(process.argv[2] ?? join(ROOT, 'docs/console.png'));
const SECRET = 'whsec_console_screenshot_0123456789abcdef';
const FAULTED_TRIGGER: TriggerName = 'control.drift_detected';
const random = mulberry32(20261123);
const uuid = () => uuidFromRandom(random);

interface Send {
  trigger: TriggerName;
  attempt?: number;
  id?: string;
  secret?: string;
  ageSeconds?: number;
  dropHeader?: string;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hookrelay-screenshot-'));
  const listen = spawn(
    process.execPath,
    [join(ROOT, 'dist/bin/cli.js'), 'listen', '--port', '0', '--console-port', '0', '--log-format', 'json', '--db', join(dir, 'hooks.db'),
      // The first two attempts of one trigger are answered 503, so the list shows a delivery that was faulted, then accepted.
      '--fault', `503 trigger=${FAULTED_TRIGGER} attempt=1-2 retry-after=10`],
    // The secret from the environment: as --secret, listen warns that the process list shows it, and the
    // console shows that notice over the detail.
    { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HOOKRELAY_SECRET: SECRET } },
  );
  try {
    const { receiver, consoleUrl } = await urls(listen.stdout!);
    await sendAll(receiver);
    await photograph(consoleUrl);
    console.log(`wrote ${OUTPUT}`);
  } finally {
    listen.kill('SIGTERM');
    await new Promise((done) => listen.once('exit', done));
    rmSync(dir, { recursive: true, force: true });
  }
}

function urls(stdout: NodeJS.ReadableStream): Promise<{ receiver: string; consoleUrl: string }> {
  return new Promise((resolveUrls, reject) => {
    let seen = '';
    stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const receiver = /"receiver":"([^"]+)"/.exec(seen)?.[1];
      const consoleUrl = /"console":"([^"]+)"/.exec(seen)?.[1];
      if (receiver && consoleUrl) resolveUrls({ receiver, consoleUrl });
    });
    stdout.once('end', () => reject(new Error(`listen stopped before listening:\n${seen}`)));
  });
}

/** 30 deliveries: every trigger, and each verdict at least once. */
function plan(): Send[] {
  const triggers = TRIGGER_CATALOGUE.map((e) => e.trigger);
  const sends: Send[] = [];
  for (let i = 0; i < 25; i++) sends.push({ trigger: triggers[i % triggers.length]! });
  const faulted = uuid();
  for (const attempt of [1, 2, 3]) sends.push({ trigger: FAULTED_TRIGGER, id: faulted, attempt });
  const twice = uuid();
  sends.push({ trigger: 'trustcenter.access_approved', id: twice }, { trigger: 'trustcenter.access_approved', id: twice });
  sends.push({ trigger: 'trustcenter.access_rejected', secret: 'whsec_the_old_secret_before_rotation_01' });
  sends.push({ trigger: 'vendor.rating_dropped', ageSeconds: 900 });
  sends.push({ trigger: 'trustcenter.resource_downloaded', dropHeader: 'x-service-delivery' });
  return sends;
}

async function sendAll(receiver: string): Promise<void> {
  const start = Date.parse('2026-11-23T09:00:00Z');
  let n = 0;
  for (const s of plan()) {
    const id = s.id ?? uuid();
    const body = Buffer.from(
      JSON.stringify({
        id,
        type: s.trigger,
        apiVersion: '2026-06-01',
        createdAt: new Date(start + n++ * 61_000).toISOString(),
        organizationId: 'org_2f9c1a',
        data: sampleData(s.trigger, { random, now: () => start, uuid }),
      }),
    );
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-service-event': s.trigger,
      'x-service-delivery': id,
      'x-service-delivery-attempt': String(s.attempt ?? 1),
      'x-service-signature': sign(s.secret ?? SECRET, body, Math.floor(Date.now() / 1000) - (s.ageSeconds ?? 0)),
    };
    if (s.dropHeader) delete headers[s.dropHeader];
    const answer = await fetch(receiver, { method: 'POST', headers, body });
    await answer.arrayBuffer();
  }
}

async function photograph(consoleUrl: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await page.goto(consoleUrl);
    await page.locator('[data-testid=feed-state][data-state=live]').waitFor({ timeout: 15_000 });
    await page.locator('tbody tr.row').nth(29).waitFor({ timeout: 15_000 });
    await page.locator('tbody tr.row', { hasText: 'trustcenter.access_rejected' }).first().click();
    await page.waitForTimeout(300); // the detail's fade-in
    // The whole page: the viewport is 1280 × 800, and the list below it holds the rest of the 30.
    await page.screenshot({ path: OUTPUT, fullPage: true });
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
