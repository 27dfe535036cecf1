/**
 * `connect --no-console`, as a headless laptop or a CI subscriber runs it: with no console
 * listening, nothing but the bridge client keeps the process alive. It must keep retrying while
 * the public side is down (found by a new-user pass: it quit with exit code 0 after its first
 * "retrying in 1 s"), and go live once the public side comes up.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliEntry } from '../helpers/cli-entry.js';
import { startListenProcess } from '../helpers/listen-process.js';
import { freePort } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'headless-test-token-0123456789abcdefghijklmn';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('keeps retrying with no console while the public side is down, then goes live when it comes up', async () => {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const bridgePort = await freePort(); // nothing listens here yet
  const child = spawn(process.execPath, [...cliEntry(), 'connect', `ws://127.0.0.1:${bridgePort}/bridge`, '--name', 'headless', '--db', join(dir, 'laptop.db'), '--no-console'], {
    env: { ...process.env, HOOKRELAY_CONNECT_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = once(child, 'exit');

  // Two refused connects: the first retry (after ~1 s) ran, so the process outlived its first wait.
  const started = Date.now();
  while ((out.match(/retrying in/g) ?? []).length < 2) {
    expect(child.exitCode, `connect exited while the public side was down:\n${out}`).toBeNull();
    expect(Date.now() - started, `no second retry within 15 s:\n${out}`).toBeLessThan(15_000);
    await new Promise((r) => setTimeout(r, 50));
  }

  const pub = await startListenProcess(['--db', join(dir, 'public.db'), '--secret', 'whsec_headless_public_0123456789', '--bridge-port', String(bridgePort), '--bridge-token', `headless:${TOKEN}`, '--no-console']);
  cleanups.push(() => pub.child.kill('SIGKILL'));
  // The backoff doubles up to 30 s (+20% jitter): the next try comes within 36 s of the public side being up.
  const up = Date.now();
  while (!/\blive\b/.test(out.split('retrying in').at(-1)!)) {
    expect(child.exitCode, `connect exited:\n${out}`).toBeNull();
    expect(Date.now() - up, `not live within 45 s of the public side starting:\n${out}`).toBeLessThan(45_000);
    await new Promise((r) => setTimeout(r, 50));
  }

  child.kill('SIGTERM');
  const [code] = await exited;
  expect(code).toBe(0);
}, 90_000);
