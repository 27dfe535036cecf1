/**
 * The README's 60-second tour, step by step, with real processes (issue 13 item 5): `listen`, the
 * built-in `send`, three hand-signed deliveries (one sent twice, one with a changed byte), `listen`
 * again with the tour's fault script, a scaled `send`, then `check` as the tour runs it. It must
 * end in PASS, and the console must agree, with no flag the reader has to find out for themselves.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import { startListenProcess, type ListenProcess } from '../helpers/listen-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
// The commands run in the tour's own folder (its .hookrelay), so tsx is named by its path.
const TSX = new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url).href;

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One CLI command in a child process, as a reader types it; resolves with its output and exit code. */
async function hookrelay(cwd: string, args: string[]): Promise<{ out: string; err: string; code: number | null }> {
  const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { out, err, code };
}

async function listen(cwd: string, args: string[]): Promise<ListenProcess & { consoleUrl: string }> {
  const proc = await startListenProcess(['--db', join(cwd, '.hookrelay', 'hookrelay.db'), ...args]);
  cleanups.push(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  });
  const consoleUrl = /"console":"(http:\/\/[^"]+)"/.exec(proc.output())![1]!;
  return { ...proc, consoleUrl };
}

async function stop(proc: ListenProcess): Promise<void> {
  proc.child.kill('SIGINT');
  await proc.exited;
}

/** The tour's hand-signed curl: the same signed request for `body`, signed over `signedBody`. */
async function curl(url: string, secret: string, id: string, t: number, signedBody: string, body = signedBody): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'trustcenter.access_requested',
      'x-service-delivery': id,
      'x-service-delivery-attempt': '1',
      'x-service-signature': sign(secret, Buffer.from(signedBody), t),
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe('the README tour', () => {
  it('ends in PASS from check, and the console agrees', async () => {
    const dir = tempDir('hookrelay-tour-');
    cleanups.push(dir.remove);
    const cwd = dir.dir;

    // npx hookrelay listen; npx hookrelay send --to … --trigger trustcenter.access_requested
    const first = await listen(cwd, []);
    const plain = await hookrelay(cwd, ['send', '--to', first.url, '--trigger', 'trustcenter.access_requested']);
    expect(plain.code, plain.out + plain.err).toBe(0);

    // Signed by hand: sent twice (the second is a duplicate), then with one byte changed.
    const secret = readFileSync(join(cwd, '.hookrelay', 'dev-secret'), 'utf8').trim();
    const id = crypto.randomUUID();
    const t = Math.floor(Date.now() / 1000);
    const body = `{"id":"${id}","type":"trustcenter.access_requested","apiVersion":"2026-06-01","createdAt":"2026-11-21T10:00:00Z","organizationId":"org_1","data":{"accessRequestId":"ar_1"}}`;
    expect(await curl(first.url, secret, id, t, body)).toBe(200);
    expect(await curl(first.url, secret, id, t, body)).toBe(200);
    expect(await curl(first.url, secret, id, t, body, body.replace('ar_1', 'ar_2'))).toBe(400);
    await stop(first);

    // npx hookrelay listen --fault '503 retry-after=120 attempt=1' --fault 'hang attempt=2'
    const faulted = await listen(cwd, ['--fault', '503 retry-after=120 attempt=1', '--fault', 'hang attempt=2']);
    // since=$(date -u +%Y-%m-%dT%H:%M:%SZ)  (whole seconds, as date prints them). A person typing
    // the tour is seconds behind the hand-signed copies; the test, within one second of them, would
    // put them inside the window: it waits for the next second first.
    await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));
    const since = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    // npx hookrelay send --to … --time-scale 0.001
    const scaled = await hookrelay(cwd, ['send', '--to', faulted.url, '--time-scale', '0.001']);
    expect(scaled.code, scaled.out + scaled.err).toBe(0);
    expect(scaled.out).toMatch(/succeeded after 3 attempts/);
    const deliveryId = /→ delivery (\S+)/.exec(scaled.out)![1]!;

    // npx hookrelay check --since "$since": PASS, the scaled delivery judged at its own mark.
    const judged = await hookrelay(cwd, ['check', '--since', since]);
    expect(judged.out, judged.err).toMatch(/result: PASS \(exit 0\)/);
    expect(judged.code).toBe(0);
    expect(judged.out).toContain(`delivery ${deliveryId}  trustcenter.access_requested  succeeded  PASS  (time scale 0.001, as its sender marked it)`);
    expect(judged.out).not.toContain(id);

    // The command send printed at the end of its summary passes too.
    const printed = /Judge this run \(hookrelay listen records it\): npx hookrelay (check .*)$/m.exec(scaled.out)![1]!;
    expect(printed).toMatch(/^check --since \S+ --time-scale 0\.001$/);
    const again = await hookrelay(cwd, printed.split(' '));
    expect(again.out, again.err).toMatch(/result: PASS \(exit 0\)/);

    // The console's verdict for that delivery: conforms.
    const detail = (await (await fetch(new URL(`/api/deliveries/${deliveryId}`, faulted.consoleUrl))).json()) as { data?: { conformance: { status: string; timeScaleMark?: number } } };
    expect(detail.data?.conformance, JSON.stringify(detail)).toMatchObject({ status: 'pass', timeScaleMark: 0.001 });

    // Without a window, check judges every recorded delivery: the hand-made copies fail, as they should.
    const whole = await hookrelay(cwd, ['check']);
    expect(whole.code).toBe(1);
    expect(whole.out).toMatch(new RegExp(`delivery ${id}  trustcenter.access_requested  succeeded  FAIL`));
    expect(whole.out).toContain(`delivery ${deliveryId}  trustcenter.access_requested  succeeded  PASS`);
  }, 90_000);

  it('judges a delivery that was never stored (every attempt faulted) at its own time-scale mark too, in check and in the console', async () => {
    const dir = tempDir('hookrelay-tour-');
    cleanups.push(dir.remove);
    const cwd = dir.dir;
    const faulted = await listen(cwd, ['--fault', '500']);
    await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));
    const since = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const scaled = await hookrelay(cwd, ['send', '--to', faulted.url, '--time-scale', '0.001']);
    expect(scaled.out).toMatch(/after 6 attempts/);
    const deliveryId = /→ delivery (\S+)/.exec(scaled.out)![1]!;

    const judged = await hookrelay(cwd, ['check', '--since', since]);
    expect(judged.out, judged.err).toMatch(/result: PASS \(exit 0\)/);
    expect(judged.code).toBe(0);
    expect(judged.out).toContain(`(time scale 0.001, as its sender marked it)`);

    const attempts = (await (await fetch(new URL(`/api/deliveries/${deliveryId}/attempts`, faulted.consoleUrl))).json()) as { data?: { conformance: { status: string; timeScaleMark?: number } } };
    expect(attempts.data?.conformance, JSON.stringify(attempts).slice(0, 2000)).toMatchObject({ status: 'pass', timeScaleMark: 0.001 });
  }, 90_000);
});
